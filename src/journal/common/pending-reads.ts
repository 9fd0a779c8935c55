import type { ReadRecord } from '../../tools/fs/read-cache.js';
import { readKey } from '../journal-records.js';

/**
 * A read-cache change waiting for the next commit; `record: null` forgets the file, `at` (ms)
 * being when (a store that keeps forgotten files as rows writes it; older staged lines may lack it).
 */
export type PendingRead = { session: string; path: string; record: ReadRecord | null; at?: number };

/**
 * Read-cache changes waiting for the next commit. A tool records what it read while its call runs;
 * the call's result is the next commit, so they ride in it instead of paying a commit of their
 * own, and are exactly as durable as that result. The newest change per session and file wins.
 */
export class PendingReads {
  readonly #byKey = new Map<string, PendingRead>();

  /** How many changes wait. */
  get size(): number {
    return this.#byKey.size;
  }

  /** The change waiting for this file, if any. */
  get(session: string, file: string): PendingRead | undefined {
    return this.#byKey.get(readKey(session, file));
  }

  put(session: string, file: string, record: ReadRecord): void {
    this.#byKey.set(readKey(session, file), { session, path: file, record });
  }

  /** The file is forgotten (as of `at`). */
  forget(session: string, file: string, at?: number): void {
    this.#byKey.set(
      readKey(session, file),
      at === undefined ? { session, path: file, record: null } : { session, path: file, record: null, at },
    );
  }

  /** The changes waiting, for the next commit to carry (undefined: none). */
  pending(): PendingRead[] | undefined {
    return this.#byKey.size === 0 ? undefined : [...this.#byKey.values()];
  }

  /** The commit carrying `reads` is done: each is too, unless it was changed again since. */
  written(reads: readonly PendingRead[] | undefined): void {
    if (!reads) return;
    for (const r of reads) {
      const key = readKey(r.session, r.path);
      if (this.#byKey.get(key) === r) this.#byKey.delete(key);
    }
  }
}
