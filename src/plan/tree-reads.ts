import { statSync } from 'node:fs';
import path from 'node:path';
import { gitCommandView } from '../policy/git-global-options.js';

/**
 * Commands that go through a directory tree: what they read there (file contents, or only
 * names), and which directories. Without the OS sandbox nothing stops such a command at a denied
 * file (`.pem`, keys) or a vault inside the tree, so the planner makes it ask (check-command-args).
 * Where a program's options cannot be read with certainty (which take a value, which recurse), the
 * answer is the wider one: a wrong guess costs a question, never a read.
 */
export interface TreeRead {
  /** `contents`: every file's text (grep -r, rg); `names`: what is there (find, tree, ls -R, du). */
  reads: 'contents' | 'names';
  /** The directories it may go through, as written ('.' where it may default to the working directory). */
  operands: string[];
}

/** Words that are not options (after `--`, everything). */
function words(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

/** Every word as a possible operand, and '.' too unless each word names something that exists. */
function operandsOrHere(args: readonly string[], cwd: string): string[] {
  const all = words(args);
  const exists = (w: string) => {
    try {
      statSync(path.resolve(cwd, w));
      return true;
    } catch {
      return false;
    }
  };
  return all.length > 0 && all.every(exists) ? all : [...all, '.'];
}

/**
 * Whether a grep goes through directories: `-r`/`-R` in any cluster, a long option GNU takes by any
 * prefix (`--recursive`, `--dereference-recursive`), or a directories action other than read or
 * skip however it is spelt (`-d ACTION`, `-dACTION`, `--directories ACTION`, `--dir=ACTION`).
 */
function grepRecurses(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return false;
    if (/^-[^-]*[rR]/.test(arg)) return true;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '';
    if (name.length >= 2 && ('recursive'.startsWith(name) || 'dereference-recursive'.startsWith(name)))
      return true;
    let action: string | undefined;
    if (name.length >= 1 && 'directories'.startsWith(name)) action = eq < 0 ? args[i + 1] : arg.slice(eq + 1);
    else if (/^-[^-]*d/.test(arg)) {
      const rest = arg.slice(arg.indexOf('d') + 1);
      action = rest === '' ? args[i + 1] : rest;
    }
    if (action !== undefined && action !== 'read' && action !== 'skip') return true;
  }
  return false;
}

/** rg flags that take no value and only change how it matches or prints. */
const RG_PLAIN_FLAGS = /^-[inwxFlcosSvHNUaqI]+$/;

/**
 * Whether an rg reads only the files it names: nothing but plain short flags, a pattern, and
 * existing regular files. Anything else (a directory, no file at all, a long option, an option
 * taking a value) may go through a tree.
 */
function rgNamesFilesOnly(args: readonly string[], cwd: string): boolean {
  const [pattern, ...files] = args.filter((a) => !RG_PLAIN_FLAGS.test(a));
  if (pattern === undefined || pattern.startsWith('-') || files.length === 0) return false;
  return files.every((f) => {
    if (f.startsWith('-')) return false;
    try {
      return statSync(path.resolve(cwd, f)).isFile();
    } catch {
      return false;
    }
  });
}

/** The tree a command goes through, or undefined when it reads only what it names. */
export function treeRead(argv: readonly string[], cwd: string): TreeRead | undefined {
  const [program, ...args] = argv;
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
      return grepRecurses(args) ? { reads: 'contents', operands: operandsOrHere(args, cwd) } : undefined;
    case 'rg':
      if (args.includes('--files')) return { reads: 'names', operands: operandsOrHere(args, cwd) };
      return rgNamesFilesOnly(args, cwd)
        ? undefined
        : { reads: 'contents', operands: operandsOrHere(args, cwd) };
    case 'find': {
      // Its paths come before the first expression word (and after -H/-L/-P).
      const start = args.findIndex(
        (a) => (a.startsWith('-') && !/^-[HLP]$/.test(a)) || a === '(' || a === '!',
      );
      const operands = (start < 0 ? args : args.slice(0, start)).filter((a) => !/^-[HLP]$/.test(a));
      return { reads: 'names', operands: operands.length > 0 ? operands : ['.'] };
    }
    case 'tree':
    case 'du':
      return { reads: 'names', operands: operandsOrHere(args, cwd) };
    case 'ls':
      return args.some((a) => /^-[^-]*R/.test(a) || (a.length > 3 && '--recursive'.startsWith(a)))
        ? { reads: 'names', operands: operandsOrHere(args, cwd) }
        : undefined;
    case 'git': {
      // The subcommand as git runs it, after its global options (`git -P ls-files`).
      const subcommand = gitCommandView(argv)?.argv[1];
      return subcommand === 'ls-files' || subcommand === 'status'
        ? { reads: 'names', operands: ['.'] }
        : undefined;
    }
    default:
      return undefined;
  }
}
