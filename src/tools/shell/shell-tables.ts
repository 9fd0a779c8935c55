/**
 * The data the shell analyzer judges by, kept apart from the code so it can be reviewed like
 * configuration (docs/SHELL-POLICY.md). Everything here is an allowlist or a list of known
 * dangers; whatever is not listed is treated as unknown, and unknown asks.
 */

/**
 * Variables a command line may set (as `NAME=value cmd` or `NAME=value;`) without asking: they
 * change how programs format output, never which program runs or what it loads.
 */
const SAFE_TO_SET = new Set([
  'LANG',
  'LANGUAGE',
  'TZ',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'TERM',
  'COLUMNS',
  'LINES',
  'CI',
  'NODE_ENV',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONIOENCODING',
  'GIT_TERMINAL_PROMPT',
]);

/** Lower-case names that programs do read from the environment: never "just a shell variable". */
const LOWERCASE_READ_BY_PROGRAMS = new Set([
  'http_proxy',
  'https_proxy',
  'ftp_proxy',
  'all_proxy',
  'no_proxy',
]);
// Every scheme's proxy (curl reads [scheme]_proxy) is read by programs too.
const PROXY_VARIABLE = /_proxy$/;

/**
 * The variables that pick the character encoding bash reads a line in. In a multi-byte encoding
 * such as BIG5 a byte that ends a character can swallow the `\` after it, so a quote the policy's
 * parser sees as escaped closes the string for bash: only encodings that parse as UTF-8 or ASCII do.
 */
const ENCODING_VARIABLES = new Set(['LANG', 'LC_ALL', 'LC_CTYPE']);
const ASCII_COMPATIBLE_LOCALE = /^(?:C|POSIX|C\.UTF-?8|[A-Za-z]{2,3}(?:_[A-Za-z]{2})?\.(?:UTF-?8|utf-?8))$/;

/**
 * Why setting `name` to `value` (undefined: known only at run time) must ask, or undefined when
 * it may be set without asking: a safe name, and for the locale variables a value that keeps bash
 * reading lines as the policy does.
 */
export function assignmentRisk(
  name: string,
  value: string | undefined,
  toProgram = false,
): string | undefined {
  if (!safeToSet(name)) return `sets ${name}, which changes what programs run or read`;
  // Before a command (or after env), even a lower-case name lands in the program's environment, and
  // programs read lower-case settings there: npm_config_script_shell makes `npm run` start any
  // program (hostile review of issue #30). Only the known-safe names may be handed over unasked.
  if (toProgram && !SAFE_TO_SET.has(name) && !/^LC_[A-Z]+$/.test(name))
    return `gives ${name} to the program's environment, where programs read settings (npm reads npm_config_*); set it on its own line if it is a shell variable`;
  if (!ENCODING_VARIABLES.has(name)) return undefined;
  if (value !== undefined && (value === '' || ASCII_COMPATIBLE_LOCALE.test(value))) return undefined;
  return `sets ${name} to ${value === undefined ? 'a value known only at run time' : `"${value}"`}: only C, POSIX and UTF-8 locales are known to make bash read a line as the policy does`;
}

/**
 * Whether a command line may set this variable without asking: the known-safe list, `LC_*`, or a
 * lower-case shell variable (a loop variable, `f=…`) that programs do not read. The locale
 * variables also need a safe value (assignmentRisk).
 */
export function safeToSet(name: string): boolean {
  if (SAFE_TO_SET.has(name) || /^LC_[A-Z]+$/.test(name)) return true;
  return (
    /^[a-z_][a-z0-9_]*$/.test(name) &&
    !LOWERCASE_READ_BY_PROGRAMS.has(name) &&
    !PROXY_VARIABLE.test(name) &&
    name !== '_'
  );
}

/**
 * Builtins that evaluate text as code or arithmetic, change how the shell parses or runs what
 * follows, or assign through names (whose array subscripts bash evaluates). Naming one asks,
 * whatever the allow rules say.
 */
