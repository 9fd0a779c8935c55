import { ToolError } from '../../core/tool-error.js';
import { describeIndent, firstIndentDifference, leadingWhitespace } from '../fs/indent-shift.js';
import { type Chunk, type ChunkLine, oldSide } from './patch-ops.js';
import { seekLines } from './seek-lines.js';

function fail(path: string, chunk: Chunk, message: string): ToolError {
  return new ToolError('PatchFailed', `${path}: chunk at patch line ${chunk.patchLine}: ${message}`, {
    file: path,
  });
}

function numbered(lines: readonly string[], from: number, to: number): string {
  return lines
    .slice(Math.max(0, from), Math.min(lines.length, to))
    .map((l, k) => `${Math.max(0, from) + k + 1} | ${l}`)
    .join('\n');
}

/** Picks the single match, or the one nearest a unified-diff line hint; else ambiguity is an error. */
function choose(found: number[], hint: number | undefined): number | undefined {
  if (found.length === 1) return found[0];
  if (hint === undefined) return undefined;
  const sorted = [...found].sort((a, b) => Math.abs(a - hint) - Math.abs(b - hint));
  if (Math.abs((sorted[0] as number) - hint) === Math.abs((sorted[1] as number) - hint)) return undefined;
  return sorted[0];
}

/**
 * What replaces the matched lines: the FILE's own text for every context line, nothing for a
 * removed line, the added lines exactly as the patch shows them. So every line written is either a
 * line the patch did not touch, byte for byte, or a `+` line as the person read it (issue #30 §1).
 */
function replacement(body: readonly ChunkLine[], lines: readonly string[], start: number): string[] {
  const out: string[] = [];
  let k = start;
  for (const line of body) {
    if (line.kind === 'add') out.push(line.text);
    else if (line.kind === 'context') out.push(lines[k++] as string);
    else k++;
  }
  return out;
}

/** Where the old lines match only at another indentation: the first line that differs, for the message. */
function indentMiss(lines: readonly string[], oldLines: readonly string[], cursor: number): string {
  for (const at of seekLines(lines, oldLines, cursor, false, 'ignored')) {
    const region = lines.slice(at, at + oldLines.length);
    // Off in relative indentation, or all moved alike: either way the first line whose indent differs.
    const k =
      firstIndentDifference(region, oldLines)?.index ??
      region.findIndex(
        (l, i) => l.trim() !== '' && leadingWhitespace(l) !== leadingWhitespace(oldLines[i] as string),
      );
    if (k < 0) continue;
    const file = region[k] as string;
    return `Copy the lines with the file's indentation: line ${at + k + 1} ('${file.trim()}') has ${describeIndent(file)} where the patch has ${describeIndent(oldLines[k] as string)}. Lines match only at the file's own indentation, so the added lines land in the block the patch shows.\n`;
  }
  return '';
}

/**
 * Applies the chunks of one Update to a file's text (`\n` line breaks). Differences from codex, on
 * purpose: an ambiguous match is refused (the candidates are named), a pure addition after `@@ ctx`
 * goes right after that context line, several `@@` lines narrow the search one after another, and
 * context lines keep the file's text while old lines must match at the file's indentation (issue
 * #30 §1: codex writes the patch's spelling of context, which a loose match made a hidden change).
 */
export function applyChunks(
  path: string,
  text: string,
  chunks: readonly Chunk[],
  keepNoFinalNewline = false,
): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const replacements: { start: number; length: number; lines: string[] }[] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    for (const context of chunk.contexts) {
      const found = seekLines(lines, [context], cursor, false, 'ignored');
      if (found.length === 0)
        throw fail(path, chunk, `context line '${context}' was not found after line ${cursor}`);
      const at = choose(found, chunk.oldStart === undefined ? undefined : chunk.oldStart - 1);
      if (at === undefined) {
        throw fail(
          path,
          chunk,
          `context line '${context}' occurs at lines ${found.map((f) => f + 1).join(', ')}; add a more specific '@@' line or more context`,
        );
      }
      cursor = at + 1;
    }
    let body = chunk.lines;
    let oldLines = oldSide(chunk);
    if (oldLines.length === 0) {
      // Pure addition: after the context line when one was given, else at the end of the file.
      const at = chunk.contexts.length > 0 && !chunk.eof ? cursor : lines.length;
      replacements.push({ start: at, length: 0, lines: replacement(body, lines, at) });
      cursor = at;
      continue;
    }
    const hint = chunk.oldStart === undefined ? undefined : chunk.oldStart - 1;
    let found = seekLines(lines, oldLines, cursor, chunk.eof);
    // A trailing empty context line in the patch is often just the blank line before the next header.
    while (found.length === 0 && body.at(-1)?.kind === 'context' && body.at(-1)?.text === '') {
      body = body.slice(0, -1);
      oldLines = oldSide({ lines: body });
      found = seekLines(lines, oldLines, cursor, chunk.eof);
    }
    if (found.length === 0) {
      const indent = indentMiss(lines, oldLines, cursor);
      const firstLine = oldLines.find((l) => l.trim() !== '') ?? '';
      const near = firstLine ? seekLines(lines, [firstLine], 0, false, 'ignored') : [];
      const where = near.length
        ? `\nIts first line appears at line ${near
            .map((n) => n + 1)
            .slice(0, 5)
            .join(
              ', ',
            )}:\n${numbered(lines, (near[0] as number) - 1, (near[0] as number) + oldLines.length + 1)}`
        : '';
      throw fail(
        path,
        chunk,
        `${indent}the lines to replace were not found${chunk.eof ? ' at the end of the file' : cursor > 0 ? ` after line ${cursor}` : ''}:\n${oldLines.join('\n')}${where}\nRead the file again and copy the context exactly.`,
      );
    }
    const start = choose(found, hint);
    if (start === undefined) {
      throw fail(
        path,
        chunk,
        `the lines to replace occur ${found.length} times (at lines ${found.map((f) => f + 1).join(', ')}); add more context lines or an '@@ <line>' header so only one place matches`,
      );
    }
    replacements.push({ start, length: oldLines.length, lines: replacement(body, lines, start) });
    cursor = start + oldLines.length;
  }
  replacements.sort((a, b) => a.start - b.start);
  for (let k = replacements.length - 1; k >= 0; k--) {
    const r = replacements[k] as (typeof replacements)[number];
    lines.splice(r.start, r.length, ...r.lines);
  }
  const body = lines.join('\n');
  if (keepNoFinalNewline) return body;
  return lines.length === 0 ? '' : `${body}\n`;
}
