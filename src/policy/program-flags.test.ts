import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OptionTable } from './option-parser.js';
import { GIT_SUBCOMMAND_FLAGS, PROGRAM_FLAGS } from './program-flags.js';
import { checkProgramFlags, isReadOnlyCommand, optionFileValues } from './read-only-commands.js';

const words = (line: string) => line.split(' ');
const readOnly = (line: string) => isReadOnlyCommand(words(line));

describe('issue #29 §4: argv read as the program reads it', () => {
  it.each([
    ['sort -rn a.txt', true, 'a cluster of known flags'],
    ['sort -ro out a.txt', false, '-o inside a cluster'],
    ['sort -roout a.txt', false, "-o's value attached in a cluster"],
    ['sort a.txt -o out', false, 'GNU permutes: an option after an operand is an option'],
    ['sort -- -o', true, 'after --, -o is a file name'],
    ['sort --outp=x a.txt', false, 'a unique prefix of --output'],
    ['sort --o x a.txt', false, '--o resolves to --output, the next word its value'],
    ['sort --c=x a.txt', false, 'ambiguous: --check, --compress-program'],
    ['sort -k 2 -o x', false, 'a value (2) is not an operand; -o still counts'],
    ['sort -k -o a.txt', true, '-o as the value of -k is a key, not an option'],
    ['sort --files0-from=- ', false, 'file names from stdin'],
    ['sort --files0-f list', false, 'an abbreviation of --files0-from, value as the next word'],
    ['date --s=2020-01-01', false, '--s abbreviates --set'],
    ['date --se 2020-01-01', false, '--se abbreviates --set'],
    ['date -us 2020-01-01', false, '-s inside a cluster'],
    ['date 010100002030', false, 'an operand that is not +FORMAT sets the clock'],
    ['date -u +%s', true, 'a format operand'],
    ['date --u +%s', true, '--u: --utc, --universal, --uct are the same option'],
    ['date --r a.txt', false, 'ambiguous: --reference, --rfc-…, --resolution'],
    ['date --fi=x', false, '-f/--file reads dates from a file'],
    ['tree -aR', false, '-R in a cluster'],
    ['tree -Lo 2 out', false, "tree: each value letter takes the next word, so -o's value is out"],
    ['tree -L 2 -a', true, 'tree -L with its value'],
    ['tree --noreport', true, 'a whole long name'],
    ['tree --norep', false, 'tree takes no abbreviations'],
    ['tree -H . -o x', false, '-H and -o'],
    ['grep -n --line-buf x a.txt', true, 'an abbreviation of --line-buffered'],
    ['grep --co x a.txt', false, 'ambiguous: --color, --colour, --context, --count'],
    ['grep -e --unknown a.txt', true, 'a value of -e, not an option'],
    ['grep x a.txt --unknown', false, 'an unknown option after operands'],
    ['grep -- --unknown a.txt', true, 'after --'],
    ['grep -3 x a.txt', true, '-NUM context'],
    ['grep -f - a.txt', false, 'patterns from stdin'],
    ['grep -fpats a.txt', false, 'a file value attached in a cluster: the planner cannot judge it'],
    ['grep -f pats a.txt', true, 'a file value as a word of its own'],
    ['grep --file=pats a.txt', true, '--file=value (the planner judges the value)'],
    ['rg --pre x y', false, '--pre runs a program'],
    ['rg --pr=x y', false, 'rg takes no abbreviations'],
    ['rg -iz x', false, '-z in a cluster'],
    ['rg -in x a.txt', true, 'plain flags'],
    ['tail -f a.txt', false, 'follows forever'],
    ['tail --fo a.txt', false, '--fo abbreviates --follow'],
    ['tail -5f a.txt', false, 'the obsolete -5f follows'],
    ['tail -5 a.txt', true, 'the obsolete -5'],
    ['head -5 a.txt', true, '-NUM'],
    ['uniq a.txt out', false, 'a second operand is written'],
    ['uniq -c a.txt', true, 'one operand'],
    ['file -C -m x', false, '-C compiles'],
    ['file -z a.txt', false, '-z runs decompressors'],
    ['file --files-f list', false, 'names from a file'],
    ['file --mime-type a.txt', true, 'plain'],
    ['wc --files0=list', false, '--files0-from'],
    ['du -X pats src', true, '-X reads a file (judged as a path)'],
    ['du --files0-from=list', false, 'names from a file'],
    ['printf -v x 1', false, 'printf -v assigns'],
    ['printf %s -v', true, 'after the format, -v is an argument'],
    ['ls --colo=never -la', true, 'an abbreviation of --color with a value'],
    ['ls --frobnicate', false, 'unknown'],
    ['echo -x --anything', true, 'echo prints its words'],
    ['find . -delete', false, '-delete'],
    ['find . -name x -exec rm {} ;', false, '-exec'],
    ['find -files0-from list', false, 'starting points from a file'],
    ['find . -fprint out', false, '-fprint'],
    ['find src -name -exec -print', true, '-exec as the value of -name'],
    ['find -L src -newermt 2020-01-01 -type f', true, 'find options and -newerXY'],
    ['find src -frob', false, 'an unknown primary'],
    ['git log --oneline -n 3', true, 'header options'],
    ['git log -p', false, 'patches print contents'],
    ['git log HEAD:secret', false, 'REV:path'],
    ['git -P log --oneline', true, 'a harmless global option'],
    ['git -p log --oneline', false, '-p runs a pager'],
    ['git --bare log --oneline', false, '--bare reads another layout'],
    ['git -c a=b log --oneline', false, '-c'],
    ['git diff --stat', true, 'names and counts'],
    ['git diff', false, 'contents'],
    ['git show -s HEAD', false, 'git show is off the list'],
    ['git blame --cont=x a.txt', false, '--contents by a prefix'],
    ['git ls-files --recurse-submodules', false, 'runs git in submodules'],
    ['git status --porc', true, 'a prefix of --porcelain'],
    ['npm test', false, 'not on the list'],
  ])('%s → read-only %s (%s)', (line, expected) => {
    expect(readOnly(line.trim())).toBe(expected);
  });

  it('a run-time word is never read-only', () => {
    expect(isReadOnlyCommand(['sort', undefined, 'a.txt'])).toBe(false);
    expect(isReadOnlyCommand(['find', '.', '-name', undefined])).toBe(false);
    expect(isReadOnlyCommand(['git', undefined, 'log'])).toBe(false);
    expect(isReadOnlyCommand(['date', '+%s', undefined])).toBe(false);
    expect(isReadOnlyCommand(['uniq', 'a.txt', undefined])).toBe(false);
    // Past its options, printf's run-time arguments are only printed.
    expect(isReadOnlyCommand(['printf', '%s', undefined])).toBe(true);
    expect(isReadOnlyCommand(['printf', undefined, '%s'])).toBe(false);
  });

  it('returns the files options read, however the option is spelt', () => {
    expect(optionFileValues(words('grep -f p1 --file=p2 --file p3 --exclude-from=p4 x a.txt'))).toEqual([
      'p1',
      'p2',
      'p3',
      'p4',
    ]);
    expect(optionFileValues(words('grep -nfp5 x'))).toEqual(['p5']);
    expect(optionFileValues(words('git ls-files -X p6'))).toEqual(['p6']);
    expect(optionFileValues(words('sort --random-sou p7 a.txt'))).toEqual(['p7']);
    expect(optionFileValues(words('npm test'))).toEqual([]);
  });

  it('issues point at the word that has them (an allow rule naming it allows it)', () => {
    expect(checkProgramFlags(words('sort -r -o x a.txt'))?.issues.map((i) => i.index)).toEqual([2]);
    expect(
      checkProgramFlags(words('git -P -c a=b log -p'))
        ?.issues.map((i) => i.index)
        .sort(),
    ).toEqual([3, 5]);
  });
});

