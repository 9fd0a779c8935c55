/**
 * seed 000 FR-TOOL-READ-01: a file is binary when its first 8 KB hold a NUL byte or are not UTF-8.
 * A multi-byte character cut at the end of the sample is not a decoding failure (unless it is EOF).
 */
export function sniffBinary(sample: Uint8Array, isWholeFile: boolean): boolean {
  if (sample.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: !isWholeFile });
    return false;
  } catch {
    return true;
  }
}
