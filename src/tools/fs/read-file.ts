import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import type { ToolContext, ToolOutput } from '../../core/tool-definition.js';
import { ToolError } from '../../core/tool-error.js';
import { openForRead, readSmallFileVerified, VERIFIES_OPENED_PATHS } from '../../sandbox/safe-fs.js';
import type { ResolvedPath } from '../../sandbox/sandbox.js';
import { readLineRange } from './read-line-range.js';
import { sniffBinary } from './sniff-binary.js';
import type { StaleGuard } from './stale-guard.js';

export interface ReadFileSettings {
  /** Largest file returned whole without a line range (seed 000 max_file_read_bytes). */
  maxFileReadBytes: number;
  /** Most bytes scanned to find a line range (seed 000 FR-TOOL-READ-01a). */
  maxScanBytes: number;
  timeoutMs?: number;
  /** Records what was read, for the read-before-write guard. */
  guard?: StaleGuard;
}

/** Up to this size a whole file is read on the synchronous fast path. */
const SMALL_FILE_BYTES = 64 * 1024;

/** Files up to this size get their hash recorded even on a partial (ranged or binary) read. */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

const args = z
  .strictObject({
    path: z.string().min(1).describe('File path relative to the workspace root.'),
    start_line: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('First line to return, 1-based, inclusive.'),
    end_line: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('Last line to return, 1-based, inclusive; past the end means to the end.'),
  })
  .refine((a) => a.start_line === undefined || a.end_line === undefined || a.start_line <= a.end_line, {
    message: 'start_line must not be greater than end_line',
    path: ['start_line'],
  });

const BINARY_HEADER = '[binary:base64]';
const TRUNCATED_TAG = '[truncated]';

/** seed 000 FR-TOOL-READ-01: text or base64, line ranges with a bounded scan, binary self-limited. */
export function createReadFileTool(settings: ReadFileSettings) {
  return defineTool({
    name: 'read_file',
    description:
      'Read a file in the workspace. Returns its text; for large files pass start_line/end_line (1-based, inclusive) to read a part. Binary files come back as "[binary:base64]" and base64.',
    args,
    tier: 'read_only',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) =>
      `Read ${a.path}${a.start_line !== undefined || a.end_line !== undefined ? ` lines ${a.start_line ?? 1}-${a.end_line ?? 'end'}` : ''}`,
    locations: (a) => [{ path: a.path, access: 'read' }],
    execute(a, ctx) {
      // The planner's resolution is reused where the open verifies it (a changed path is refused).
      const planned = VERIFIES_OPENED_PATHS ? ctx.paths?.[0] : undefined;
      const target = planned ?? ctx.sandbox.resolve(a.path);
      const ranged = a.start_line !== undefined || a.end_line !== undefined;
      if (!ranged) {
        // Common case: a small whole file, read with synchronous, equally checked syscalls and
        // returned at once (no await, so no timer is armed for it).
        const small = readSmallFileVerified(
          target,
          ctx.sandbox,
          Math.min(settings.maxFileReadBytes, ctx.outputLimit, SMALL_FILE_BYTES),
        );
        if (small && !sniffBinary(small.bytes.subarray(0, 8192), small.bytes.length <= 8192)) {
          settings.guard?.remember(target, small.bytes);
          return {
            content: small.bytes.toString('utf8'),
            display: `read ${target.relative} (${small.stat.size} bytes)`,
            metadata: { path: target.relative, bytes: small.stat.size },
          };
        }
      }
      return readThroughHandle(target, a, ctx, settings);
    },
  });
}

