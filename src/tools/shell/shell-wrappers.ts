import { assignmentRisk } from './shell-tables.js';

/**
 * Wrappers the analyzer looks through to the command that really runs (`env`, `nice`, `timeout`,
 * `xargs`, `bash -c`, …). A wrapper is looked through only when every option it is given is known
 * (long options resolved by prefix, as getopt_long does) and the command it runs is fixed in the
 * text; an unknown option, or a command composed at run time (`xargs -I`, a shell's rc file, `-i`,
 * `-k`), is a risk: the line asks.
 */

/** An option a wrapper takes: whether a value follows it. */
interface OptionSpec {
  value: boolean;
  /** Why using it must ask (it changes what runs, or where). */
  risk?: string;
  /** Its value is a file the wrapper reads (judged like an argument). */
  reads?: true;
}

interface WrapperSpec {
  short: Record<string, OptionSpec>;
  long: Record<string, OptionSpec>;
  /** Words after the options that are the wrapper's own (timeout's duration). */
  operands?: number;
  /** A risk of the wrapper itself, whatever its options. */
  risk?: string;
}

const flag: OptionSpec = { value: false };
const valued: OptionSpec = { value: true };
const risky = (why: string, value = false): OptionSpec => ({ value, risk: why });

const WRAPPERS: Record<string, WrapperSpec> = {
  nice: { short: { n: valued }, long: { adjustment: valued } },
  ionice: {
    short: {
      c: valued,
      n: valued,
      t: flag,
      p: risky('ionice -p changes another process'),
      P: risky('ionice -P changes other processes'),
      u: risky('ionice -u changes other processes'),
    },
    long: { class: valued, classdata: valued, ignore: flag },
  },
  timeout: {
    short: { s: valued, k: valued, v: flag },
    long: { signal: valued, 'kill-after': valued, 'preserve-status': flag, foreground: flag, verbose: flag },
    operands: 1,
  },
  nohup: { short: {}, long: {} },
  time: { short: { p: flag }, long: {} },
  command: { short: { p: flag }, long: {} },
  builtin: { short: {}, long: {} },
  exec: {
    short: {
      // The name a program sees itself run as: `-bash` is a login shell that reads profiles; a
      // multi-call binary (busybox) picks another program by it.
      a: risky('exec -a sets the name the program sees itself run as (a login shell, another applet)', true),
      c: flag,
      l: risky('exec -l runs the program as a login shell, which reads profile files'),
    },
    long: {},
  },
  stdbuf: {
    short: { i: valued, o: valued, e: valued },
    long: { input: valued, output: valued, error: valued },
  },
  xargs: {
    short: {
      '0': flag,
      a: { value: true, reads: true },
      d: valued,
      E: valued,
      e: risky('xargs -e takes an optional value only attached to it', false),
      I: risky('xargs -I builds the command from its input at run time', true),
      i: risky('xargs -i builds the command from its input at run time'),
      L: valued,
      l: risky('xargs -l takes an optional value only attached to it'),
      n: valued,
      P: valued,
      p: risky('xargs -p asks on the terminal'),
      r: flag,
      s: valued,
      t: flag,
      x: flag,
    },
    long: {
      null: flag,
      'arg-file': { value: true, reads: true },
      delimiter: valued,
      eof: risky('xargs --eof takes an optional value'),
      replace: risky('xargs --replace builds the command from its input at run time'),
      'max-lines': risky('xargs --max-lines takes an optional value'),
      'max-args': valued,
      'max-procs': valued,
      'max-chars': valued,
      interactive: risky('xargs --interactive asks on the terminal'),
      'no-run-if-empty': flag,
      verbose: flag,
      exit: flag,
      'show-limits': flag,
      'open-tty': risky('xargs --open-tty gives the command the terminal'),
    },
  },
  sudo: { short: {}, long: {}, risk: 'sudo runs the command as another user' },
  doas: { short: {}, long: {}, risk: 'doas runs the command as another user' },
};

/** The long option `word` (without `--` and `=value`) names, resolved as getopt_long does: exact, or a unique prefix. */
function resolveLong(name: string, long: Record<string, OptionSpec>): [string, OptionSpec] | undefined {
  const exact = long[name];
  if (exact) return [name, exact];
  const matches = Object.keys(long).filter((k) => k.startsWith(name));
  if (matches.length !== 1) return undefined;
  const key = matches[0] as string;
  return [key, long[key] as OptionSpec];
}

