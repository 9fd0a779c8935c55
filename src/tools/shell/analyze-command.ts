import type { Node } from 'web-tree-sitter';
import type { CommandFacts, SimpleCommand } from '../../core/command-facts.js';
import { shellParser } from './shell-parser.js';

export type { CommandFacts, SimpleCommand } from '../../core/command-facts.js';

const STANDARD_DIRS = /^\/(?:usr\/(?:local\/)?)?s?bin\//;
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const DANGEROUS_ENV =
  /^(?:LD_\w+|DYLD_\w+|PATH|BASH_ENV|ENV|PS4|PROMPT_COMMAND|IFS|SHELLOPTS|BASHOPTS|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF|GIT_CONFIG\w*|PAGER|GIT_PAGER|EDITOR|VISUAL|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|RUBYOPT)$/;
const MAX_DEPTH = 8;

/** Program name for matching: `/usr/bin/git` is `git`; any other path stays a path. */
function programName(word: string): string {
  return STANDARD_DIRS.test(word) ? word.replace(/^.*\//, '') : word;
}

/** The static value of a word node, or undefined when it depends on run time. */
function staticValue(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return node.text.replace(/\\(.)/gs, '$1').replace(/\\\n/g, '');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      let out = '';
      for (const child of node.namedChildren) {
        if (!child) continue;
        if (child.type !== 'string_content') return undefined;
        out += child.text.replace(/\\([$`"\\\n])/g, '$1');
      }
      return out;
    }
    case 'concatenation': {
      let out = '';
      for (const child of node.namedChildren) {
        const v = child ? staticValue(child) : undefined;
        if (v === undefined) return undefined;
        out += v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

class Analysis {
  readonly commands: SimpleCommand[] = [];
  readonly risks = new Set<string>();

  risk(reason: string): void {
    this.risks.add(reason);
  }

  /** Walks any node: commands are collected, risky constructs noted, nothing is skipped. */
  walk(node: Node, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.risk('nested too deeply to check');
      return;
    }
    switch (node.type) {
      case 'ERROR':
        this.risk('part of the command could not be parsed');
        break;
      case 'command':
        this.command(node, depth);
        return;
      case 'command_substitution':
        this.risk(node.text.startsWith('`') ? 'command substitution `…`' : 'command substitution $(…)');
        break;
      case 'process_substitution':
        this.risk('process substitution <(…) / >(…)');
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
      case 'herestring_redirect':
        break;
      case 'variable_assignment':
        this.assignment(node);
        break;
      case 'function_definition':
        this.risk('defines a shell function');
        break;
      case 'arithmetic_expansion':
        break;
      default:
        if (node.isMissing) this.risk('the command is incomplete');
    }
    for (const child of node.namedChildren) if (child) this.walk(child, depth + 1);
  }

  assignment(node: Node): void {
    const name = node.childForFieldName('name')?.text ?? node.namedChildren[0]?.text ?? '';
    if (DANGEROUS_ENV.test(name)) this.risk(`sets ${name}, which changes what programs run`);
  }

  redirect(node: Node): void {
    const op = node.children.find((c) => c && !c.isNamed)?.text ?? '';
    const target = node.namedChildren.find((c) => c && c.type !== 'file_descriptor');
    const value = target ? staticValue(target) : undefined;
    if (op.startsWith('<') && op !== '<>') return; // reading a file is what the program could do anyway
    if (
      op === '>&' ||
      op === '<&' ||
      op === '&>' ||
      op === '&>>' ||
      op === '>' ||
      op === '>>' ||
      op === '>|' ||
      op === '<>'
    ) {
      if (value === '/dev/null' || (op.endsWith('&') && value !== undefined && /^\d+$|^-$/.test(value)))
        return;
      this.risk(`redirects output to a file (${node.text})`);
    }
  }

  command(node: Node, depth: number): void {
    const words: (string | undefined)[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') {
        this.assignment(child);
        this.walk(child, depth + 1); // its value may hold a substitution
        continue;
      }
      if (
        child.type === 'file_redirect' ||
        child.type === 'herestring_redirect' ||
        child.type === 'heredoc_redirect'
      ) {
        this.walk(child, depth + 1);
        continue;
      }
      const target = child.type === 'command_name' ? (child.namedChildren[0] ?? child) : child;
      words.push(staticValue(target));
      this.walk(target, depth + 1); // substitutions inside words
    }
    if (words.length === 0) return;
    this.unwrap(words, node.text, depth);
  }

  /** Looks through wrappers to the command that really runs; a shell's `-c` script is parsed too. */
  unwrap(argv: (string | undefined)[], text: string, depth: number): void {
    let words = argv;
    for (let guard = 0; guard < 16 && words.length > 0; guard++) {
      const first = words[0];
      if (first === undefined) {
        this.risk('the program to run is only known at run time');
        this.commands.push({ argv: words, text });
        return;
      }
      const name = programName(first);
      const rest = words.slice(1);
      if (name === 'eval') {
        this.risk('eval runs text as a command');
      } else if (name === 'source' || name === '.') {
        this.risk('source runs a script file');
      }
      if (SHELLS.has(name)) {
        const script = shellScript(rest);
        if (script === null) break; // `bash file.sh`: a command of its own, matched as written
        if (script === undefined) {
          this.risk(`${name} -c runs a script only known at run time`);
          this.commands.push({ argv: [name, ...rest], text });
          return;
        }
        this.nested(script, depth);
        return;
      }
      const inner = unwrapOnce(name, rest, (reason) => this.risk(reason));
      if (inner === undefined) break;
      words = inner;
    }
    if (words.length === 0) return;
    const normalized = [programName(words[0] ?? ''), ...words.slice(1)];
    this.commands.push({
      argv: words[0] === undefined ? words : normalized,
      text: words.map((w) => w ?? '…').join(' '),
    });
  }

  nested(script: string, depth: number): void {
    const facts = analyzeCommand(script, depth + 1);
    this.commands.push(...facts.commands);
    for (const r of facts.risks) this.risk(r);
  }
}

/** For `bash -lc 'script'` and friends: the script, null when there is no -c, undefined when not static. */
function shellScript(args: (string | undefined)[]): string | null | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) return undefined;
    if (a === '--' || (!a.startsWith('-') && !a.startsWith('+'))) return null;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) {
      // Flags after -c may still come before the script (`bash -c -e 'x'` is unusual; take the next non-flag).
      for (let j = i + 1; j < args.length; j++) {
        const s = args[j];
        if (s === undefined) return undefined;
        if (s.startsWith('-') && s !== '-') continue;
        return s;
      }
      return undefined;
    }
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O' || a === '--rcfile' || a === '--init-file') i++;
  }
  return null;
}

