const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  // Buffer.byteLength avoids allocating the encoded bytes.
  return Buffer.byteLength(text, 'utf8');
}

function marker(omittedBytes: number): string {
  return `\n\n... [output truncated: ${omittedBytes} bytes omitted]`;
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
}

/**
 * Seed 000 FR-OUT-04a: the result, marker included, never exceeds `maxBytes`; the marker says how
 * many bytes were cut (seed 001/003).
 */
export function truncateOutput(text: string, maxBytes: number): Truncated {
  if (text.length * 3 <= maxBytes) return { text, truncated: false, omittedBytes: 0 }; // fits whatever it holds
  const total = utf8Length(text);
  if (total <= maxBytes) return { text, truncated: false, omittedBytes: 0 };
  // Reserve room for the longest marker (the omitted count is at most `total`), so the real one fits.
  const reserve = utf8Length(marker(total));
  if (reserve >= maxBytes)
    return { text: cutToBytes(marker(total), maxBytes), truncated: true, omittedBytes: total };
  const body = cutToBytes(text, maxBytes - reserve);
  const omittedBytes = total - utf8Length(body);
  return { text: body + marker(omittedBytes), truncated: true, omittedBytes };
}