export const RISKY_BUILTINS: ReadonlyMap<string, string> = new Map([
  ['eval', 'eval runs text as a command'],
  ['source', 'source runs a script file'],
  ['.', 'source runs a script file'],
  ['let', 'let evaluates arithmetic (which can run commands through array subscripts)'],
  ['declare', 'declare sets variables and attributes'],
  ['typeset', 'typeset sets variables and attributes'],
  ['local', 'local sets variables'],
  ['export', 'export changes the environment of later commands'],
  ['readonly', 'readonly sets variables'],
  ['read', 'read assigns to names given on the command line'],
  ['mapfile', 'mapfile assigns to a name given on the command line'],
  ['readarray', 'readarray assigns to a name given on the command line'],
  ['printf -v', 'printf -v assigns to a name given on the command line'],
  ['trap', 'trap runs a command on a signal'],
  ['alias', 'alias changes what a command name runs'],
  ['unalias', 'unalias changes what a command name runs'],
  ['set', 'set changes shell options'],
  ['shopt', 'shopt changes shell options'],
  ['enable', 'enable loads or switches builtins'],
  ['hash', 'hash changes which file a command name runs'],
  ['unset', 'unset changes variables or functions'],
  ['cd', 'cd changes the directory later paths are relative to'],
  ['pushd', 'pushd changes the directory later paths are relative to'],
  ['popd', 'popd changes the directory later paths are relative to'],
  ['coproc', 'coproc runs a command in the background'],
  ['compgen', 'compgen can run commands (-C) and functions (-F)'],
  ['complete', 'complete registers commands to run'],
  ['fc', 'fc runs commands from the history'],
  ['getopts', 'getopts assigns to a name given on the command line'],
]);

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `test -v NAME` / `[ -v NAME ]` (and -R): bash evaluates an array subscript in NAME, and a
 * subscript can hold a command substitution (`a[$(cmd)]`), so only a plain literal name is inert.
 * An operator known only at run time could be -v too: then no argument may hold a subscript.
 */
function testRisk(name: string, args: readonly (string | undefined)[]): string | undefined {
  const last = name === '[' ? args.length - 1 : -1; // the closing `]` of `[`
  for (const [i, a] of args.entries()) {
    if ((a === '-v' || a === '-R') && i + 1 !== last) {
      const operand = args[i + 1];
      if (operand === undefined || !PLAIN_NAME.test(operand))
        return `${name} ${a} evaluates the array subscript of a name (which can run commands); only a plain name is inert`;
    }
  }
  const unknownOperator = args.some((a) => a === undefined);
  if (unknownOperator && args.some((a, i) => a !== undefined && i !== last && a.includes('[')))
    return `${name} with an operator known only at run time and a subscript (-v would evaluate it)`;
  return undefined;
}

/** `printf -v NAME` assigns; `test -v` evaluates subscripts; the other builtins are risky by name alone. */
export function riskyBuiltin(argv: readonly (string | undefined)[]): string | undefined {
  const name = argv[0];
  if (name === undefined) return undefined;
  if (name === 'test' || name === '[') return testRisk(name, argv.slice(1));
  if (name === 'printf') {
    if (argv.some((a) => a === undefined || /^-[^-]*v/.test(a))) return RISKY_BUILTINS.get('printf -v');
    // `%n` stores how many characters were printed in the variable its argument names (PATH, HOME).
    if (
      argv
        .slice(1)
        .some((a) => a !== undefined && /%[-+ #0'I]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[hlLqjzt]*n/.test(a))
    )
      return 'printf %n assigns to a name given on the command line';
    return undefined;
  }
  return RISKY_BUILTINS.get(name);
}

/** Environment variables removed before any command runs: they change what the shell itself does. */
export const SHELL_CONTROL_ENV =
  /^(?:BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS|GLOBIGNORE|CDPATH|PS4|PROMPT_COMMAND|IFS|BASH_XTRACEFD|EXECIGNORE|HISTFILE|INPUTRC)$/;
