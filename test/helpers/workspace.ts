import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A real temp directory per test, removed afterwards. Returns its canonical path. */
export function useWorkspace(): {
  dir: () => string;
  file: (rel: string, content: string | Buffer) => string;
} {
  let current: string | undefined;
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    current = undefined;
  });
  const dir = () => {
    if (!current) {
      current = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-test-')));
      made.push(current);
    }
    return current;
  };
  const file = (rel: string, content: string | Buffer) => {
    const full = path.join(dir(), rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
    return full;
  };
  return { dir, file };
}

/** A fresh temp directory outside any test workspace (for "outside the sandbox" targets). */
export function makeTempDir(prefix = 'toolgate-outside-'): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}
