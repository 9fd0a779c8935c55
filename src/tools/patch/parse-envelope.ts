import { type Chunk, type PatchOp, PatchParseError } from './patch-ops.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';
const HEADERS = `'${ADD}{path}', '${DELETE}{path}', '${UPDATE}{path}'`;

function hunkError(line: number, message: string): PatchParseError {
  return new PatchParseError(`invalid patch hunk on line ${line}: ${message}`);
}

/** Strips a heredoc wrapper (`<<'EOF'` … `EOF`) some models put around the patch. */
function unwrapHeredoc(lines: string[]): string[] {
  const first = lines[0]?.trim();
  const last = lines.at(-1)?.trim() ?? '';
  if (
    (first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') &&
    last.endsWith('EOF') &&
    lines.length >= 4
  ) {
    return lines.slice(1, -1);
  }
  return lines;
}

/**
 * Parses the `*** Begin Patch` envelope (shared/research/codex.md §1.2-1.3), with its leniency:
 * trimmed markers and hunk headers, heredoc wrapper, optional `@@` on the first chunk, empty lines
 * as empty context. Accepts several `@@ ctx` lines in a row (nested context), unlike upstream.
 */
export function parseEnvelope(text: string): PatchOp[] {
  let lines = text.trim().split(/\r?\n/);
  if (lines[0]?.trim() !== BEGIN || lines.at(-1)?.trim() !== END) lines = unwrapHeredoc(lines);
  if (lines[0]?.trim() !== BEGIN) throw new PatchParseError(`the first line of the patch must be '${BEGIN}'`);
  if (lines.at(-1)?.trim() !== END) throw new PatchParseError(`the last line of the patch must be '${END}'`);
  const body = lines.slice(1, -1);
  const ops: PatchOp[] = [];
  let i = 0;
  const lineNo = (index: number) => index + 2; // line 1 is Begin Patch
  if (body[0]?.startsWith('*** Environment ID:')) i = 1;

  while (i < body.length) {
    const raw = body[i] as string;
    const header = raw.trim();
    if (header === '') {
      i++;
      continue;
    }
    const at = lineNo(i);
    if (header.startsWith(ADD)) {
      const path = header.slice(ADD.length);
      i++;
      let content = '';
      while (i < body.length && (body[i] as string).startsWith('+')) {
        content += `${(body[i] as string).slice(1)}\n`;
        i++;
      }
      ops.push({ kind: 'add', path, content, patchLine: at });
      continue;
    }
    if (header.startsWith(DELETE)) {
      ops.push({ kind: 'delete', path: header.slice(DELETE.length), patchLine: at });
      i++;
      continue;
    }
    if (!header.startsWith(UPDATE)) {
      throw hunkError(at, `'${raw}' is not a valid hunk header. Valid hunk headers: ${HEADERS}`);
    }
    const path = header.slice(UPDATE.length);
    i++;
    let moveTo: string | undefined;
    if (body[i]?.trim().startsWith(MOVE)) {
      moveTo = (body[i] as string).trim().slice(MOVE.length);
      i++;
    }
    const chunks: Chunk[] = [];
    while (i < body.length) {
      const line = body[i] as string;
      if (line.trim() === '') {
        i++; // blank lines between chunks (inside a chunk they are empty context, read below)
        continue;
      }
      if (line.trimStart().startsWith('***')) break;
      const chunk = parseChunk(body, i, chunks.length === 0, lineNo);
      chunks.push(chunk.chunk);
      i = chunk.next;
    }
    if (chunks.length === 0) throw hunkError(at, `update file hunk for path '${path}' is empty`);
    ops.push({ kind: 'update', path, ...(moveTo === undefined ? {} : { moveTo }), chunks, patchLine: at });
  }
  return ops;
}

function parseChunk(
  body: string[],
  start: number,
  first: boolean,
  lineNo: (index: number) => number,
): { chunk: Chunk; next: number } {
  let i = start;
  const contexts: string[] = [];
  while (i < body.length && (body[i] as string).trimEnd().startsWith('@@')) {
    const header = (body[i] as string).trimEnd();
    if (header !== '@@') {
      if (!header.startsWith('@@ '))
        throw hunkError(
          lineNo(i),
          `'${header}' is not a valid chunk header; use '@@' or '@@ <context line>'`,
        );
      contexts.push(header.slice(3));
    }
    i++;
  }
  if (i === start && !first) {
    throw hunkError(lineNo(i), `expected the chunk to start with an '@@' line, got: '${body[i]}'`);
  }
  const chunk: Chunk = { contexts, lines: [], eof: false, patchLine: lineNo(start) };
  let bodyLines = 0;
  while (i < body.length) {
    const line = body[i] as string;
    if (line.trim() === EOF_MARK) {
      chunk.eof = true;
      i++;
      break;
    }
    const kind = line[0];
    if (line === '') {
      chunk.lines.push({ kind: 'context', text: '' });
    } else if (kind === ' ') {
      chunk.lines.push({ kind: 'context', text: line.slice(1) });
    } else if (kind === '-') {
      chunk.lines.push({ kind: 'remove', text: line.slice(1) });
    } else if (kind === '+') {
      chunk.lines.push({ kind: 'add', text: line.slice(1) });
    } else {
      if (bodyLines === 0) {
        throw hunkError(
          lineNo(i),
          `unexpected line in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
        );
      }
      break;
    }
    bodyLines++;
    i++;
  }
  if (bodyLines === 0) throw hunkError(chunk.patchLine, 'update hunk does not contain any lines');
  return { chunk, next: i };
}
