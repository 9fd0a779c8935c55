/**
 * Commands that only look (DESIGN §4: may be auto-allowed per config). Each entry is a whole-word
 * prefix; `unsafeArgs` lists arguments that would make a listed command write or run something.
 */
const READ_ONLY: readonly { prefix: readonly string[]; unsafeArgs?: RegExp }[] = [
  { prefix: ['ls'] },
  { prefix: ['cat'] },
  { prefix: ['head'] },
  { prefix: ['tail'] },
  { prefix: ['wc'] },
  { prefix: ['pwd'] },
  { prefix: ['echo'] },
  { prefix: ['printf'] },
  { prefix: ['true'] },
  { prefix: ['false'] },
  { prefix: ['grep'] },
  { prefix: ['rg'], unsafeArgs: /^--pre(?:=|$)/ },
  { prefix: ['find'], unsafeArgs: /^-(?:exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/ },
  { prefix: ['tree'] },
  { prefix: ['sort'], unsafeArgs: /^(?:-o|--output)/ },
  { prefix: ['uniq'] },
  { prefix: ['cut'] },
  { prefix: ['file'] },
  { prefix: ['stat'] },
  { prefix: ['du'] },
  { prefix: ['df'] },
  { prefix: ['which'] },
  { prefix: ['whoami'] },
  { prefix: ['date'], unsafeArgs: /^(?:-s|--set)/ },
  { prefix: ['uname'] },
  { prefix: ['basename'] },
  { prefix: ['dirname'] },
  { prefix: ['realpath'] },
  { prefix: ['git', 'status'] },
  { prefix: ['git', 'diff'], unsafeArgs: /^--output/ },
  { prefix: ['git', 'log'], unsafeArgs: /^--output/ },
  { prefix: ['git', 'show'], unsafeArgs: /^--output/ },
  { prefix: ['git', 'rev-parse'] },
  { prefix: ['git', 'ls-files'] },
  { prefix: ['git', 'blame'] },
];

export function isReadOnlyCommand(argv: readonly (string | undefined)[]): boolean {
  return READ_ONLY.some(
    (entry) =>
      entry.prefix.every((word, i) => argv[i] === word) &&
      !(entry.unsafeArgs && argv.some((a) => a === undefined || (entry.unsafeArgs as RegExp).test(a))),
  );
}