/** Large, binary or ranged reads: through an opened handle, with bounded scans. */
async function readThroughHandle(
  target: ResolvedPath,
  a: { start_line?: number | undefined; end_line?: number | undefined },
  ctx: ToolContext,
  settings: ReadFileSettings,
): Promise<ToolOutput> {
  const ranged = a.start_line !== undefined || a.end_line !== undefined;
  const { handle, stat } = await openForRead(target, ctx.sandbox, 'file');
  // The guard needs the hash of the whole file, whatever part of it the model saw.
  const remember = async (whole?: Buffer) => {
    if (!settings.guard) return;
    if (whole) settings.guard.remember(target, whole);
    else if (stat.size <= MAX_HASHED_BYTES) settings.guard.remember(target, await handle.readFile());
  };
  try {
    const readLimit = Math.min(settings.maxFileReadBytes, ctx.outputLimit);
    // A whole small file is read once and sniffed in memory; otherwise only its first 8 KB.
    const whole = !ranged && stat.size <= readLimit ? await handle.readFile() : undefined;
    const sniff = whole ?? Buffer.alloc(Math.min(8192, stat.size));
    const bytesRead = whole ? whole.length : (await handle.read(sniff, 0, sniff.length, 0)).bytesRead;
    const binary = sniffBinary(
      sniff.subarray(0, Math.min(bytesRead, 8192)),
      bytesRead === stat.size && bytesRead <= 8192,
    );
    if (binary) {
      if (ranged) {
        throw new ToolError(
          'BadArgs',
          `"${target.relative}" is a binary file; line ranges apply only to text files`,
        );
      }
      // Self-limit so header + base64 fit the output limit (FR-TOOL-READ-01b).
      const header = `${BINARY_HEADER}${TRUNCATED_TAG}\n`;
      const room = Math.max(0, ctx.outputLimit - header.length);
      const maxRaw = Math.floor(room / 4) * 3;
      const take = Math.min(stat.size, maxRaw);
      const buffer = Buffer.alloc(take);
      const got = take > 0 ? (await handle.read(buffer, 0, take, 0)).bytesRead : 0;
      const truncated = got < stat.size;
      await remember(truncated ? undefined : buffer);
      return {
        content: `${BINARY_HEADER}${truncated ? TRUNCATED_TAG : ''}\n${buffer.subarray(0, got).toString('base64')}`,
        display: `binary file ${target.relative} (${stat.size} bytes)`,
        metadata: { path: target.relative, binary: true, bytes: stat.size, truncated },
        allowTruncation: false,
      };
    }
    if (!ranged) {
      if (stat.size > readLimit) {
        throw new ToolError(
          'LimitExceeded',
          `"${target.relative}" is ${stat.size} bytes, more than the ${readLimit} that can be read at once; read it in parts with start_line and end_line`,
        );
      }
      const bytes = whole ?? (await handle.readFile());
      await remember(bytes);
      const text = bytes.toString('utf8');
      return {
        content: text,
        display: `read ${target.relative} (${stat.size} bytes)`,
        metadata: { path: target.relative, bytes: stat.size },
      };
    }
    const start = a.start_line ?? 1;
    // Hash while scanning, then hash the rest: the file is read once, not twice.
    const hash = settings.guard?.enabled && stat.size <= MAX_HASHED_BYTES ? createHash('sha256') : undefined;
    const range = await readLineRange(handle, start, a.end_line, settings.maxScanBytes, ctx.signal, hash);
    if (range.scanLimitHit) {
      throw new ToolError(
        'LimitExceeded',
        `finding lines ${start}-${a.end_line ?? 'end'} of "${target.relative}" needs more than ${settings.maxScanBytes} bytes of scanning (max_scan_bytes); ask for a narrower or earlier range`,
      );
    }
    // Line 1 of an empty file is an empty read, not an error: models often start there.
    if (range.firstLine === undefined && !(start === 1 && range.linesSeen === 0)) {
      throw new ToolError(
        'BadArgs',
        `start_line ${start} is past the end of "${target.relative}", which has ${range.linesSeen} line${range.linesSeen === 1 ? '' : 's'}`,
      );
    }
    if (hash && settings.guard) {
      await hashRest(handle, range.position, hash);
      settings.guard.rememberHash(target, hash.digest('hex'));
    }
    return {
      content: range.text,
      display: `read ${target.relative} lines ${range.firstLine ?? start}-${range.lastLine ?? 0}`,
      metadata: {
        path: target.relative,
        start_line: range.firstLine,
        end_line: range.lastLine,
        eof: range.reachedEof,
      },
    };
  } finally {
    await handle.close();
  }
}

async function hashRest(handle: FileHandle, from: number, hash: Hash): Promise<void> {
  const buffer = Buffer.alloc(256 * 1024);
  for (let position = from; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}
