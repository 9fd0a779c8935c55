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
  forget(canonicalPath: string): void;
}

export class MemoryReadCache implements ReadCache {
  readonly #entries = new Map<string, ReadRecord>();

  get(canonicalPath: string): ReadRecord | undefined {
    return this.#entries.get(canonicalPath);
  }

  record(canonicalPath: string, sha256: string, at = Date.now()): void {
    this.#entries.set(canonicalPath, { sha256, readAt: at });
  }

  forget(canonicalPath: string): void {
    this.#entries.delete(canonicalPath);
  }
}

export function sha256(data: Uint8Array | string): string {
  // One-shot hashing: no Hash object per call (2-3x faster for the small files most reads are).
  return hash('sha256', data, 'hex');
}
