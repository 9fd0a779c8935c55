import { createInterface } from 'node:readline';
import { ToolError } from '../../core/tool-error.js';
import { startRipgrep } from './start-ripgrep.js';

/** More names than any listing needs: past it ripgrep is stopped and the result says so. */
const MAX_NAMES = 200_000;

/**
 * Lists the files under `cwd` whose paths match `pattern`, with ripgrep's glob engine: globs are
 * compiled to a finite automaton (Rust's regex crate), so no pattern can make matching take
 * exponential time (picomatch's backtracking regexes took minutes on `**\/+(*)Q`), and the work
 * runs in a child process that the tool's timeout and cancel kill. Links are not followed.
 * Ignore files are not applied here (the caller applies toolgate's own .gitignore rules).
 */
export async function globWithRipgrep(
  binary: string,
  cwd: string,
  pattern: string,
  options: { hidden: boolean; signal: AbortSignal },
): Promise<{ names: string[]; truncated: boolean }> {
  // A pattern without a slash would match at any depth under gitignore rules; anchored, it means
  // what the glob tool says: relative to the directory searched.
  const anchored = pattern.startsWith('/') ? pattern : `/${pattern}`;
  const args = [
    '--files',
    '--no-config',
    '--no-ignore',
    '--no-messages',
    ...(options.hidden ? ['--hidden'] : []),
    '--glob',
    anchored,
    '--glob',
    '!.git',
  ];
  const { child, exited, stderr: errors } = startRipgrep(binary, args, { cwd });
  const stop = () => child.kill('SIGKILL');
  options.signal.addEventListener('abort', stop, { once: true });
  const names: string[] = [];
  let truncated = false;
  try {
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (names.length >= MAX_NAMES) {
        truncated = true;
        stop();
        break;
      }
      if (line) names.push(line.startsWith('./') ? line.slice(2) : line);
    }
    const code = await exited;
    if (options.signal.aborted) throw new ToolError('Cancelled', 'the search was stopped');
    const stderr = errors();
    if (!truncated && code === 2 && /glob|error parsing/i.test(stderr)) {
      throw new ToolError('BadArgs', `invalid glob pattern "${pattern}": ${stderr.trim().split('\n')[0]}`);
    }
    return { names, truncated };
  } finally {
    options.signal.removeEventListener('abort', stop);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