/** One wrapper layer: the wrapped argv, or undefined when `name` is not a wrapper. */
function unwrapOnce(
  name: string,
  rest: (string | undefined)[],
  risk: (reason: string) => void,
): (string | undefined)[] | undefined {
  const skipOptions = (withValue: Set<string>, stopAtFirstPositional = true): (string | undefined)[] => {
    let i = 0;
    while (i < rest.length) {
      const a = rest[i];
      if (a === undefined) return rest.slice(i);
      if (a === '--') return rest.slice(i + 1);
      if (!a.startsWith('-') || a === '-') break;
      i += withValue.has(a) ? 2 : 1;
      if (!stopAtFirstPositional) continue;
    }
    return rest.slice(i);
  };
  switch (name) {
    case 'sudo':
    case 'doas':
      risk(`${name} runs the command as another user`);
      return skipOptions(
        new Set(['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '-D', '--user', '--group']),
      );
    case 'env': {
      let i = 0;
      while (i < rest.length) {
        const a = rest[i];
        if (a === undefined) break;
        if (a === '-S' || a.startsWith('--split-string')) {
          risk('env -S runs a command line from a string');
          return undefined;
        }
        if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') i += 2;
        else if (a === '--') {
          i++;
          break;
        } else if (a.startsWith('-')) i++;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          const varName = a.slice(0, a.indexOf('='));
          if (DANGEROUS_ENV.test(varName)) risk(`sets ${varName}, which changes what programs run`);
          i++;
        } else break;
      }
      return rest.slice(i);
    }
    case 'nice':
      return skipOptions(new Set(['-n', '--adjustment']));
    case 'ionice':
      return skipOptions(new Set(['-c', '-n', '-p', '-P', '-u']));
    case 'timeout': {
      const after = skipOptions(new Set(['-s', '--signal', '-k', '--kill-after']));
      return after.slice(1); // the duration
    }
    case 'nohup':
    case 'time':
    case 'command':
    case 'builtin':
      return skipOptions(new Set());
    case 'exec':
      return skipOptions(new Set(['-a']));
    case 'stdbuf':
      return skipOptions(new Set(['-i', '-o', '-e']));
    case 'xargs': {
      const inner = skipOptions(
        new Set([
          '-I',
          '-i',
          '-L',
          '-l',
          '-n',
          '-P',
          '-d',
          '-E',
          '-e',
          '-s',
          '-a',
          '--arg-file',
          '--delimiter',
          '--max-args',
          '--max-procs',
          '--replace',
        ]),
      );
      // xargs adds words only known at run time.
      return inner.length === 0 ? ['echo', undefined] : [...inner, undefined];
    }
    default:
      return undefined;
  }
}

/** Parses a command line and reports every simple command in it and everything risky. */
export function analyzeCommand(command: string, depth = 0): CommandFacts {
  const parser = shellParser();
  if (!parser) return { commands: [], risks: ['the shell parser is not loaded'] };
  const tree = parser.parse(command);
  if (!tree) return { commands: [], risks: ['the command could not be parsed'] };
  try {
    const analysis = new Analysis();
    if (tree.rootNode.hasError) analysis.risk('part of the command could not be parsed');
    if (/\$\[/.test(command)) analysis.risk('old-style arithmetic $[…]');
    analysis.walk(tree.rootNode, depth);
    return { commands: analysis.commands, risks: [...analysis.risks] };
  } finally {
    tree.delete();
  }
}
