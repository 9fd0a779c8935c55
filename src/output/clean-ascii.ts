/** Bytes that may pass to a terminal as they are: printable ASCII, tab and newline. */
const SAFE = new Uint8Array(128);
for (let b = 0x20; b < 0x7f; b++) SAFE[b] = 1;
SAFE[0x09] = 1;
SAFE[0x0a] = 1;

/**
 * True when every byte is printable ASCII, tab or newline: such output needs no terminal
 * sanitizing and decodes the same as Latin-1. Four bytes are tested at a time; only a word that
 * may hold a byte below 0x20, DEL or one from 0x80 is looked at byte by byte. Anything else (escape
 * sequences, controls, any non-ASCII) answers false and goes the full way.
 */
export function isCleanAscii(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = 0;
  // Unaligned head, byte by byte, up to a 4-byte boundary of the underlying buffer.
  while (i < n && (bytes.byteOffset + i) % 4 !== 0) {
    if (SAFE[bytes[i] as number] !== 1) return false;
    i++;
  }
  const words = Math.floor((n - i) / 4);
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = view[w] as number;
      // A set high bit marks a byte < 0x20 (the subtraction borrows), 0x7f (adding 1 reaches
      // 0x80) or >= 0x80; a neighbour's borrow or carry can only add false alarms, never hide one.
      if ((((x - 0x20202020) | x | (x + 0x01010101)) & 0x80808080) !== 0) {
        const at = i + w * 4;
        for (let k = at; k < at + 4; k++) if (SAFE[bytes[k] as number] !== 1) return false;
      }
    }
    i += words * 4;
  }
  for (; i < n; i++) if (SAFE[bytes[i] as number] !== 1) return false;
  return true;
}
