import { lstatSync } from 'node:fs';
import path from 'node:path';

/**
 * Masks over names that are not on disk (issue #31 §3): bubblewrap binds /dev/null (or an empty
 * directory) over each denied name, so a name that does not exist showed up in `ls -la` as a
 * character device. A mask is kept only where the name exists, or where creating it would matter.
 */

/** True when something (a link included, never followed) is at `p`. */
export function onDisk(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** SQLite's side files of a database: a planted one is replayed into the database when it is next opened. */
const SIDE_FILE = /-(wal|shm|journal)$/;

/**
 * Whether one of toolgate's own names needs a mask: it exists; or it is a side file of a database
 * that exists (a planted `-journal` or `-wal` rewrites pages of the journal on its next open).
 * Creating the others is harmless: a `toolgate.toml` found in a root only tightens the policy
 * until `toolgate trust`, and state in a planted `.toolgate/` is sealed and owner-checked
 * (docs/SECURITY.md, "State toolgate did not make").
 */
export function needsOwnMask(p: string): boolean {
  return onDisk(p) || (SIDE_FILE.test(p) && onDisk(p.replace(SIDE_FILE, '')));
}

/**
 * The names @anthropic-ai/sandbox-runtime masks in toolgate's working directory on its own
 * (DANGEROUS_FILES and getDangerousDirectories in its sandbox-utils.js), whatever the view says.
 */
export const RUNTIME_CWD_NAMES: readonly string[] = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
];

/** The first component of `target` under `base` that does not exist (what the runtime masks), if any. */
function firstAbsent(base: string, target: string): string | undefined {
  let current = base;
  for (const part of path.relative(base, target).split(path.sep)) {
    current = path.join(current, part);
    if (!onDisk(current)) return current;
  }
  return undefined;
}

/** A path the runtime's shell quoting leaves as it is, so it can be found in its command line. */
const PLAIN = /^[A-Za-z0-9_/.,:+@%=-]+$/;

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The wrapped command without the runtime's masks over names absent from `cwd` (its working
 * directory, where it adds them). An existing name keeps its mask (unwritable), so does one
 * whose path needs quoting, or any mask when the runtime moved its mounts to a file: hiding is
 * best effort, protection is not reduced for what exists. An absent one becomes creatable, as the
 * same name is in every other directory of the roots: toolgate's own policy does not rely on them.
 */
export function withoutAbsentRuntimeMasks(argv: readonly string[], cwd: string): string[] {
  const absent = new Set<string>();
  for (const name of RUNTIME_CWD_NAMES) {
    const missing = firstAbsent(cwd, path.resolve(cwd, name));
    if (missing && PLAIN.test(missing)) absent.add(missing);
  }
  if (absent.size === 0) return [...argv];
  // `--ro-bind /dev/null P` (a file) or `--ro-bind EMPTYDIR P` (a directory), P followed by a space.
  const binds = new RegExp(` --ro-bind [^ ]+ (?:${[...absent].map(literal).join('|')})(?= )`, 'g');
  return argv.map((arg) => arg.replace(binds, ''));
}
