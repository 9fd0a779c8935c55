import { closeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { ToolError } from '../../core/tool-error.js';
import { PRUNE_RULES_FILE } from './prune-log.js';
import { startRipgrep } from './start-ripgrep.js';
import { unlinkedTextFile } from './unlinked-text-file.js';

/** More names than any listing needs: past it ripgrep is stopped and the result says so. */
const MAX_NAMES = 200_000;

/** The file name the probe lists (see `fromAbove`). */
const GITIGNORE = '.gitignore';

export interface RipgrepListing {
  /** What `keep` made of the paths listed (relative to `cwd`), in ripgrep's order. */
  names: string[];
  truncated: boolean;
  /** With `fromAbove`, without `hidden`: the directories (relative to `cwd`) where the walk met a .gitignore. */
  gitignoreDirs: string[] | undefined;
}

/** What every walk is given: whether hidden folders are walked, and the call's signal. */
export interface GlobWalk {
  hidden: boolean;
  signal: AbortSignal;
}

/**
 * Lists the files under `cwd` whose paths match `pattern`, with ripgrep's glob engine: globs are
 * compiled to a finite automaton (Rust's regex crate), so no pattern can make matching take
 * exponential time (picomatch's backtracking regexes took minutes on `**\/+(*)Q`), and the work
 * runs in a child process that the tool's timeout and cancel kill. Links are not followed.
 *
 * Ripgrep reads no ignore file of the tree. `fromAbove` (ignored with `hidden`), rules toolgate
 * read and chose, is its one ignore file: it skips ignored directories while it walks (the pattern
 * is an override that wins over those rules, so a file is listed or not by the pattern alone), and
 * the walk then also lists where it met a .gitignore. The caller judges every name with toolgate's
 * own .gitignore rules (glob-prune.ts says why the skipping never drops a name they keep).
 */
export async function globWithRipgrep(
  binary: string,
  cwd: string,
  pattern: string,
  options: GlobWalk & {
    fromAbove?: string;
    /** Judges each path as it arrives (while ripgrep still walks): the name to keep, or undefined. */
    keep: (name: string) => string | undefined;
    /** The cap on paths listed (tests lower it). */
    maxNames?: number;
  },
): Promise<RipgrepListing> {
  // The .gitignore files are listed with rules from above (glob-prune.ts says why), only without
  // `hidden`: then they are hidden names the caller leaves out, never answers of the pattern.
  const probe = options.fromAbove !== undefined && !options.hidden;
  // A pattern without a slash would match at any depth under gitignore rules; anchored, it means
  // what the glob tool says: relative to the directory searched.
  const anchored = pattern.startsWith('/') ? pattern : `/${pattern}`;
  const args = [
    '--files',
    // Names end with NUL, not a line break: a name holding "\n" is one name, never two.
    '--null',
    '--no-config',
    '--no-messages',
    // No ignore file of the tree is read by ripgrep: it reads git's syntax otherwise than git
    // (braces, classes, escapes), follows a .gitignore that is a link (out of the root too), and
    // blocks on one that is a FIFO. Only `fromAbove`, written by toolgate, prunes (glob-prune.ts).
    '--no-ignore',
    // One walker thread: faster than several here (a walk of node_modules, 2 cores: ~35 vs ~45 ms).
    '--threads',
    '1',
    ...(options.hidden ? ['--hidden'] : []),
    ...(probe ? ['--ignore-file', PRUNE_RULES_FILE, '--glob', `/**/${GITIGNORE}`] : []),
    '--glob',
    anchored,
    '--glob',
    '!.git',
  ];
  const rules = probe ? unlinkedTextFile(options.fromAbove ?? '') : undefined;
  let started: ReturnType<typeof startRipgrep>;
  try {
    started = startRipgrep(binary, args, { cwd, ...(rules === undefined ? {} : { stdinFd: rules }) });
  } finally {
    if (rules !== undefined) closeSync(rules); // the child has its own copy
  }
  const { child, exited, stderr: errors } = started;
  const stop = started.stop;
  options.signal.addEventListener('abort', stop, { once: true });
  const names: string[] = [];
  const gitignoreDirs: string[] = [];
  const maxNames = options.maxNames ?? MAX_NAMES;
  let listed = 0;
  let truncated = false;
  /** Takes one line of output; false once the listing is at the cap. */
  const take = (line: string): boolean => {
    if (!line) return true;
    if (listed++ >= maxNames) return false;
    const name = line.startsWith('./') ? line.slice(2) : line;
    if (probe && (name === GITIGNORE || name.endsWith(`/${GITIGNORE}`))) {
      gitignoreDirs.push(name.slice(0, -GITIGNORE.length - 1));
    } else {
      const kept = options.keep(name);
      if (kept !== undefined) names.push(kept);
    }
    return true;
  };
  try {
    // Split by hand: one split per chunk instead of an event per name. Each chunk
    // is judged as it comes, on this thread while ripgrep walks on another core.
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      const lines = (rest + decoder.write(chunk)).split('\0');
      rest = lines.pop() ?? '';
      if (!lines.every(take)) {
        truncated = true;
        stop();
        break;
      }
    }
    if (!truncated && !take(rest + decoder.end())) truncated = true;
    const code = await exited;
    if (options.signal.aborted) throw new ToolError('Cancelled', 'the search was stopped');
    if (started.killedElsewhere()) {
      throw new ToolError(
        'ExecutionFailed',
        'ripgrep was killed before it finished the listing; run it again',
      );
    }
    const stderr = errors();
    if (!truncated && code === 2 && /glob|error parsing/i.test(stderr)) {
      throw new ToolError('BadArgs', `invalid glob pattern "${pattern}": ${stderr.trim().split('\n')[0]}`);
    }
    return { names, truncated, gitignoreDirs: probe ? gitignoreDirs : undefined };
  } finally {
    options.signal.removeEventListener('abort', stop);
    if (child.exitCode === null) stop();
  }
}

/**
 * Where a walk pruned by `rules` meets a .gitignore (directories relative to `cwd`), for a search
 * that prunes the same way but lists only what it finds in files (grep): whether one below could
 * re-include what the rules skipped (prune-rules.ts).
 */
export async function listGitignores(
  binary: string,
  cwd: string,
  rules: string,
  signal: AbortSignal,
): Promise<{ dirs: string[]; truncated: boolean }> {
  const listed = await globWithRipgrep(binary, cwd, `**/${GITIGNORE}`, {
    hidden: false,
    signal,
    fromAbove: rules,
    keep: () => undefined,
  });
  return { dirs: listed.gitignoreDirs ?? [], truncated: listed.truncated };
}
