import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { ToolError } from '../../core/tool-error.js';

export interface LineRange {
  text: string;
  /** undefined when start_line is past the end. */
  firstLine: number | undefined;
  lastLine: number | undefined;
  linesSeen: number;
  reachedEof: boolean;
  scanLimitHit: boolean;
  /** Bytes read from the start (where a caller hashing the file goes on from). */
  position: number;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Streams a file from the start and returns lines [start, end] (1-based, inclusive) exactly as
 * stored (line endings kept), scanning at most `maxScanBytes` (seed 000 FR-TOOL-READ-01a).
 */
export async function readLineRange(
  handle: FileHandle,
  start: number,
  end: number | undefined,
  maxScanBytes: number,
  signal: AbortSignal,
  /** Fed every byte read, so the caller can hash the file without reading it twice. */
  hash?: Hash,
): Promise<LineRange> {
  const parts: Buffer[] = [];
  const buffer = Buffer.alloc(CHUNK);
  let line = 1; // line number of the byte at the current position
  let position = 0;
  let lastByteWasNewline = true;
  let firstLine: number | undefined;
  for (;;) {
    if (signal.aborted) throw new ToolError('Cancelled', 'cancelled');
    // At the scan cap, a 1-byte probe tells EOF (fine) from more data (limit hit).
    const atCap = position >= maxScanBytes;
    const { bytesRead } = await handle.read(
      buffer,
      0,
      atCap ? 1 : Math.min(CHUNK, maxScanBytes - position),
      position,
    );
    if (atCap && bytesRead > 0) {
      return {
        text: '',
        firstLine,
        lastLine: undefined,
        linesSeen: line,
        reachedEof: false,
        scanLimitHit: true,
        position,
      };
    }
    if (bytesRead === 0) {
      const linesSeen = lastByteWasNewline ? line - 1 : line;
      const lastLine = firstLine === undefined ? undefined : Math.min(end ?? linesSeen, linesSeen);
      return {
        text: Buffer.concat(parts).toString('utf8'),
        firstLine,
        lastLine,
        linesSeen,
        reachedEof: true,
        scanLimitHit: false,
        position,
      };
    }
    const chunk = buffer.subarray(0, bytesRead);
    hash?.update(chunk);
    let offset = 0;
    while (offset < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, offset);
      const stop = nl === -1 ? chunk.length : nl + 1;
      if (line >= start && (end === undefined || line <= end)) {
        if (firstLine === undefined) firstLine = line;
        parts.push(Buffer.from(chunk.subarray(offset, stop)));
      }
      if (nl === -1) {
        offset = chunk.length;
      } else {
        offset = stop;
        if (end !== undefined && line === end) {
          return {
            text: Buffer.concat(parts).toString('utf8'),
            firstLine,
            lastLine: end,
            linesSeen: line,
            reachedEof: false,
            scanLimitHit: false,
            // The whole chunk went into the hash, so a caller hashing the rest starts after it.
            position: position + bytesRead,
          };
        }
        line++;
      }
    }
    lastByteWasNewline = chunk[chunk.length - 1] === NEWLINE;
    position += bytesRead;
  }
}
