import type { ArgIssue } from './option-parser.js';

/**
 * GNU find's command line is not getopt's: `find [-H|-L|-P] [-D opts] [-Olevel] [path…]
 * [expression]`, where the expression is a sequence of primaries, each taking a fixed number of
 * words. A primary not listed here asks; the ones that write or run (`-exec`, `-delete`, `-fprint`
 * …) or read starting points from a file (`-files0-from`) always ask.
 */

/** Safe primaries and operators, with how many words each takes. */
const SAFE = new Map<string, number>([
  ...[
    '-depth',
    '-d',
    '-daystart',
    '-follow',
    '-ignore_readdir_race',
    '-noignore_readdir_race',
    '-mount',
    '-xdev',
    '-noleaf',
    '-nowarn',
    '-warn',
    '-empty',
    '-executable',
    '-false',
    '-true',
    '-nogroup',
    '-nouser',
    '-readable',
    '-writable',
    '-print',
    '-print0',
    '-ls',
    '-prune',
    '-quit',
    '-not',
    '!',
    '-a',
    '-and',
    '-o',
    '-or',
    '(',
    ')',
    ',',
    '-help',
    '--help',
    '-version',
    '--version',
  ].map((p) => [p, 0] as const),
  ...[
    '-maxdepth',
    '-mindepth',
    '-regextype',
    '-amin',
    '-anewer',
    '-atime',
    '-cmin',
    '-cnewer',
    '-ctime',
    '-fstype',
    '-gid',
    '-group',
    '-ilname',
    '-iname',
    '-inum',
    '-ipath',
    '-iregex',
    '-iwholename',
    '-links',
    '-lname',
    '-mmin',
    '-mtime',
    '-name',
    '-newer',
    '-path',
    '-perm',
    '-regex',
    '-samefile',
    '-size',
    '-type',
    '-uid',
    '-used',
    '-user',
    '-wholename',
    '-xtype',
    '-context',
    '-printf',
  ].map((p) => [p, 1] as const),
]);

/** `-newerXY` compares with another file's (or a date's) time: one word. */
const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

/** Checks `find`'s words after the program: the issues, and the starting points it walks. */
export function checkFindArgs(argv: readonly (string | undefined)[]): {
  issues: ArgIssue[];
  paths: string[];
} {
  const issues: ArgIssue[] = [];
  const paths: string[] = [];
  let i = 1;
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === '-H' || word === '-L' || word === '-P' || (word !== undefined && /^-O\d$/.test(word)))
      continue;
    if (word === '-D') {
      i++;
      continue;
    }
    break;
  }
  // Starting points: up to the first word that begins an expression.
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) {
      issues.push({ index: i, what: 'a word known only at run time' });
      continue;
    }
    if ((word.startsWith('-') && word !== '-') || ['(', ')', '!', ','].includes(word)) break;
    paths.push(word);
  }
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) {
      issues.push({ index: i, what: 'a word known only at run time' });
      continue;
    }
    const takes = SAFE.get(word) ?? (NEWER_XY.test(word) ? 1 : undefined);
    if (takes === undefined) {
      // What the words after an unknown primary mean is unknown: stop here.
      issues.push({ index: i, what: `${word} is not a primary known to be safe for find` });
      break;
    }
    if (i + takes >= argv.length) issues.push({ index: i, what: `${word} needs a value` });
    for (let k = 1; k <= takes; k++)
      if (argv[i + k] === undefined) issues.push({ index: i + k, what: 'a value known only at run time' });
    i += takes;
  }
  return { issues, paths };
}
