import { ToolError } from '../../core/tool-error.js';
import type { ResolvedPath } from '../../sandbox/sandbox.js';
import { type ReadCache, sha256 } from './read-cache.js';

/**
 * Read-before-write (seed 000 FR-TOOL-PATCH-02a-d): changing an existing file needs a read of it in
 * this session, and the content must be what was read (by SHA-256, not mtime). `undefined` guard
 * means the check is switched off.
 */
export class StaleGuard {
  readonly #cache: ReadCache | undefined;

  constructor(cache: ReadCache | undefined) {
    this.#cache = cache;
  }

  /** Throws StaleFile unless `current` is what this session last read of `target`. */
  check(target: ResolvedPath, current: Uint8Array): void {
    if (!this.#cache) return;
    const seen = this.#cache.get(target.absolute);
    if (!seen) {
      throw new ToolError(
        'StaleFile',
        `"${target.relative}" was not read in this session; read it with read_file first, then retry`,
        { file: target.relative, reason: 'File was not read before patching' },
      );
    }
    if (seen.sha256 !== sha256(current)) {
      throw new ToolError(
        'StaleFile',
        `"${target.relative}" changed since it was last read; read it again with read_file and redo the change against the new content`,
        { file: target.relative, reason: 'File content changed since last read' },
      );
    }
  }

  /** After our own successful write the session knows the new content: no re-read needed. */
  remember(target: ResolvedPath, content: Uint8Array | string): void {
    const cache = this.#cache;
    if (!cache) return;
    if (cache.recordContent) cache.recordContent(target.absolute, content);
    else cache.record(target.absolute, sha256(content));
  }

  /**
   * As `remember`, after this session wrote `content` itself: a store that asks before recording a
   * read (another process of the session may have recorded newer content) need not ask here.
   */
  rememberWrite(target: ResolvedPath, content: Uint8Array | string): void {
    const cache = this.#cache;
    if (cache && !cache.recordContent && cache.recordWrite)
      cache.recordWrite(target.absolute, sha256(content));
    else this.remember(target, content);
  }

  /** As `remember`, for a hash computed while the file was streamed. */
  rememberHash(target: ResolvedPath, sha256Hex: string): void {
    this.#cache?.record(target.absolute, sha256Hex);
  }

  get enabled(): boolean {
    return this.#cache !== undefined;
  }

  forget(target: ResolvedPath): void {
    this.#cache?.forget(target.absolute);
  }
}