/** Options of a table that are safe, as the words that spell them (value included). */
function safeUnits(table: OptionTable): string[][] {
  const units: string[][] = [];
  for (const [name, spec] of table.options) {
    if (spec.asks) continue;
    if (spec.value === 'required') units.push([name, spec.reads ? 'a.txt' : '3']);
    else units.push([name]);
  }
  return units;
}

/** A spelling no option of the table has, and no prefix of one (so no abbreviation resolves). */
function unknownOption(table: OptionTable): fc.Arbitrary<string> {
  const letters = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter(
    (c) => !table.options.has(`-${c}`),
  );
  const short = letters.length > 0 ? [fc.constantFrom(...letters).map((c) => `-${c}`)] : [];
  const long = fc
    .stringMatching(/^[a-z][a-z0-9-]{0,12}$/)
    .map((s) => `--${s}`)
    .filter((s) => ![...table.options.keys()].some((k) => k.startsWith(s)));
  return fc.oneof(long, ...short);
}

const operandFor = (table: OptionTable) => (table.operand?.test('+%s') ? '+%s' : 'a.txt');

const TABLES: [string, string[], OptionTable][] = [
  ...[...PROGRAM_FLAGS].map(
    ([program, table]) => [program, [program], table] as [string, string[], OptionTable],
  ),
  ...[...GIT_SUBCOMMAND_FLAGS].map(
    ([sub, table]) => [`git ${sub}`, ['git', sub], table] as [string, string[], OptionTable],
  ),
];

describe('issue #29 §4: property — an option not in the table is never read-only', () => {
  it.each(TABLES.map(([name, prefix, table]) => [name, prefix, table] as const))(
    '%s',
    (_name, prefix, table) => {
      const units = safeUnits(table);
      const unit = units.length > 0 ? fc.constantFrom(...units) : fc.constant<string[]>([]);
      fc.assert(
        fc.property(
          fc.array(unit, { maxLength: 4 }),
          unknownOption(table),
          fc.array(unit, { maxLength: 3 }),
          fc.boolean(),
          (before, unknown, after, operandFirst) => {
            // Before the first operand for programs that stop at one; anywhere for GNU's.
            const operand = table.permutes && operandFirst ? [operandFor(table)] : [];
            const argv = [...prefix, ...operand, ...before.flat(), unknown, ...after.flat()];
            expect(isReadOnlyCommand(argv), argv.join(' ')).toBe(false);
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it.each(
    TABLES.filter(([name]) => name !== 'git diff').map(
      ([name, prefix, table]) => [name, prefix, table] as const,
    ),
  )('%s: its safe options are read-only (so the property above is not vacuous)', (_name, prefix, table) => {
    const units = safeUnits(table);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...(units.length > 0 ? units : [[]])), { maxLength: 5 }),
        (chosen) => {
          const argv = [...prefix, ...chosen.flat(), operandFor(table)];
          expect(isReadOnlyCommand(argv), argv.join(' ')).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