export interface Unwrapped {
  /** Where the wrapped command's argv starts in the wrapper's arguments. */
  at: number;
  /** The wrapper adds words only known at run time after them (xargs). */
  appends?: true;
  /** Files the wrapper itself reads (`xargs -a FILE`): judged like the command's arguments. */
  reads?: (string | undefined)[];
}

/** One wrapper layer: where the wrapped command starts, or undefined when `name` is not a wrapper. */
export function unwrapOnce(
  name: string,
  rest: readonly (string | undefined)[],
  risk: (reason: string) => void,
): Unwrapped | undefined {
  if (name === 'env') return unwrapEnv(rest, risk);
  const spec = WRAPPERS[name];
  if (!spec) return undefined;
  if (spec.risk) risk(spec.risk);
  const reads: (string | undefined)[] = [];
  let i = 0;
  const stopped = false;
  while (i < rest.length && !stopped) {
    const a = rest[i];
    if (a === undefined) {
      risk(`${name} with an option known only at run time`);
      return { at: i };
    }
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    if (name === 'nice' && /^-\d+$/.test(a)) {
      i++;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const resolved = resolveLong(eq < 0 ? a.slice(2) : a.slice(2, eq), spec.long);
      if (!resolved) {
        risk(`${name} with an option it is not known to take safely (${a})`);
        return { at: rest.length };
      }
      const [, option] = resolved;
      if (option.risk) risk(option.risk);
      let value: string | undefined;
      if (option.value) {
        if (eq >= 0) value = a.slice(eq + 1);
        else {
          value = rest[i + 1];
          i++;
        }
      } else if (eq >= 0) {
        risk(`${name} ${a}: the option takes no value`);
      }
      if (option.reads) reads.push(value);
      i++;
      continue;
    }
    // A cluster of short options; one that takes a value takes the rest of the word or the next word.
    for (let j = 1; j < a.length; j++) {
      const option = spec.short[a[j] as string];
      if (!option) {
        risk(`${name} with an option it is not known to take safely (-${a[j]})`);
        return { at: rest.length };
      }
      if (option.risk) risk(option.risk);
      if (option.value) {
        const value = j + 1 < a.length ? a.slice(j + 1) : rest[++i];
        if (option.reads) reads.push(value);
        break;
      }
    }
    i++;
  }
  const at = i + (spec.operands ?? 0);
  for (let k = i; k < at; k++) {
    if (rest[k] === undefined) risk(`${name}'s own operand is known only at run time`);
  }
  const out: Unwrapped = { at: Math.min(at, rest.length) };
  if (reads.length > 0) out.reads = reads;
  if (name === 'xargs') out.appends = true;
  return out;
}

/** `env [-i] [-u NAME] [NAME=value]… command`: the names are judged like prefixes. */
function unwrapEnv(rest: readonly (string | undefined)[], risk: (reason: string) => void): Unwrapped {
  const long: Record<string, OptionSpec> = {
    'ignore-environment': flag,
    unset: valued,
    null: flag,
    chdir: risky(
      'env --chdir changes the directory the command runs in, which its paths were not judged against',
      true,
    ),
    'split-string': risky('env -S runs a command line from a string', true),
    'default-signal': risky('env --default-signal changes signal handling'),
    'ignore-signal': risky('env --ignore-signal changes signal handling'),
    'block-signal': risky('env --block-signal changes signal handling'),
    'list-signal-handling': flag,
    debug: flag,
  };
  const short: Record<string, OptionSpec> = {
    i: flag,
    u: valued,
    '0': flag,
    v: flag,
    C: risky(
      'env -C changes the directory the command runs in, which its paths were not judged against',
      true,
    ),
    S: risky('env -S runs a command line from a string', true),
  };
  let i = 0;
  while (i < rest.length) {
    const a = rest[i];
    if (a === undefined) {
      risk('env with arguments known only at run time');
      return { at: i };
    }
    if (a === '--') return { at: i + 1 };
    if (a === '-') {
      i++; // `env -` is `env -i`
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const resolved = resolveLong(eq < 0 ? a.slice(2) : a.slice(2, eq), long);
      if (!resolved) {
        risk(`env with an option it is not known to take safely (${a})`);
        return { at: rest.length };
      }
      const [, option] = resolved;
      if (option.risk) risk(option.risk);
      i += option.value && eq < 0 ? 2 : 1;
      continue;
    }
    if (a.startsWith('-')) {
      let j = 1;
      for (; j < a.length; j++) {
        const option = short[a[j] as string];
        if (!option) {
          risk(`env with an option it is not known to take safely (-${a[j]})`);
          return { at: rest.length };
        }
        if (option.risk) risk(option.risk);
        if (option.value) {
          if (j + 1 === a.length) i++;
          break;
        }
      }
      i++;
      continue;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a);
    if (!assignment) return { at: i };
    const varName = assignment[1] as string;
    const why = assignmentRisk(varName, a.slice(varName.length + 1), true);
    if (why) risk(why);
    i++;
  }
  return { at: i };
}

