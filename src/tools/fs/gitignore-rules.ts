import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import ignore, { type Ignore } from 'ignore';

const MAX_GITIGNORE_BYTES = 1 << 20;

/**
 * The .gitignore files that apply while walking a tree: each file's patterns are relative to its own
 * directory (nested files too). Paths given here are relative to the walk's root, with `/` separators.
 */
export class GitignoreRules {
  readonly #layers: readonly { base: string; rules: Ignore }[];

  private constructor(layers: readonly { base: string; rules: Ignore }[]) {
    this.#layers = layers;
  }

  static empty(): GitignoreRules {
    return new GitignoreRules([]);
  }

  /** Adds the .gitignore found in `dirPath` (opened without following links), for paths under `base`. */
  async descend(dirPath: string, base: string): Promise<GitignoreRules> {
    const text = await readSmallFile(`${dirPath}/.gitignore`);
    if (text === undefined) return this;
    return new GitignoreRules([...this.#layers, { base, rules: ignore().add(text) }]);
  }

  ignores(relative: string, isDirectory: boolean): boolean {
    for (const layer of this.#layers) {
      const prefix = layer.base === '' ? '' : `${layer.base}/`;
      if (prefix && !relative.startsWith(prefix)) continue;
      const inner = relative.slice(prefix.length);
      if (inner && layer.rules.ignores(isDirectory ? `${inner}/` : inner)) return true;
    }
    return false;
  }
}

export async function readSmallFile(file: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_GITIGNORE_BYTES) return undefined;
    return (await handle.readFile()).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * The same read, synchronous: a missing .gitignore (the usual case) costs one failed open
 * instead of a trip through the thread pool, which matters when a walk checks thousands of folders.
 */
export function readSmallFileSync(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_GITIGNORE_BYTES) return undefined;
    return readFileSync(fd).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
