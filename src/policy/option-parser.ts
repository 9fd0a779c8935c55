/**
 * Reads a program's argv the way its own option parser does (GNU getopt_long, git's
 * parse-options, or a stricter hand-written one), against a table of the options known to be safe
 * for it. Whatever the table does not know, or cannot tell for certain, becomes an issue: the
 * command then does not run without asking.
 */

export interface OptionSpec {
  /** `required`: attached (`-n5`, `--lines=5`) or the next word; `optional`: attached only. */
  value: 'none' | 'required' | 'optional';
  /** The value names a file the program reads: judged as a path; `-` (stdin) is never safe. */
  reads: boolean;
  /** Never runs without asking: it writes, runs a program, reads file names from a file, never ends. */
  asks: boolean;
}

export interface OptionTable {
  options: ReadonlyMap<string, OptionSpec>;
  /** Long options are taken by any unique prefix (GNU getopt_long, git parse-options). */
  abbreviations: boolean;
  /** Options may follow operands (GNU getopt permutes); otherwise the first operand ends them. */
  permutes: boolean;
  /** A value-taking letter takes the next word even inside a cluster (tree: `-Lo 2 out`). */
  valuesFromNextWord?: boolean;
  /** Words that are options by themselves (`head -5`, `grep -3`, `git log -3`). */
  numeric?: RegExp;
  /** Every operand must match (`date +FORMAT`: any other operand sets the clock). */
  operand?: RegExp;
  /** The most operands it takes without writing one of them (`uniq IN OUT` writes OUT). */
  maxOperands?: number;
}

/** Something that keeps a command from running without asking; `index` is its word in argv. */
export interface ArgIssue {
  index: number;
  what: string;
}

export interface ParsedArgs {
  issues: ArgIssue[];
  /** Values of options that name a file the program reads (`grep -f F`, `du -X F`). */
  reads: string[];
  operands: { index: number; word: string }[];
}

/**
 * A table from a line of option specs, read like a man page's synopsis: `-a` takes no value,
 * `-n=` takes one, `--color=?` takes one only attached, `-f=<` takes a file it reads, and a
 * trailing `!` marks an option that asks (`-o=!`, `-R!`).
 */
export function optionTable(specs: string, settings: Omit<OptionTable, 'options'>): OptionTable {
  const options = new Map<string, OptionSpec>();
  for (const token of specs.trim().split(/\s+/)) {
    const match = /^(--?[^=!]+)(=\?|=<|=)?(!)?$/.exec(token);
    if (!match) throw new Error(`bad option spec "${token}"`);
    const [, name, value, asks] = match as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    options.set(name, {
      value: value === '=?' ? 'optional' : value ? 'required' : 'none',
      reads: value === '=<',
      asks: asks !== undefined,
    });
  }
  return { ...settings, options };
}

const sameSpec = (a: OptionSpec, b: OptionSpec) =>
  a.value === b.value && a.reads === b.reads && a.asks === b.asks;

/**
 * A long option's name as the program resolves it: an exact name wins; else, with abbreviations,
 * a unique prefix (or several whose specs are the same: getopt_long takes those as one).
 */
function resolveLong(name: string, table: OptionTable): { name: string; spec: OptionSpec } | string {
  const exact = table.options.get(name);
  if (exact) return { name, spec: exact };
  if (!table.abbreviations) return `${name} is not an option known to be safe here`;
  const candidates = [...table.options].filter(([key]) => key.startsWith('--') && key.startsWith(name));
  const [first] = candidates;
  if (!first) return `${name} is not an option known to be safe here`;
  if (candidates.some(([, spec]) => !sameSpec(spec, first[1])))
    return `${name} is ambiguous (${candidates.map(([key]) => key).join(', ')})`;
  return { name: first[0], spec: first[1] };
}

