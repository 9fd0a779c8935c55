import type { Node } from 'web-tree-sitter';

/**
 * The command line as toolgate rebuilds it from the tree the policy judged (issue #29, docs/SHELL-POLICY.md
 * "What runs is what was judged"). A command nobody approved runs as this text, never as the model's:
 * every word is one single-quoted literal (or `"${NAME}"` where the policy let a variable through),
 * operators and keywords come from a fixed set, here-document bodies become here-strings of the
 * body the parser saw, and a nested `bash -c` script is replaced by its own rebuilt form. bash
 * therefore reads exactly one meaning, the parser's: no difference between the two grammars
 * (here-document delimiters, `{var}>` redirections, …) can make bash run something that was not
 * judged. Whatever cannot be rebuilt that way throws: the line then asks.
 */
export class CannotRebuild extends Error {}

/** Part of a word: literal text, or canonical text kept as it is (a variable, a rebuilt script). */
type Piece = { literal: string; text?: undefined } | { literal?: undefined; text: string };

/** The grammar the rebuilt text must keep to: bash, or POSIX sh (dash) for `sh -c` scripts. */
export type Dialect = 'bash' | 'posix';

/** One word as a single-quoted shell literal (NUL cannot be passed to a program at all). */
export function quoteWord(value: string): string {
  if (value.includes('\0')) throw new CannotRebuild('a NUL character, which no program can receive');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Tokens that separate or join statements, kept as they are. */
const JOINERS = new Set([';', '&', '&&', '||', '|', '|&', '\n']);
/** Keywords that need a separator before them when a statement precedes. */
const CLOSERS = new Set(['then', 'do', 'done', 'fi', 'elif', 'else', 'esac', '}', ')']);
/** Keywords after which a statement follows directly. */
const OPENERS = new Set(['if', 'then', 'elif', 'else', 'while', 'until', 'do', '!', '{', '(']);
const CLAUSES = new Set(['elif_clause', 'else_clause', 'do_group']);
const BASH_ONLY_TOKENS = new Set(['|&', '[[', ']]', '((', '))', '&>', '&>>', '<<<']);
const REDIRECT_OPS = new Set(['<', '>', '>>', '&>', '&>>', '>&', '<&', '>|']);
const TEST_OPERATOR = /^(?:-[a-zA-Z]{1,2}|==?|!=|=~|<|>|!)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SPECIAL = /^(?:[0-9]|[@*#?$!_-])$/;
/** What a glob pattern may hold to be kept as it is (a case pattern, `[[ x == *.ts ]]`). */
const SAFE_PATTERN = /^[A-Za-z0-9_.*?+@%,:=~^\-/]+$/;
/** Arithmetic on literals, as the policy allowed it: decimal and 0x numbers, operators, parentheses. */
function literalArithmetic(text: string): boolean {
  return /^[+\-*/%()<>=!&|^~?:\s]*$/.test(text.replace(/\b0[xX][0-9a-fA-F]+\b|\b\d+\b/g, ' '));
}

/** Unquoted text bash expands at run time: globs, braces with a list or range, a leading tilde. */
function expandsAtRunTime(text: string): boolean {
  const bare = text.replace(/\\(.)/gs, '');
  return /[*?[]/.test(bare) || /\{[^}]*(?:,|\.\.)[^}]*\}/.test(bare) || bare.startsWith('~');
}

/** `$'…'` as bash decodes it. */
export function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  };
  return body.replace(
    /\\(?:([abeEfnrtv\\'"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(.)|(.))/gs,
    (whole, s, oct, hex, u4, u8, ctl, other) => {
      if (s) return simple[s] as string;
      if (oct) return String.fromCharCode(Number.parseInt(oct, 8) & 0xff);
      if (hex) return String.fromCharCode(Number.parseInt(hex, 16));
      if (u4 || u8) {
        const code = Number.parseInt(u4 ?? u8, 16);
        if (code > 0x10ffff) throw new CannotRebuild(`an escape outside Unicode (${whole})`);
        return String.fromCodePoint(code);
      }
      if (ctl) throw new CannotRebuild(`a control-character escape (${whole})`);
      return `\\${other}`;
    },
  );
}

export class Rebuilder {
  readonly #source: string;
  readonly #dialect: Dialect;
  /** Words replaced by another text (a nested `bash -c` script by its own rebuilt form), by node id. */
  readonly #replaced: ReadonlyMap<number, string>;
  /** Inside `[[ … ]]`, where the right side of `==` is a pattern (in `[ … ]` it is a word, globbed). */
  #doubleBracket = false;

  constructor(source: string, dialect: Dialect, replaced: ReadonlyMap<number, string>) {
    this.#source = source;
    this.#dialect = dialect;
    this.#replaced = replaced;
  }

  #token(text: string): string {
    if (this.#dialect === 'posix' && BASH_ONLY_TOKENS.has(text))
      throw new CannotRebuild(`${text}, which sh does not have`);
    return text;
  }

  /** The whole program. */
  program(root: Node): string {
    return this.#sequence(root.children);
  }

  /** Statements and the tokens between them, a separator added where a newline stood. */
  #sequence(children: readonly (Node | null)[]): string {
    const out: string[] = [];
    let afterStatement = false;
    for (const child of children) {
      if (!child) continue;
      if (child.type === 'comment') continue;
      if (!child.isNamed) {
        const t = child.type;
        if (JOINERS.has(t) || t === ';;') {
          out.push(this.#token(t === '\n' ? ';' : t));
          afterStatement = false;
        } else if (CLOSERS.has(t) || OPENERS.has(t)) {
          if (CLOSERS.has(t) && afterStatement) out.push(';');
          out.push(t);
          afterStatement = false;
        } else throw new CannotRebuild(`the token ${JSON.stringify(t)}`);
        continue;
      }
      if (afterStatement) out.push(';'); // two statements a newline apart, or a clause after one
      out.push(this.statement(child));
      afterStatement = !CLAUSES.has(child.type);
    }
    return out.join(' ');
  }

  statement(node: Node): string {
    switch (node.type) {
      case 'program':
      case 'list':
      case 'pipeline':
      case 'negated_command':
      case 'subshell':
      case 'if_statement':
      case 'elif_clause':
      case 'else_clause':
      case 'while_statement':
      case 'do_group':
        return this.#sequence(node.children);
      case 'compound_statement': {
        const first = node.children[0]?.type;
        if (first === '{') return this.#sequence(node.children);
        if (first === '((') return `${this.#token('((')} ${this.#arithmetic(node)} ))`;
        throw new CannotRebuild(`a compound statement starting with ${first}`);
      }
      case 'command':
        return this.#command(node);
      case 'variable_assignments':
        return node.namedChildren.map((c) => this.#assignment(c as Node)).join(' ');
      case 'variable_assignment':
        return this.#assignment(node);
      case 'redirected_statement':
        return this.#redirected(node);
      case 'test_command':
        return this.#test(node);
      case 'for_statement':
        return this.#for(node);
      case 'case_statement':
        return this.#case(node);
      default:
        throw new CannotRebuild(`a ${node.type}`);
    }
  }

  #command(node: Node): string {
    const out: string[] = [];
    for (const child of node.children) {
      if (!child) continue;
      if (!child.isNamed) throw new CannotRebuild(`the token ${JSON.stringify(child.type)} in a command`);
      if (child.type === 'variable_assignment') out.push(this.#assignment(child));
      else if (isRedirect(child.type)) out.push(this.#redirect(child));
      // bash's `time` keyword (it times the pipeline): quoted it would be /usr/bin/time instead.
      else if (child.type === 'command_name' && child.text === 'time') out.push('time');
      else if (child.type === 'command_name') out.push(this.#word(child.namedChildren[0] ?? child));
      else out.push(this.#word(child));
    }
    return out.join(' ');
  }

  #assignment(node: Node): string {
    const name = node.namedChildren[0];
    if (name?.type !== 'variable_name' || !NAME.test(name.text))
      throw new CannotRebuild('an assignment to something other than a plain name');
    if (node.children.some((c) => c?.type === '+=')) throw new CannotRebuild('an append assignment');
    const value = node.namedChildren[1];
    return `${name.text}=${value ? this.#word(value) : ''}`;
  }

  #redirected(node: Node): string {
    const out: string[] = [];
    for (const child of node.children) {
      if (!child) continue;
      if (!child.isNamed) throw new CannotRebuild(`the token ${JSON.stringify(child.type)} in a redirection`);
      out.push(isRedirect(child.type) ? this.#redirect(child) : this.statement(child));
    }
    return out.join(' ');
  }

  #redirect(node: Node): string {
    if (node.type === 'herestring_redirect') {
      const word = node.namedChildren.find((c) => c && c.type !== 'file_descriptor');
      if (!word) throw new CannotRebuild('a here-string without a word');
      return `${this.#fd(node)}${this.#token('<<<')} ${this.#word(word)}`;
    }
    if (node.type === 'heredoc_redirect') return this.#heredoc(node);
    const op = node.children.find((c) => c && !c.isNamed)?.type ?? '';
    if (!REDIRECT_OPS.has(op)) throw new CannotRebuild(`the redirection ${op}`);
    const targets = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'file_descriptor');
    if (targets.length !== 1) throw new CannotRebuild('a redirection with more than one target');
    const target = targets[0] as Node;
    if ((op === '>&' || op === '<&') && /^(?:\d+|-)$/.test(target.text))
      return `${this.#fd(node)}${op}${target.text}`;
    return `${this.#fd(node)}${this.#token(op)} ${this.#word(target)}`;
  }

  #fd(node: Node): string {
    const fd = node.namedChildren.find((c) => c?.type === 'file_descriptor');
    if (!fd) return '';
    if (!/^\d$/.test(fd.text)) throw new CannotRebuild(`the descriptor ${fd.text}`);
    return fd.text;
  }

  /**
   * A here-document becomes a here-string of the body the parser saw (bash appends the final
   * newline itself), or an empty stdin; what followed `<<EOF` on its line follows it here too.
   */
  #heredoc(node: Node): string {
    const start = node.namedChildren.find((c) => c?.type === 'heredoc_start');
    const body = node.namedChildren.find((c) => c?.type === 'heredoc_body');
    const end = node.namedChildren.find((c) => c?.type === 'heredoc_end');
    if (!start || !end) throw new CannotRebuild('a here-document without its end');
    const dash = node.children.some((c) => c?.type === '<<-');
    const quoted = /['"\\]/.test(start.text);
    const rest: string[] = [];
    for (const child of node.children) {
      if (!child || ['<<', '<<-'].includes(child.type)) continue;
      if (['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(child.type)) continue;
      if (child.type === 'heredoc_redirect') throw new CannotRebuild('two here-documents on one line');
      if (!child.isNamed) {
        if (!JOINERS.has(child.type)) throw new CannotRebuild(`the token ${JSON.stringify(child.type)}`);
        rest.push(this.#token(child.type));
      } else if (isRedirect(child.type)) rest.push(this.#redirect(child));
      else if (child.type === 'pipeline' || child.type === 'list') rest.push(this.#sequence(child.children));
      else rest.push(this.statement(child));
    }
    const fd = this.#fd(node);
    let input: string;
    const from = this.#lineStart(body ? body.startIndex : end.startIndex);
    // The body starts on a line after the one that holds `<<` and what follows it.
    if (
      from <= start.endIndex ||
      (rest.length > 0 &&
        from <
          node.children.reduce(
            (m, c) => (c && !['heredoc_body', 'heredoc_end'].includes(c.type) ? Math.max(m, c.endIndex) : m),
            0,
          ))
    )
      throw new CannotRebuild('a here-document whose body the parser placed on the line of its start');
    const raw = this.#source.slice(from, this.#lineStart(end.startIndex));
    const indent = this.#source.slice(this.#lineStart(end.startIndex), end.startIndex);
    if (indent !== '' && !(dash && /^\t+$/.test(indent)))
      throw new CannotRebuild('a here-document whose end is not at the start of a line');
    if (raw === '') input = `${fd}< /dev/null`;
    else {
      if (!raw.endsWith('\n')) throw new CannotRebuild('a here-document body without a final newline');
      let lines = raw.slice(0, -1).split('\n');
      if (dash) lines = lines.map((l) => l.replace(/^\t+/, ''));
      const text = lines.join('\n');
      let word: string;
      if (quoted || !body) word = quoteWord(text);
      else if (dash) {
        if (body.namedChildren.some((c) => c && c.type !== 'heredoc_content'))
          throw new CannotRebuild('an indented here-document with expansions');
        word = heredocLiteral(text);
      } else word = this.#unquotedBody(body, from, text.length);
      input = `${fd}${this.#token('<<<')} ${word}`;
    }
    return [input, ...rest].join(' ');
  }

  /** An unquoted body: `\$`, `` \` ``, `\\` and `\<newline>` undone, `$NAME` kept as a variable. */
  #unquotedBody(body: Node, from: number, length: number): string {
    const parts: string[] = [];
    let at = from;
    const literal = (upTo: number) => {
      const text = this.#source.slice(at, Math.min(upTo, from + length));
      if (text !== '') parts.push(heredocLiteral(text));
    };
    for (const child of body.namedChildren) {
      if (!child || child.type === 'heredoc_content') continue;
      literal(child.startIndex);
      parts.push(this.#word(child));
      at = child.endIndex;
    }
    literal(from + length);
    return parts.length === 0 ? "''" : parts.join('');
  }

  #lineStart(index: number): number {
    return this.#source.lastIndexOf('\n', index - 1) + 1;
  }

  #test(node: Node): string {
    const open = node.children[0]?.type;
    const close = node.children[node.children.length - 1]?.type;
    if (!((open === '[[' && close === ']]') || (open === '[' && close === ']')))
      throw new CannotRebuild('a test without its brackets');
    this.#doubleBracket = open === '[[';
    const inner = node.children.slice(1, -1).map((c) => this.#testPart(c as Node, false));
    return `${this.#token(open)} ${inner.join(' ')} ${this.#token(close)}`;
  }

  #testPart(node: Node, pattern: boolean): string {
    if (!node.isNamed) {
      if (!['&&', '||', '!', '(', ')', '==', '=', '!=', '<', '>', '=~'].includes(node.type))
        throw new CannotRebuild(`the token ${JSON.stringify(node.type)} in a test`);
      // In `[ … ]` bash reads `<`, `>`, `&&`, `(` as its own syntax (a redirection, a new command):
      // there every operator is passed to the test builtin as the quoted word it is to the parser.
      return this.#doubleBracket ? node.type : quoteWord(node.type);
    }
    switch (node.type) {
      case 'test_operator':
        if (!TEST_OPERATOR.test(node.text)) throw new CannotRebuild(`the test operator ${node.text}`);
        return this.#doubleBracket ? node.text : quoteWord(node.text);
      case 'unary_expression':
      case 'parenthesized_expression':
        return node.children.map((c) => this.#testPart(c as Node, false)).join(' ');
      case 'binary_expression': {
        const op = node.children.find((c) => c && (!c.isNamed || c.type === 'test_operator'))?.text;
        if (op === '=~') throw new CannotRebuild('a regular expression match');
        const matches = this.#doubleBracket && (op === '==' || op === '=' || op === '!=');
        let seenOp = false;
        return node.children
          .map((c) => {
            const part = this.#testPart(c as Node, matches && seenOp);
            if (c && (!c.isNamed || c.type === 'test_operator') && c.text === op) seenOp = true;
            return part;
          })
          .join(' ');
      }
      case 'extglob_pattern':
      case 'regex':
        return this.#pattern(node);
      default:
        if (pattern && node.type === 'word' && expandsAtRunTime(node.text)) return this.#pattern(node);
        return this.#word(node);
    }
  }

  /** A glob pattern kept as written: only when it holds nothing but plain glob characters. */
  #pattern(node: Node): string {
    if (node.type === 'string' || node.type === 'raw_string') return this.#word(node);
    if (!SAFE_PATTERN.test(node.text)) throw new CannotRebuild(`the pattern ${node.text}`);
    return node.text;
  }

  #for(node: Node): string {
    const name = node.childForFieldName('variable') ?? node.namedChildren[0];
    if (!name || !NAME.test(name.text)) throw new CannotRebuild('a loop over something other than a name');
    const words: string[] = [];
    let hasIn = false;
    let body: Node | undefined;
    for (const child of node.children) {
      if (!child || child === name || child.id === name.id) continue;
      if (child.type === 'in') hasIn = true;
      else if (child.type === 'do_group') body = child;
      else if (child.type === 'for' || child.type === ';' || child.type === '\n') continue;
      else if (child.isNamed && child.type !== 'comment') words.push(this.#word(child));
      else if (child.type !== 'comment')
        throw new CannotRebuild(`the token ${JSON.stringify(child.type)} in a loop`);
    }
    if (!body) throw new CannotRebuild('a loop without a body');
    return `for ${name.text}${hasIn ? ` in ${words.join(' ')}` : ''}; ${this.statement(body)}`;
  }

  #case(node: Node): string {
    const subject = node.childForFieldName('value') ?? node.namedChildren[0];
    if (!subject) throw new CannotRebuild('a case without a subject');
    const items: string[] = [];
    for (const child of node.namedChildren) {
      if (!child || child.id === subject.id || child.type === 'comment') continue;
      if (child.type !== 'case_item') throw new CannotRebuild(`a ${child.type} in a case`);
      items.push(this.#caseItem(child));
    }
    return `case ${this.#word(subject)} in ${items.join(' ')} esac`;
  }

  #caseItem(node: Node): string {
    const patterns: string[] = [];
    let i = 0;
    const children = node.children.filter((c): c is Node => c !== null);
    if (children[0]?.type === '(') i = 1;
    for (; i < children.length; i++) {
      const c = children[i] as Node;
      if (c.type === ')') break;
      if (c.type === '|') continue;
      patterns.push(this.#casePattern(c));
    }
    const rest = children.slice(i + 1);
    const last = rest[rest.length - 1]?.type;
    const terminator = last === ';;' || last === ';&' || last === ';;&' ? (rest.pop() as Node).type : ';;';
    if (terminator !== ';;') this.#token('|&'); // `;&` and `;;&` are bash's: checked like its tokens
    const body = rest.length > 0 ? this.#sequence(rest) : '';
    return `${patterns.join(' | ')} ) ${body}${body ? ' ' : ''}${terminator}`;
  }

  #casePattern(node: Node): string {
    if (node.type === 'concatenation')
      return node.namedChildren.map((c) => this.#casePattern(c as Node)).join('');
    if (node.type === 'word' || node.type === 'extglob_pattern') {
      if (!expandsAtRunTime(node.text) && !/\\/.test(node.text)) return quoteWord(node.text);
      return this.#pattern(node);
    }
    return this.#word(node);
  }

  #arithmetic(node: Node): string {
    const inner = node.children
      .slice(1, -1)
      .map((c) => (c as Node).text)
      .join(' ');
    if (!literalArithmetic(inner)) throw new CannotRebuild(`the arithmetic ${inner}`);
    return inner;
  }

  /** One word-level node as canonical text: literals single-quoted, variables as "${NAME}". */
  #word(node: Node): string {
    const out: string[] = [];
    let literal: string | undefined;
    for (const piece of this.#pieces(node)) {
      if (piece.literal !== undefined) literal = (literal ?? '') + piece.literal;
      else {
        if (literal) out.push(quoteWord(literal));
        literal = undefined;
        out.push(piece.text);
      }
    }
    if (literal !== undefined && (literal !== '' || out.length === 0)) out.push(quoteWord(literal));
    return out.length === 0 ? "''" : out.join('');
  }

  /** A word's pieces: literal text (merged and quoted by #word) or canonical text kept as it is. */
  #pieces(node: Node): Piece[] {
    const replaced = this.#replaced.get(node.id);
    if (replaced !== undefined) return [{ text: replaced }];
    switch (node.type) {
      case 'word': {
        if (expandsAtRunTime(node.text))
          throw new CannotRebuild(`${node.text}, which bash expands at run time (a glob, a brace list or ~)`);
        if (/[`$]/.test(node.text.replace(/\\./gs, '')))
          throw new CannotRebuild(`${node.text}, which holds an expansion the parser did not see`);
        return [{ literal: node.text.replace(/\\(.)/gs, (_, c: string) => (c === '\n' ? '' : c)) }];
      }
      case 'number':
        return [{ literal: node.text }];
      case 'raw_string':
        return [{ literal: node.text.slice(1, -1) }];
      case 'ansi_c_string':
        if (!node.text.startsWith("$'") || !node.text.endsWith("'"))
          throw new CannotRebuild(`the string ${node.text}`);
        return [{ literal: decodeAnsiC(node.text.slice(2, -1)) }];
      case 'string':
      case 'translated_string': {
        const pieces: Piece[] = [{ literal: '' }];
        for (const child of node.children) {
          if (!child?.isNamed) continue;
          if (child.type === 'string_content') {
            if (/`/.test(child.text)) throw new CannotRebuild('a backquote in a string');
            pieces.push({
              literal: child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)),
            });
          } else pieces.push(...this.#pieces(child));
        }
        return pieces;
      }
      case 'concatenation': {
        const bare = node.namedChildren
          .filter((c) => c?.type === 'word')
          .map((c) => (c as Node).text)
          .join('');
        if (expandsAtRunTime(bare))
          throw new CannotRebuild(`${node.text}, which bash expands at run time (a glob, a brace list or ~)`);
        // Only named parts: an anonymous one is text the parser did not classify.
        if (node.children.some((c) => c && !c.isNamed))
          throw new CannotRebuild(`${node.text}, part of which the parser did not classify`);
        return node.namedChildren.flatMap((c) => this.#pieces(c as Node));
      }
      case 'simple_expansion':
      case 'expansion': {
        const name = node.namedChildren.find(
          (c) => c?.type === 'variable_name' || c?.type === 'special_variable_name',
        );
        // The parser counts the blank before `${` in a string as part of the expansion: kept as text.
        const lead = /^[ \t]*/.exec(node.text)?.[0] ?? '';
        const own = node.text.slice(lead.length);
        const plain =
          name &&
          node.namedChildren.length === 1 &&
          (NAME.test(name.text) || SPECIAL.test(name.text)) &&
          own === (node.type === 'simple_expansion' ? `$${name.text}` : `\${${name.text}}`);
        if (!plain) throw new CannotRebuild(`the expansion ${node.text}`);
        return [{ literal: lead }, { text: `"\${${(name as Node).text}}"` }];
      }
      case 'arithmetic_expansion': {
        const inner = node.text.slice(3, -2);
        if (!node.text.startsWith('$((') || !literalArithmetic(inner))
          throw new CannotRebuild(`the arithmetic ${node.text}`);
        // Quoted: its value is one word whatever IFS holds.
        return [{ text: `"$((${inner}))"` }];
      }
      default:
        throw new CannotRebuild(`a ${node.type}`);
    }
  }
}

/** Literal text of an unquoted here-document: `\$`, `` \` ``, `\\` and `\<newline>` undone, as bash does. */
function heredocLiteral(text: string): string {
  if (/\$[A-Za-z0-9_@*#?$!{(-]/.test(text.replace(/\\./gs, '')))
    throw new CannotRebuild('an expansion in a here-document the parser did not see');
  return quoteWord(text.replace(/\\([$`\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)));
}

function isRedirect(type: string): boolean {
  return type === 'file_redirect' || type === 'heredoc_redirect' || type === 'herestring_redirect';
}
