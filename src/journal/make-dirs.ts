import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p` one level at a time: Node's `mkdirSync(…, { recursive: true })` loops forever on some
 * paths (under /proc, where mkdir answers ENOENT), and a journal path must fail, not hang. New
 * directories get `mode` (private by default: the journal holds file contents). Another process
 * creating the same directory at the same moment is fine.
 */
export function makeDirs(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    try {
      if (!statSync(current).isDirectory()) throw new Error(`${current} exists and is not a directory`);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const parent = path.dirname(current);
    missing.push(current);
    if (parent === current) break;
    current = parent;
  }
  for (const missingDir of missing.reverse()) {
    try {
      mkdirSync(missingDir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
