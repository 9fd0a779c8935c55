import { hash } from 'node:crypto';

/** What the session last saw of a file (seed 000 FR-TOOL-PATCH-02c). */
export interface ReadRecord {
  /** SHA-256 of the whole file's bytes, hex. */
  sha256: string;
  /** When it was read (ms since epoch). */
  readAt: number;
}

/**
 * The per-session read-before-write cache: canonical path → content hash at last read. An interface
 * so the journal can persist it per session later; this module holds the in-memory version.
 */
export interface ReadCache {
  get(canonicalPath: string): ReadRecord | undefined;
  record(canonicalPath: string, sha256: string, at?: number): void;
  /**
   * Records the hash of `content` (which must not change afterwards), possibly computed later.
   * Optional: without it the hash is computed at once and given to `record`.
   */
  recordContent?(canonicalPath: string, content: Uint8Array | string, at?: number): void;
  /**
   * After this session wrote the file: its content is known, whatever was recorded before, so a
   * store need not look first. Optional: without it (and `recordContent`), `record` is used.
   */
  recordWrite?(canonicalPath: string, sha256: string): void;
  forget(canonicalPath: string): void;
}

/** Content read and not hashed yet, with when it was read. */
interface Unhashed {
  content: Uint8Array | string;
  at: number;
}

/** Most bytes of read content the memory cache holds unhashed; beyond it the oldest are hashed. */
const MAX_UNHASHED_BYTES = 8 * 1024 * 1024;

/**
 * The in-memory cache hashes what was read only when the hash is needed (a write checks it) or
 * when too much is waiting: the hash is off the read's path, and most reads are never written.
 */
export class MemoryReadCache implements ReadCache {
  readonly #entries = new Map<string, ReadRecord>();
  readonly #unhashed = new Map<string, Unhashed>();
  #unhashedBytes = 0;

  get(canonicalPath: string): ReadRecord | undefined {
    const pending = this.#unhashed.get(canonicalPath);
    if (pending) this.#hash(canonicalPath, pending);
    return this.#entries.get(canonicalPath);
  }

  record(canonicalPath: string, sha256: string, at = Date.now()): void {
    this.#drop(canonicalPath);
    this.#entries.set(canonicalPath, { sha256, readAt: at });
  }

  recordContent(canonicalPath: string, content: Uint8Array | string, at = Date.now()): void {
    this.#drop(canonicalPath);
    this.#entries.delete(canonicalPath);
    this.#unhashed.set(canonicalPath, { content, at });
    this.#unhashedBytes += content.length;
    for (const [file, pending] of this.#unhashed) {
      if (this.#unhashedBytes <= MAX_UNHASHED_BYTES) break;
      this.#hash(file, pending);
    }
  }

  forget(canonicalPath: string): void {
    this.#drop(canonicalPath);
    this.#entries.delete(canonicalPath);
  }

  #drop(canonicalPath: string): void {
    const pending = this.#unhashed.get(canonicalPath);
    if (!pending) return;
    this.#unhashed.delete(canonicalPath);
    this.#unhashedBytes -= pending.content.length;
  }

  #hash(canonicalPath: string, pending: Unhashed): void {
    this.#drop(canonicalPath);
    this.#entries.set(canonicalPath, { sha256: sha256(pending.content), readAt: pending.at });
  }
}

export function sha256(data: Uint8Array | string): string {
  // One-shot hashing: no Hash object per call (2-3x faster for the small files most reads are).
  return hash('sha256', data, 'hex');
}
