import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `text` in a file of its own, opened for reading and already removed: nobody else can reach it,
 * and nothing is left behind however the caller ends. A child given the descriptor as its stdin
 * reads it as `/dev/stdin` (Node's stdio pipes are sockets, which cannot be opened by that name).
 * With `r+`, a child given it as an output (at its end: the offset is shared) writes there for the
 * caller to read once it is done. The caller closes the descriptor.
 */
export function unlinkedTextFile(text: string, access: 'r' | 'r+' = 'r'): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-text-'));
  try {
    const file = path.join(dir, 'text');
    writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    return openSync(file, access);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
