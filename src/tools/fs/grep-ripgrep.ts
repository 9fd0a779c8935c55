import { closeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ToolError } from '../../core/tool-error.js';
import { clipLine, type GrepLine, type GrepQuery } from './grep-types.js';
import { PRUNE_RULES_FILE, type PruneLog } from './prune-log.js';
import { startRipgrep } from './start-ripgrep.js';
import { unlinkedTextFile } from './unlinked-text-file.js';

export { ripgrepBinary } from '../ripgrep-binary.js';

interface RgEvent {
  type: string;
  data?: {
    path?: { text?: string };
    lines?: { text?: string };
    line_number?: number;
    absolute_offset?: number;
  };
}

/**
 * Runs `rg --json` in `cwd` on `target` and streams its events; stops (kills rg) as soon as
 * `accept` says the cap is reached or the signal aborts. Regex errors become BadArgs.
 */
export async function grepWithRipgrep(
  binary: string,
  where: {
    cwd: string;
    target: string;
    stdinFd?: number;
    pruneRules?: string;
    /** With `pruneRules`: told, from ripgrep's debug log, each entry the rules made it skip. */
    pruneLog?: PruneLog;
  },
  query: GrepQuery,
  accept: (line: GrepLine) => boolean,
  signal: AbortSignal,
): Promise<{ stopped: boolean }> {
  const args = [
    '--json',
    '--no-config',
    // No ignore file is read by ripgrep: not one above the workspace root (a home directory's `*`
    // hid every match), no global or repository exclude, .ignore or .rgignore (git honours none of
    // those here), and not the tree's .gitignore files either (ripgrep reads git's syntax otherwise,
    // follows a linked one out of the root, blocks on a FIFO). The caller's GitignoreFilter judges
    // every path found; `pruneRules` (prune-rules.ts) only skip folders while it walks.
    '--no-ignore',
    ...(where.pruneRules === undefined ? [] : ['--ignore-file', PRUNE_RULES_FILE]),
    ...(where.pruneRules !== undefined && where.pruneLog !== undefined ? ['--debug'] : []),
    '--no-messages',
    query.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(query.fixedStrings ? ['--fixed-strings'] : []),
    ...(query.context > 0 ? ['--context', String(query.context)] : []),
    ...(query.include ? ['--glob', query.include] : []),
    '--glob',
    '!.git',
    '--regexp',
    query.pattern,
    '--',
    where.target,
  ];
  const rules = where.pruneRules === undefined ? undefined : unlinkedTextFile(where.pruneRules);
  const stdinFd = rules ?? where.stdinFd;
  let started: ReturnType<typeof startRipgrep>;
  try {
    started = startRipgrep(binary, args, {
      cwd: where.cwd,
      ...(stdinFd === undefined ? {} : { stdinFd }),
      ...(rules === undefined || where.pruneLog === undefined ? {} : { pruneLog: where.pruneLog }),
    });
  } finally {
    if (rules !== undefined) closeSync(rules); // the child has its own copy
  }
  const { child, exited, stderr: errors } = started;
  let stopped = false;
  const stop = () => {
    stopped = true;
    started.stop();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const raw of lines) {
      if (stopped) break;
      let event: RgEvent;
      try {
        event = JSON.parse(raw) as RgEvent;
      } catch {
        continue;
      }
      if ((event.type !== 'match' && event.type !== 'context') || !event.data) continue;
      const path = event.data.path?.text;
      const text = event.data.lines?.text;
      if (path === undefined || text === undefined || event.data.line_number === undefined) continue;
      const keepGoing = accept({
        path: path.startsWith('./') ? path.slice(2) : path,
        line: event.data.line_number,
        text: clipLine(text),
        kind: event.type,
        raw: text,
        ...(event.data.absolute_offset === undefined ? {} : { offset: event.data.absolute_offset }),
      });
      if (!keepGoing) {
        stop();
        break;
      }
    }
    const code = await exited;
    if (signal.aborted) throw new ToolError('Cancelled', 'cancelled');
    // Killed by something else (a file-size limit on its log, the OOM killer): what it found is
    // not all there is. With a prune log, that log now reads as unfinished and the caller searches
    // again unpruned; without one, the search fails rather than look complete.
    if (started.killedElsewhere() && where.pruneLog === undefined) {
      throw new ToolError(
        'ExecutionFailed',
        'ripgrep was killed before it finished the search; run it again',
      );
    }
    const stderr = errors();
    if (!stopped && code === 2 && stderr.trim()) {
      throw new ToolError('BadArgs', `the search failed: ${stderr.trim().split('\n').slice(0, 6).join(' ')}`);
    }
    return { stopped };
  } finally {
    signal.removeEventListener('abort', stop);
    if (child.exitCode === null) started.stop();
  }
}
