import type { Node } from 'web-tree-sitter';
import type { CommandFacts, SimpleCommand } from '../../core/command-facts.js';
import { CannotRebuild, type Dialect, decodeAnsiC, quoteWord, Rebuilder } from './rebuild-command.js';
import { shellParser } from './shell-parser.js';
import { assignmentRisk, riskyBuiltin, safeToSet } from './shell-tables.js';
import { OTHER_SHELLS, SCRIPT_SHELLS, shellScript, unwrapOnce } from './shell-wrappers.js';

export type { CommandFacts, SimpleCommand } from '../../core/command-facts.js';

const STANDARD_DIRS = /^\/(?:usr\/(?:local\/)?)?s?bin\//;
const MAX_DEPTH = 8;

/**
 * Syntax allowlist (docs/SHELL-POLICY.md). A command line is judged only when every node of its
 * tree is of a kind listed here and known to be inert; any other node (a substitution anywhere,
 * arithmetic on non-literals, a parameter-expansion operator, a kind this file does not know, a
 * parse error) is a risk, and a risk never runs without asking. The shell that runs the command is
 * bash (`--noprofile --norc`), the grammar the parser reads.
 */
const CONTAINERS = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'do_group',
  'case_statement',
  'case_item',
]);

/** Operators of `test`/`[[ ]]` that evaluate their operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Control characters other than tab and newline: bash and the parser split words differently at them. */
const ODD_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** Program name for matching: `/usr/bin/git` is `git`; any other path stays a path. */
function programName(word: string): string {
  // Only a plain path: `/usr/bin/../../repo/ls` is the repository's ls, not /usr/bin's.
  const plain = !/(?:^|\/)\.\.?(?:\/|$)|\/\//.test(word);
  return plain && STANDARD_DIRS.test(word) ? word.replace(/^.*\//, '') : word;
}

/** A word's own text after removing escapes, for the checks on what bash would expand in it. */
function unescaped(text: string): string {
  return text.replace(/\\(.)/gs, '');
}

/** Unquoted text bash expands at run time: globs, braces with a list or range, a leading tilde. */
function expandsAtRunTime(text: string): boolean {
  const bare = unescaped(text);
  return /[*?[]/.test(bare) || /\{[^}]*(?:,|\.\.)[^}]*\}/.test(bare) || bare.startsWith('~');
}

class Analysis {
  readonly commands: SimpleCommand[] = [];
  readonly risks = new Set<string>();
  /** A nested shell's script word (by node id) and the script's own rebuilt form, quoted. */
  readonly replaced = new Map<number, string>();

  risk(reason: string): void {
    this.risks.add(reason);
  }

