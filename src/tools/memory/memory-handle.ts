import type { MemoryRetrieval } from './memory-retrieval.js';
import type { SqliteMemoryStore } from './memory-store.js';

export interface OpenMemory {
  store: SqliteMemoryStore;
  retrieval: MemoryRetrieval;
}

/**
 * The memory store shared by `memory` and the note tools of one session: opened on first use (a
 * command that never touches memory never opens its file), one connection for all five tools,
 * closed when the tools are disposed and opened again if used after that.
 */
export class MemoryHandle {
  #opened: OpenMemory | undefined;

  constructor(private readonly open: () => OpenMemory) {}

  get(): OpenMemory {
    this.#opened ??= this.open();
    return this.#opened;
  }

  close(): void {
    this.#opened?.store.close();
    this.#opened = undefined;
  }
}
