/**
 * Commands that go through a whole directory tree: what they read there (file contents, or only
 * names), and which directories. Without the OS sandbox nothing stops such a command at a denied
 * file (`.env`, keys) or a vault inside the tree, so the planner makes it ask (check-command-args).
 * Over-approximating is safe: a word taken for a directory operand that is not one only costs a
 * question.
 */
export interface TreeRead {
  /** `contents`: every file's text (grep -r, rg); `names`: what is there (find, tree, ls -R, du). */
  reads: 'contents' | 'names';
  /** The operands as written ('.' when the program defaults to where it runs). */
  operands: string[];
}

/** Options whose value is the next word, per program (so the value is not taken for an operand). */
const GREP_VALUE_OPTIONS = /^-[a-zA-Z]*[efmABCdD]$/;
const RG_VALUE_OPTIONS = /^-[a-zA-Z]*[efmABCgtTjM]$/;

/** Non-option words, skipping the value of an option that takes the next word. */
function positionals(args: readonly string[], takesValue: RegExp): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      if (takesValue.test(arg)) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** Where a grep-like program searches: its operands after the pattern, or '.' when none. */
function searchOperands(args: readonly string[], takesValue: RegExp, patternFromOption: RegExp): string[] {
  const words = positionals(args, takesValue);
  const paths = args.some((a) => patternFromOption.test(a)) ? words : words.slice(1);
  return paths.length > 0 ? paths : ['.'];
}

/** A grep option that makes it recurse: -r/-R in a cluster, or a long option GNU takes by any prefix. */
function grepRecursive(arg: string, next: string | undefined): boolean {
  if (/^-[a-zA-Z]*[rR]/.test(arg)) return true;
  const long = (name: string) => arg.length > 3 && name.startsWith(arg.slice(2));
  if (long('recursive') || long('dereference-recursive')) return true;
  const eq = arg.indexOf('=');
  if (arg.startsWith('--d') && eq > 0 && 'directories'.startsWith(arg.slice(2, eq)))
    return arg.slice(eq + 1) === 'recurse';
  return arg === '-d' && next === 'recurse';
}
const PATTERN_OPTION = /^(?:-[a-zA-Z]*[ef]|--regexp(?:=|$)|--file(?:=|$))/;

/** The tree a command goes through, or undefined when it reads only what it names. */
export function treeRead(argv: readonly string[]): TreeRead | undefined {
  const [program, ...args] = argv;
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      const recursive = args.some((a, i) => grepRecursive(a, args[i + 1]));
      return recursive
        ? { reads: 'contents', operands: searchOperands(args, GREP_VALUE_OPTIONS, PATTERN_OPTION) }
        : undefined;
    }
    case 'rg': {
      // --files lists what it would search; otherwise every file under each operand is read.
      const reads = args.includes('--files') ? 'names' : 'contents';
      const operands =
        reads === 'names'
          ? positionals(args, RG_VALUE_OPTIONS)
          : searchOperands(args, RG_VALUE_OPTIONS, PATTERN_OPTION);
      return { reads, operands: operands.length > 0 ? operands : ['.'] };
    }
    case 'find': {
      // Its paths come before the first expression word.
      const start = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!' || a === ',');
      const operands = (start < 0 ? args : args.slice(0, start)).filter((a) => !/^-[HLP]$/.test(a));
      return { reads: 'names', operands: operands.length > 0 ? operands : ['.'] };
    }
    case 'tree':
    case 'du': {
      const operands = positionals(args, /^-[a-zA-Z]*[LPIdBt]$/);
      return { reads: 'names', operands: operands.length > 0 ? operands : ['.'] };
    }
    case 'ls': {
      if (!args.some((a) => /^-[a-zA-Z]*R/.test(a) || a === '--recursive')) return undefined;
      const operands = positionals(args, /^-[a-zA-Z]*[IwT]$/);
      return { reads: 'names', operands: operands.length > 0 ? operands : ['.'] };
    }
    case 'git': {
      const sub = args[0];
      if (sub === 'ls-files' || sub === 'status') return { reads: 'names', operands: ['.'] };
      return undefined;
    }
    default:
      return undefined;
  }
}
