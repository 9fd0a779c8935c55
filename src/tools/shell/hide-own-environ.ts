import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/**
 * Secrets out of `/proc/<toolgate>/environ` (issue #30 §8). A command run on the host as the same
 * user may read that file: it shows the environment the process started with, from the process's
 * own memory, whatever `process.env` says since. So each secret is first set again (the C library
 * then keeps a fresh copy elsewhere, which `process.env` and everything in this process go on
 * reading), and its value in the start-up block is overwritten with NUL bytes through
 * `/proc/self/mem`. Linux only; elsewhere, or when the kernel refuses, nothing changes (the
 * command's own environment is scrubbed all the same).
 */

/** The start-up block's variables not yet cleared, read once (undefined: not read yet, or unreadable). */
let entries: { name: string; value: string; at: number; length: number }[] | undefined;
let blockStart = 0;

/** Fields 50 and 51 of /proc/self/stat (env_start, env_end), counted after the `(comm)` field. */
function environBlock(): { start: number; end: number } | undefined {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[47]);
  const end = Number(fields[48]);
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && end > start ? { start, end } : undefined;
}

function readBlock(): NonNullable<typeof entries> {
  const block = environBlock();
  if (!block) return [];
  const bytes = Buffer.alloc(block.end - block.start);
  const fd = openSync('/proc/self/mem', 'r');
  try {
    readSync(fd, bytes, 0, bytes.length, block.start);
  } finally {
    closeSync(fd);
  }
  blockStart = block.start;
  const out: NonNullable<typeof entries> = [];
  for (let at = 0; at < bytes.length; ) {
    const nul = bytes.indexOf(0, at);
    const end = nul < 0 ? bytes.length : nul;
    const eq = bytes.indexOf(0x3d, at);
    if (eq > at && eq + 1 < end)
      out.push({
        name: bytes.toString('utf8', at, eq),
        value: bytes.toString('utf8', eq + 1, end),
        at: eq + 1,
        length: end - eq - 1,
      });
    at = end + 1;
  }
  return out;
}

/** Overwrites, in this process's start-up environment block, the value of every variable `secret` names. */
export function hideFromOwnEnviron(secret: (name: string, value: string) => boolean): void {
  // Only the main thread's process.env is the process's environment (a worker's is a copy).
  if (process.platform !== 'linux' || !isMainThread) return;
  try {
    entries ??= readBlock();
  } catch {
    entries = []; // no /proc to read: nothing to hide there either
    return;
  }
  const now = entries.filter((e) => secret(e.name, e.value));
  if (now.length === 0) return;
  entries = entries.filter((e) => !now.includes(e));
  let fd: number | undefined;
  try {
    fd = openSync('/proc/self/mem', 'r+');
    for (const entry of now) {
      const value = process.env[entry.name];
      // A fresh copy, so nothing in this process reads the bytes about to be cleared.
      if (value !== undefined) process.env[entry.name] = value;
      writeSync(fd, Buffer.alloc(entry.length), 0, entry.length, blockStart + entry.at);
    }
  } catch {
    // A kernel that refuses writes to /proc/self/mem: the block stays as it was.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
