import { createInterface } from 'node:readline';
import { ToolError } from '../../core/tool-error.js';
import { clipLine, type GrepLine, type GrepQuery } from './grep-types.js';
import { startRipgrep } from './start-ripgrep.js';

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
  where: { cwd: string; target: string; stdinFd?: number },
  query: GrepQuery,
  accept: (line: GrepLine) => boolean,
  signal: AbortSignal,
): Promise<{ stopped: boolean }> {
  const args = [
    '--json',
    '--no-config',
    '--no-require-git',
    // Only the .gitignore files at and below where it searches: never one above the workspace
    // root (a home directory's `*`), a global or repository exclude, .ignore or .rgignore, which
    // neither git nor glob and list_directory honour. The rules above the searched folder are the
    // caller's (GitignoreFilter judges every path found).
    '--no-ignore-parent',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--no-ignore-dot',
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
  const {
    child,
    exited,
    stderr: errors,
  } = startRipgrep(binary, args, {
    cwd: where.cwd,
    ...(where.stdinFd === undefined ? {} : { stdinFd: where.stdinFd }),
  });
  let stopped = false;
  const stop = () => {
    stopped = true;
    child.kill('SIGKILL');
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
    const stderr = errors();
    if (!stopped && code === 2 && stderr.trim()) {
      throw new ToolError('BadArgs', `the search failed: ${stderr.trim().split('\n').slice(0, 6).join(' ')}`);
    }
    return { stopped };
  } finally {
    signal.removeEventListener('abort', stop);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
