import { isUtf8 } from 'node:buffer';

/**
 * seed 000 FR-TOOL-READ-01: a file is binary when its first 8 KB hold a NUL byte or are not UTF-8.
 * A multi-byte character cut at the end of the sample is not a decoding failure (unless it is EOF).
 * Same answers as a fatal streaming TextDecoder (property-tested), without building one per file.
 */
export function sniffBinary(sample: Uint8Array, isWholeFile: boolean): boolean {
  if (sample.includes(0)) return true;
  if (isUtf8(sample)) return false;
  if (isWholeFile) return true;
  const cut = incompleteTail(sample);
  return cut === 0 || !isUtf8(sample.subarray(0, sample.length - cut));
}

/** Bytes at the end that begin a character without finishing it (0 when they do not). */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const lead = bytes[bytes.length - back] as number;
    if ((lead & 0xc0) === 0x80) continue; // a continuation byte: the lead is further back
    const needed =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
    if (back >= needed) return 0; // complete (or no lead at all): the fault is elsewhere
    if (back >= 2 && !secondByteFits(lead, bytes[bytes.length - back + 1] as number)) return 0;
    return back;
  }
  return 0;
}

/** The second byte's range depends on the lead (no overlongs, surrogates or code points past U+10FFFF). */
function secondByteFits(lead: number, second: number): boolean {
  if (lead === 0xe0) return second >= 0xa0 && second <= 0xbf;
  if (lead === 0xed) return second >= 0x80 && second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90 && second <= 0xbf;
  if (lead === 0xf4) return second >= 0x80 && second <= 0x8f;
  return second >= 0x80 && second <= 0xbf;
}