/** The shells whose `-c` script the analyzer reads, and the grammar its rebuilt form must keep to. */
export const SCRIPT_SHELLS: ReadonlyMap<string, 'bash' | 'posix'> = new Map([
  ['bash', 'bash'],
  ['sh', 'posix'],
  ['dash', 'posix'],
]);

/** Shells whose grammar is not bash's: their scripts are not read by the analyzer, so they ask. */
export const OTHER_SHELLS = new Set(['zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);

/**
 * bash/sh options that change nothing about which code runs (`set -o` names included). Not `a`
 * (allexport: every later assignment would reach programs' environments).
 */
const SAFE_SHELL_LETTERS = new Set([
  'c',
  'e',
  'u',
  'x',
  'v',
  'f',
  'E',
  'T',
  'h',
  'B',
  'C',
  'b',
  'm',
  'n',
  'p',
  't',
]);
const SAFE_SET_O = new Set([
  'errexit',
  'nounset',
  'pipefail',
  'xtrace',
  'verbose',
  'noglob',
  'noclobber',
  'errtrace',
  'functrace',
  'hashall',
  'braceexpand',
  'notify',
  'noexec',
  'privileged',
  'posix',
]);
const SAFE_SHELL_LONG = new Set(['--noprofile', '--norc', '--posix', '--noediting', '--restricted']);

/**
 * `bash -c 'script' [name [args…]]`: where the script is among the shell's arguments; where the
 * script file is when there is no `-c` (`bash file.sh`); undefined when it cannot be told. An
 * option that changes what runs (`--rcfile`, `-i`, `-l`, `-k`, `-s`, `-O`) is a risk; the script is
 * still returned, so its commands meet the deny rules.
 */
export function shellScript(
  name: string,
  args: readonly (string | undefined)[],
  risk: (reason: string) => void,
): { index: number; script: string } | { file: number } | undefined {
  let sawC = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) {
      risk(`${name} with an option known only at run time`);
      return undefined;
    }
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (!a.startsWith('-') && !a.startsWith('+')) break;
    if (a.startsWith('--')) {
      if (SAFE_SHELL_LONG.has(a)) continue;
      risk(
        `${name} ${a} changes what the shell runs or how (only ${[...SAFE_SHELL_LONG].join(', ')} are looked through)`,
      );
      if (a === '--rcfile' || a === '--init-file') i++;
      continue;
    }
    const letters = a.slice(1);
    for (let j = 0; j < letters.length; j++) {
      const letter = letters[j] as string;
      if (letter === 'c') sawC = true;
      else if (letter === 'o') {
        const option = args[++i];
        if (option === undefined || !SAFE_SET_O.has(option))
          risk(`${name} -o ${option ?? '…'} is not an option known to be safe`);
      } else if (letter === 'O') {
        i++;
        risk(`${name} -O changes the shell's options`);
      } else if (!SAFE_SHELL_LETTERS.has(letter)) {
        // The script is still read (its commands meet the deny rules), but the line asks.
        risk(
          `${name} -${letter} changes what the shell runs or reads (an rc file, a login profile, an interactive shell, stdin, or assignments anywhere)`,
        );
      }
    }
  }
  if (!sawC) {
    // Its input: commands the policy never read. A script file is a program of its own, which
    // only an allow rule naming that file covers (SimpleCommand.runsFile).
    if (i >= args.length) {
      risk(`${name} without -c runs commands from its input, known only at run time`);
      return undefined;
    }
    return { file: i };
  }
  const script = args[i];
  if (script === undefined) {
    risk(`${name} -c runs a script only known at run time`);
    return undefined;
  }
  return { index: i, script };
}
