const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  // Buffer.byteLength avoids allocating the encoded bytes.
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Lines as a person counts them: each `\n` ends a line, and text after the last `\n` is one more
 * line; a trailing `\n` does not start an empty one (`"a\nb\n"` is 2 lines, `""` is 0).
 */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let newlines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The text before its `(n + 1)`-th `\n`: at most `n` newlines, so at most `n + 1` lines. */
function keepNewlines(text: string, n: number): string {
  let at = -1;
  for (let seen = 0; seen <= n; seen++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at);
}

function markerText(omittedLines: number, omittedBytes: number): string {
  const lines = omittedLines > 0 ? `${omittedLines} ${omittedLines === 1 ? 'line' : 'lines'}, ` : '';
  return `... [output truncated: ${lines}${omittedBytes} bytes omitted]`;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  // At most 3 bytes per UTF-16 unit: short text needs no encoding at all.
  if (text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
}

export interface Truncated {
  text: string;
  truncated: boolean;
  omittedBytes: number;
  /** Whole lines left out (a line cut part-way counts as kept); 0 without a line limit. */
  omittedLines: number;
}

/** `[tools.output]`: `max_bytes`, and `max_lines` when set (unset: no line limit). */
export interface OutputLimits {
  maxBytes: number;
  maxLines?: number | undefined;
}

/**
 * Seed 000 FR-OUT-04a: the result, marker included, never exceeds `maxBytes` UTF-8 bytes, nor
 * `maxLines` lines when given (seed 001's OutputFormatter `maxLines`); the marker says how much was
 * cut (seed 001/003): `... [output truncated: N bytes omitted]`, with `L lines, ` before the bytes
 * when whole lines were left out. Without a line limit the output is exactly what it always was.
 */
export function truncateOutput(text: string, maxBytes: number, maxLines?: number): Truncated {
  const capped = maxLines !== undefined && Number.isFinite(maxLines);
  // Fits whatever it holds.
  if (!capped && text.length * 3 <= maxBytes)
    return { text, truncated: false, omittedBytes: 0, omittedLines: 0 };
  const total = utf8Length(text);
  const lines = capped ? countLines(text) : 0;
  if (total <= maxBytes && (!capped || lines <= maxLines)) {
    return { text, truncated: false, omittedBytes: 0, omittedLines: 0 };
  }
  // The marker is its own line after a blank one; under a limit of 1–2 lines it moves up, so the
  // result keeps to the limit: at most `maxLines - 1` newlines in all.
  const lineLimit = capped ? Math.max(1, Math.floor(maxLines)) : Number.POSITIVE_INFINITY;
  const sepNewlines = Math.min(2, lineLimit - 1);
  const separator = '\n'.repeat(sepNewlines);
  // Reserve room for the longest marker (the omitted counts are at most the totals), so the real one fits.
  const longest = separator + markerText(lines, total);
  const reserve = utf8Length(longest);
  if (reserve >= maxBytes) {
    return { text: cutToBytes(longest, maxBytes), truncated: true, omittedBytes: total, omittedLines: lines };
  }
  const head = capped ? keepNewlines(text, lineLimit - 1 - sepNewlines) : text;
  const body = cutToBytes(head, maxBytes - reserve);
  const omittedBytes = total - utf8Length(body);
  const omittedLines = capped ? lines - countLines(body) : 0;
  return {
    text: body + separator + markerText(omittedLines, omittedBytes),
    truncated: true,
    omittedBytes,
    omittedLines,
  };
}