/** Parses `argv` from index `start` on (after the program and any subcommand). */
export function parseOptions(
  argv: readonly (string | undefined)[],
  start: number,
  table: OptionTable,
): ParsedArgs {
  const issues: ArgIssue[] = [];
  const reads: string[] = [];
  const operands: { index: number; word: string }[] = [];
  let optionsEnded = false;

  // `attached`: the value was written inside a cluster (`-fFILE`), where the planner, which judges
  // every word and every `--opt=value` as a path, cannot tell it from the option letters.
  const take = (
    index: number,
    name: string,
    spec: OptionSpec,
    value: string | undefined,
    attached = false,
  ) => {
    if (spec.asks) issues.push({ index, what: `${name} is not safe to run without asking` });
    if (!spec.reads || value === undefined) return;
    reads.push(value);
    if (value === '-')
      issues.push({ index, what: `${name} - (standard input) reads what no word of the command names` });
    else if (attached || value.startsWith('-'))
      issues.push({
        index,
        what: `write the file ${name} reads as a word of its own (${name} FILE), so its path can be judged`,
      });
  };

  for (let i = start; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) {
      // Past the options it is an operand (whose path is the planner's business: `printf %s "$x"`);
      // before, it may be any option.
      if (optionsEnded && !table.operand) operands.push({ index: i, word: '' });
      else issues.push({ index: i, what: 'a word known only at run time' });
      continue;
    }
    if (optionsEnded || word === '-' || !word.startsWith('-')) {
      operands.push({ index: i, word });
      if (!table.permutes) optionsEnded = true;
      continue;
    }
    if (word === '--') {
      optionsEnded = true;
      continue;
    }
    if (table.numeric?.test(word)) continue;
    const at = i;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const resolved = resolveLong(eq < 0 ? word : word.slice(0, eq), table);
      if (typeof resolved === 'string') {
        issues.push({ index: i, what: resolved });
        continue;
      }
      const { name, spec } = resolved;
      let value: string | undefined;
      if (eq >= 0) {
        if (spec.value === 'none') issues.push({ index: i, what: `${name} takes no value` });
        value = word.slice(eq + 1);
      } else if (spec.value === 'required') {
        value = argv[++i];
        if (i >= argv.length) issues.push({ index: at, what: `${name} needs a value` });
        else if (value === undefined) issues.push({ index: i, what: 'a value known only at run time' });
      }
      take(at, name, spec, value);
      continue;
    }
    // A cluster of short options: `-aR` is `-a -R`; a letter taking a value takes the rest of the
    // word, or the next word (tree: always the next word).
    for (let k = 1; k < word.length; k++) {
      const name = `-${word[k]}`;
      const spec = table.options.get(name);
      if (!spec) {
        issues.push({ index: at, what: `${name} is not an option known to be safe here` });
        break; // what the rest of the word means is unknown
      }
      if (spec.value === 'none') {
        take(at, name, spec, undefined);
        continue;
      }
      const rest = word.slice(k + 1);
      let value: string | undefined;
      if (spec.value === 'optional') value = rest === '' ? undefined : rest;
      else if (rest !== '' && !table.valuesFromNextWord) {
        take(at, name, spec, rest, true);
        break;
      } else {
        value = argv[++i];
        if (i >= argv.length) issues.push({ index: at, what: `${name} needs a value` });
        else if (value === undefined) issues.push({ index: i, what: 'a value known only at run time' });
        if (table.valuesFromNextWord) {
          take(at, name, spec, value);
          continue;
        }
      }
      take(at, name, spec, value);
      break;
    }
  }
  const operandRule = table.operand;
  for (const { index, word } of operandRule ? operands : [])
    if (!operandRule?.test(word))
      issues.push({ index, what: `the operand "${word}" is not known to be safe` });
  const extra = table.maxOperands === undefined ? undefined : operands[table.maxOperands];
  if (extra) issues.push({ index: extra.index, what: `the operand "${extra.word}" would be written` });
  return { issues, reads, operands };
}
