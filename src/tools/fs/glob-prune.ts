import type { GitignoreFilter } from './gitignore-filter.js';
import { type GlobWalk, globWithRipgrep, type RipgrepListing } from './glob-ripgrep.js';
import { reincludedBelow, rulesFromAbove } from './prune-rules.js';

/**
 * Glob's ripgrep walk, pruned by .gitignore rules (issue #33): what ripgrep skips it never reads,
 * which is most of its time on trees with ignored build output (node_modules/*\/dist). Toolgate's
 * GitignoreFilter still judges every name listed; the pruning must only ever skip a directory the
 * filter ignores too. Why it does:
 *
 * - The pattern is a ripgrep override, which wins over ignore rules: a file is listed or not by the
 *   pattern alone, so ignore rules in ripgrep only ever skip directories.
 * - Ripgrep reads no .gitignore of the tree itself (globWithRipgrep: `--no-ignore`): its reading of
 *   git's syntax differs (braces, classes, escapes, POSIX classes), it follows a .gitignore that is
 *   a link and blocks on a FIFO. It is given one ignore file, written here from what toolgate's
 *   filter read (no links, no FIFOs, capped): the rules of the .gitignore files at and above the
 *   base, sent only when none of them holds a `!` (then any line that matches means "ignored", in
 *   git's order as in any other), and only lines that match a name at any depth in words both
 *   dialects read alike (`dist/`, `*.log`, `**\/tmp`: letters, digits, `.`, `_`, `-`, single `*`),
 *   which mean the same from the base as from their own folder. The lines that exclude the base
 *   itself are already out (the filter drops them: a folder named explicitly is searched).
 * - A .gitignore below the base speaks after those rules in git (the deepest file with a say
 *   decides), and its `!` could re-include a directory they skip. So ripgrep also lists every
 *   .gitignore its walk meets, and if any holds a `!` (or the listing stopped at the cap), the walk
 *   runs again without the rules.
 */
export async function globWithPruning(
  binary: string,
  cwd: string,
  pattern: string,
  options: GlobWalk & {
    filter: GitignoreFilter;
    base: string;
    /** A fresh judge of the names listed, for each walk (there may be two). */
    judge: () => (name: string) => string | undefined;
  },
): Promise<RipgrepListing> {
  const { filter, base, judge, ...rest } = options;
  const walk = () => ({ ...rest, keep: judge() });
  // Rules from above go only with the listing of .gitignore files, which comes without `hidden`.
  const fromAbove = options.hidden ? undefined : rulesFromAbove(filter, base);
  if (fromAbove === undefined) return globWithRipgrep(binary, cwd, pattern, walk());
  const listed = await globWithRipgrep(binary, cwd, pattern, { ...walk(), fromAbove });
  if (!listed.truncated && !reincludedBelow(filter, base, listed.gitignoreDirs ?? [])) return listed;
  return globWithRipgrep(binary, cwd, pattern, walk());
}