  /** A statement-level node: containers are walked, commands judged, anything unknown is a risk. */
  statement(node: Node, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.risk('nested too deeply to check');
      return;
    }
    if (node.isMissing) this.risk('the command is incomplete');
    switch (node.type) {
      case 'comment':
        return;
      case 'command':
        this.command(node, depth);
        return;
      case 'variable_assignment':
        this.assignment(node, depth);
        return;
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        this.redirect(node, depth);
        return;
      case 'redirected_statement': {
        // `cmd < file`: the redirections belong to the one command, so a file it reads is checked
        // like its arguments; around a compound statement they stand alone.
        const [body, ...redirects] = node.namedChildren.filter((c): c is Node => c !== null);
        if (body?.type === 'command') this.command(body, depth + 1, redirects);
        else {
          if (body) this.statement(body, depth + 1);
          for (const r of redirects) this.statement(r, depth + 1);
        }
        return;
      }
      case 'compound_statement':
        if (node.children[0]?.type === '((') this.arithmetic(node, depth);
        else this.children(node, depth);
        return;
      case 'for_statement':
        this.forStatement(node, depth);
        return;
      case 'test_command':
        this.test(node, depth);
        return;
      case 'ERROR':
        this.risk('part of the command could not be parsed');
        return;
      case 'function_definition':
        this.risk('defines a shell function');
        for (const child of node.namedChildren)
          if (child?.type === 'compound_statement') this.statement(child, depth + 1);
        return;
      case 'declaration_command':
      case 'unset_command':
        this.risk(`${node.children[0]?.text ?? 'declare'} sets variables and attributes`);
        return;
      case 'c_style_for_statement':
        this.risk('a C-style for loop evaluates arithmetic');
        return;
      case 'extglob_pattern':
      case 'regex':
        this.pattern(node);
        return;
      default:
        if (CONTAINERS.has(node.type)) this.children(node, depth);
        else if (this.isValue(node))
          this.value(node, depth); // a case subject or pattern, a for list
        else this.risk(`an unsupported shell construct (${node.type})`);
    }
  }

  children(node: Node, depth: number): void {
    for (const child of node.namedChildren) if (child) this.statement(child, depth + 1);
  }

  /** A pattern is matched, never run; bash still expands what is in it, which must be nothing. */
  pattern(node: Node): void {
    if (/[`$]/.test(node.text)) this.risk(`an expansion inside a pattern (${node.text})`);
  }

  isValue(node: Node): boolean {
    return VALUE_TYPES.has(node.type);
  }

  /**
   * A word-level node: its value when it is known before run time, undefined when bash computes
   * it (a variable, a glob); anything that would run something or that this file does not know
   * is a risk (and also undefined).
   */
  value(node: Node, depth: number): string | undefined {
    switch (node.type) {
      case 'word': {
        if (/[`]|\$\(/.test(node.text)) {
          this.risk('a substitution hidden in a word');
          return undefined;
        }
        if (expandsAtRunTime(node.text)) return undefined;
        return node.text.replace(/\\(.)/gs, '$1');
      }
      case 'number':
        return node.text;
      case 'raw_string':
        return node.text.slice(1, -1);
      case 'ansi_c_string':
        // No expansions inside; its escapes decoded as bash does (`$'touch'` is touch).
        try {
          return decodeAnsiC(node.text.slice(2, -1));
        } catch {
          return undefined;
        }
      case 'string':
      case 'translated_string': {
        let out: string | undefined = '';
        for (const child of node.namedChildren) {
          if (!child) continue;
          if (child.type === 'string_content') {
            // `\<newline>` inside double quotes is removed, pair and all, as bash does.
            if (out !== undefined)
              out += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
            if (/`/.test(child.text)) this.risk('a backquote substitution in a string');
          } else {
            this.value(child, depth + 1);
            out = undefined;
          }
        }
        return out;
      }
      case 'concatenation': {
        let out: string | undefined = '';
        let bare = '';
        for (const child of node.namedChildren) {
          if (!child) continue;
          const v = this.value(child, depth + 1);
          if (child.type === 'word') bare += child.text;
          out = out === undefined || v === undefined ? undefined : out + v;
        }
        return expandsAtRunTime(bare) ? undefined : out;
      }
      case 'simple_expansion':
        return undefined; // $NAME, $1, $@: a value, never code
      case 'expansion':
        this.expansion(node);
        return undefined;
      case 'arithmetic_expansion':
        // Inert on literals, but its value is not its text (`cat $((9))` opens `9`): a run-time value.
        this.arithmetic(node, depth);
        return undefined;
      case 'brace_expression':
        return undefined;
      case 'command_substitution':
        this.risk(node.text.startsWith('`') ? 'command substitution `…`' : 'command substitution $(…)');
        this.children(node, depth); // its commands still meet the deny rules
        return undefined;
      case 'process_substitution':
        this.risk('process substitution <(…) / >(…)');
        this.children(node, depth);
        return undefined;
      default:
        this.risk(`an unsupported shell construct (${node.type})`);
        return undefined;
    }
  }

  /** `${NAME}` only: any operator (default values, substrings, indirection, subscripts) asks. */
  expansion(node: Node): void {
    const parts = node.children.filter((c): c is Node => c !== null);
    const plain =
      parts.length === 3 &&
      parts[0]?.type === '${' &&
      (parts[1]?.type === 'variable_name' || parts[1]?.type === 'special_variable_name') &&
      parts[2]?.type === '}';
    if (!plain) this.risk(`a parameter expansion with an operator (${node.text})`);
  }

  /** Arithmetic is inert only on number literals: bash evaluates a variable's value as arithmetic too. */
  arithmetic(node: Node, depth: number): boolean {
    const literalOnly = (n: Node): boolean =>
      n.namedChildren.every(
        (c) =>
          c !== null &&
          (c.type === 'number' ||
            ((c.type === 'binary_expression' ||
              c.type === 'unary_expression' ||
              c.type === 'parenthesized_expression') &&
              literalOnly(c))),
      );
    if (!literalOnly(node)) {
      this.risk(`arithmetic on values known only at run time (${node.text})`);
      return false;
    }
    if (depth > MAX_DEPTH) this.risk('nested too deeply to check');
    return true;
  }

  /** `[ … ]` / `[[ … ]]`: string and file tests are inert; arithmetic comparisons need literals. */
  test(node: Node, depth: number): void {
    const visit = (n: Node) => {
      for (const child of n.namedChildren) {
        if (!child) continue;
        if (child.type === 'test_operator') continue;
        if (child.type === 'binary_expression') {
          const op = child.children.find((c) => c?.type === 'test_operator')?.text ?? '';
          if (
            ARITHMETIC_TESTS.has(op) &&
            !child.namedChildren.every((c) => c?.type === 'number' || c?.type === 'test_operator')
          ) {
            this.risk(`an arithmetic comparison on values known only at run time (${child.text})`);
          }
          visit(child);
        } else if (child.type === 'unary_expression') {
          const op = child.children.find((c) => c?.type === 'test_operator')?.text ?? '';
          const operand = child.namedChildren.find((c) => c && c.type !== 'test_operator');
          // -v / -R evaluate the array subscript of the name (a[$(cmd)] runs cmd): a plain name only.
          if (
            (op === '-v' || op === '-R') &&
            !/^[A-Za-z_][A-Za-z0-9_]*$/.test((operand && this.value(operand, depth + 1)) ?? '[')
          )
            this.risk(
              `[[ ${op} ]] on something other than a plain name (${child.text}) evaluates a subscript`,
            );
          visit(child);
        } else if (child.type === 'parenthesized_expression') {
          visit(child);
        } else if (child.type === 'regex' || child.type === 'extglob_pattern') {
          this.pattern(child);
        } else if (this.isValue(child)) {
          this.value(child, depth + 1);
        } else {
          this.risk(`an unsupported shell construct in a test (${child.type})`);
        }
      }
    };
    visit(node);
  }

  forStatement(node: Node, depth: number): void {
    const name = node.childForFieldName('variable')?.text ?? node.namedChildren[0]?.text ?? '';
    if (!safeToSet(name)) this.risk(`the loop sets ${name}, which changes what programs do`);
    for (const child of node.namedChildren) {
      if (!child || child.type === 'variable_name') continue;
      if (child.type === 'do_group') this.children(child, depth + 1);
      else if (this.isValue(child)) this.value(child, depth + 1);
      else this.statement(child, depth + 1);
    }
  }

  /** `NAME=value` (alone, or before a command): only names known to be safe, only inert values. */
  assignment(node: Node, depth: number): void {
    const target = node.namedChildren[0];
    if (target?.type !== 'variable_name') {
      this.risk(`an assignment to ${target?.text ?? 'an element'} (array subscripts are evaluated)`);
      return;
    }
    if (node.children.some((c) => c?.type === '+=')) this.risk(`appends to ${target.text}`);
    let assigned: string | undefined = '';
    for (const value of node.namedChildren.slice(1)) {
      if (!value) continue;
      if (value.type === 'array') {
        this.risk(`an array assignment to ${target.text}`);
        assigned = undefined;
      } else assigned = this.value(value, depth + 1);
    }
    // `NAME=value cmd`: the assignment is a child of the command, and reaches its environment.
    const why = assignmentRisk(target.text, assigned, node.parent?.type === 'command');
    if (why) this.risk(why);
  }

  /**
   * Reading is what the program could do anyway (the file is checked like an argument); output may
   * go to /dev/null or another descriptor; any other target is a file written.
   */
  redirect(node: Node, depth: number, command?: (string | undefined)[]): void {
    if (node.type === 'herestring_redirect') {
      for (const child of node.namedChildren) if (child) this.value(child, depth + 1);
      return;
    }
    if (node.type === 'heredoc_redirect') {
      const start = node.namedChildren.find((c) => c?.type === 'heredoc_start')?.text ?? '';
      const body = node.namedChildren.find((c) => c?.type === 'heredoc_body');
      // bash takes the body literally when any part of the delimiter is quoted (`E"O"F`, `EOF''`).
      const quoted = /['"\\]/.test(start);
      if (!quoted && body) {
        // The parser does not see backquotes in a heredoc body; bash runs them.
        if (/`/.test(body.text)) this.risk('a backquote substitution in a here-document');
        for (const child of body.namedChildren) {
          if (child && child.type !== 'heredoc_content') this.value(child, depth + 1);
        }
      }
      for (const child of node.namedChildren) {
        if (child && !['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(child.type)) {
          this.statement(child, depth + 1); // what follows `<<EOF` on its line (`| cmd`, `&& cmd`)
        }
      }
      return;
    }
    const op = node.children.find((c) => c && !c.isNamed)?.text ?? '';
    const targets = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'file_descriptor');
    if (targets.length !== 1) {
      this.risk(`a redirection the shells read differently (${node.text})`);
      return;
    }
    const target = targets[0] as Node;
    const value = this.value(target, depth + 1);
    if (op === '<') {
      if (command)
        command.push(value); // checked like a file argument
      else this.risk(`reads a file for a compound command (${node.text})`);
      return;
    }
    // Duplicating stdin, stdout or stderr (2>&1) or closing one; any other descriptor is one the
    // shell holds for itself (a session shell's own input is one of them) or an unknown.
    if ((op === '>&' || op === '<&') && value !== undefined && /^(?:[012]|-)$/.test(value)) return;
    if ((op === '>&' || op === '<&') && value !== undefined && /^\d+$/.test(value)) {
      this.risk(`uses descriptor ${value}, which the shell may hold for itself (${node.text})`);
      return;
    }
    if (
      (op === '>' || op === '>>' || op === '&>' || op === '&>>' || op === '>|' || op === '>&') &&
      value === '/dev/null'
    )
      return;
    this.risk(`redirects output to a file (${node.text})`);
  }

  command(node: Node, depth: number, outerRedirects: readonly Node[] = []): void {
    const words: (string | undefined)[] = [];
    const wordNodes: Node[] = [];
    const readFiles: (string | undefined)[] = [];
    for (const child of [...node.namedChildren, ...outerRedirects]) {
      if (!child) continue;
      if (child.type === 'variable_assignment') {
        this.assignment(child, depth + 1);
        continue;
      }
      if (
        child.type === 'file_redirect' ||
        child.type === 'herestring_redirect' ||
        child.type === 'heredoc_redirect'
      ) {
        this.redirect(child, depth + 1, readFiles);
        continue;
      }
      const target = child.type === 'command_name' ? child.namedChildren[0] : child;
      if (!target || !this.isValue(target)) {
        this.risk(`an unsupported shell construct (${target?.type ?? child.type})`);
        words.push(undefined);
        wordNodes.push(child);
        continue;
      }
      words.push(this.value(target, depth + 1));
      wordNodes.push(target);
    }
    if (words.length === 0) return;
    this.unwrap(words, readFiles, node.text, depth, wordNodes);
  }

  /**
   * Looks through wrappers to the command that really runs; a shell's `-c` script is parsed too,
   * and its word is rebuilt from that script's own rebuilt form (`wordNodes[i]` is word i's node).
   */
  unwrap(
    argv: (string | undefined)[],
    readFiles: (string | undefined)[],
    text: string,
    depth: number,
    wordNodes: readonly Node[],
  ): void {
    let words = argv;
    let offset = 0; // where `words` starts in argv
    let appended = false; // a wrapper (xargs) adds words only known at run time
    let runsFile: number | undefined; // a shell given a script file: where the file is in `words`
    for (let guard = 0; guard < 16 && words.length > 0; guard++) {
      const first = words[0];
      if (first === undefined) {
        this.risk('the program to run is only known at run time');
        this.commands.push({ argv: words, text });
        return;
      }
      const name = programName(first);
      const rest = words.slice(1);
      const builtin = riskyBuiltin([name, ...rest]);
      if (builtin) this.risk(builtin);
      const other = OTHER_SHELLS.has(name);
      // Another grammar: its script is still read as bash's (for the deny rules), and the line asks.
      if (other) this.risk(`${name} reads its script with another grammar than the one the policy parses`);
      const dialect = other ? 'posix' : SCRIPT_SHELLS.get(name);
      if (dialect) {
        const script = shellScript(name, rest, (reason) => this.risk(reason));
        if (script !== undefined && 'file' in script) {
          // `bash file.sh`: a program of its own, covered only by a rule that names the file.
          runsFile = 1 + script.file;
          break;
        }
        if (script === undefined) {
          this.commands.push({ argv: [name, ...rest], text });
          return;
        }
        if (appended) this.risk(`${name} -c gets more words at run time from the wrapper before it`);
        const inner = analyzeCommand(script.script, depth + 1, dialect);
        this.commands.push(...inner.commands);
        for (const r of inner.risks) this.risk(r);
        const node = wordNodes[offset + 1 + script.index];
        if (inner.rebuilt !== undefined && node) this.replaced.set(node.id, quoteWord(inner.rebuilt));
        return;
      }
      const inner = unwrapOnce(name, rest, (reason) => this.risk(reason));
      if (inner === undefined) break;
      // `exec` with redirections only rewires the shell's own descriptors, for the rest of its life.
      if (name === 'exec' && inner.at >= rest.length)
        this.risk("exec without a command changes the shell's own descriptors for what follows");
      if (inner.reads) readFiles.push(...inner.reads);
      const next = rest.slice(inner.at);
      if (next.length === 0) {
        // Nothing after the wrapper: an xargs before it gives it the command from its input
        // (`xargs env`, `xargs xargs`); xargs alone runs echo; any other runs as itself (`env`).
        if (appended) {
          this.risk(`${name} after xargs runs a command taken from the input at run time`);
          this.commands.push({ argv: [name, undefined], text });
          return;
        }
        if (!inner.appends) break;
        appended = true;
        words = ['echo'];
        offset += 1 + inner.at;
        continue;
      }
      if (inner.appends) appended = true;
      offset += 1 + inner.at;
      words = next;
    }
    if (words.length === 0) return;
    if (appended) words = [...words, undefined];
    const normalized = [programName(words[0] ?? ''), ...words.slice(1)];
    const command: SimpleCommand = {
      argv: words[0] === undefined ? words : normalized,
      text: words.map((w) => w ?? '…').join(' '),
    };
    if (readFiles.length > 0) command.inputs = readFiles;
    if (runsFile !== undefined) command.runsFile = runsFile;
    this.commands.push(command);
  }
}

const VALUE_TYPES = new Set([
  'word',
  'number',
  'raw_string',
  'ansi_c_string',
  'string',
  'translated_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'arithmetic_expansion',
  'brace_expression',
  'command_substitution',
  'process_substitution',
]);

/**
 * Parses a command line and reports every simple command in it, everything risky, and (when
 * nothing is) the line as toolgate rebuilt it from what it judged: what runs when nobody approved.
 */
export function analyzeCommand(command: string, depth = 0, dialect: Dialect = 'bash'): CommandFacts {
  const parser = shellParser();
  if (!parser) return { commands: [], risks: ['the shell parser is not loaded'] };
  const analysis = new Analysis();
  if (ODD_CONTROL.test(command)) analysis.risk('control characters that shells read differently');
  // `a\<newline>b` is one word to bash and two to the parser; after a blank both read it the same.
  if (/[^\s]\\\r?\n/.test(command)) analysis.risk('a line continuation inside a word');
  if (/\$\[/.test(command)) analysis.risk('old-style arithmetic $[…]');
  const tree = parser.parse(command);
  if (!tree) return { commands: [], risks: ['the command could not be parsed'] };
  try {
    if (tree.rootNode.hasError) analysis.risk('part of the command could not be parsed');
    analysis.statement(tree.rootNode, depth);
    const facts: CommandFacts = { commands: analysis.commands, risks: [...analysis.risks] };
    if (facts.risks.length > 0) return facts;
    try {
      facts.rebuilt = new Rebuilder(command, dialect, analysis.replaced).program(tree.rootNode);
    } catch (error) {
      if (!(error instanceof CannotRebuild)) throw error;
      facts.risks.push(
        `toolgate runs a command nobody approved only as it rebuilt it from what it judged, and it cannot rebuild ${error.message}`,
      );
    }
    return facts;
  } finally {
    tree.delete();
  }
}
