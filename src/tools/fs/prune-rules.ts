import type { GitignoreFilter } from './gitignore-filter.js';
import type { PruneLog } from './prune-log.js';

// Which .gitignore rules ripgrep may prune a walk with (glob-prune.ts says why they are safe), for
// glob and grep alike.

/**
 * A line that matches a name at any depth (no slash but a trailing one, or a leading `**\/`), in
 * words git and ripgrep read alike: no braces, classes, escapes, spaces or `**` inside a name.
 */
const ANY_DEPTH = /^(\*\*\/)?(?!.*\*\*)[A-Za-z0-9._*-]+\/?$/;

/**
 * The rules of the .gitignore files at and above `base` (root-relative), as the filter applies
 * them in it, that ripgrep may prune with; undefined when there are none or they cannot be sent.
 */
export function rulesFromAbove(filter: GitignoreFilter, base: string): string | undefined {
  const parts = base === '.' || base === '' ? [] : base.split('/');
  const lines: string[] = [];
  for (let depth = 0; depth <= parts.length; depth++) {
    const text = filter.ruleText(parts.slice(0, depth).join('/'));
    if (text === undefined) continue;
    if (hasNegation(text)) return undefined;
    for (const line of text.split('\n')) if (ANY_DEPTH.test(line)) lines.push(line);
  }
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}

/** Any `!` at all: a re-include, or (when escaped) a name with one; either way, not sent. */
export function hasNegation(text: string | undefined): boolean {
  return text?.includes('!') ?? false;
}

/**
 * Whether a .gitignore below `base` (in `dirs`, relative to it, where a pruned walk met one) holds
 * a `!`: it speaks after the rules the walk pruned with, and could re-include what they skipped.
 */
export function reincludedBelow(filter: GitignoreFilter, base: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => hasNegation(filter.ruleText(fromRoot(base, dir))));
}

/** A path relative to `base` (root-relative, `.` for the root), made root-relative. */
function fromRoot(base: string, path: string): string {
  const at = base === '.' ? '' : base;
  return at === '' ? path : path === '' ? at : `${at}/${path}`;
}

/**
 * Whether every entry a walk pruned by the rules skipped (`log`, relative to `base`) is one the
 * filter ignores too, so the pruned walk left out nothing git keeps. An entry of unknown kind
 * (a rule without a trailing slash) must be ignored both as a file and as a folder.
 */
export function skippedOnlyIgnored(filter: GitignoreFilter, base: string, log: PruneLog): boolean {
  if (!log.complete) return false;
  return log.entries.every(({ path, directory }) => {
    if (path === '') return false; // the base itself is searched, never skipped
    const entry = fromRoot(base, path);
    return filter.ignores(entry, true) && (directory || filter.ignores(entry, false));
  });
}
