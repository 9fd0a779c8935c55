import type { ToolEvent } from '../core/tool-event.js';

/**
 * A bounded event queue between the executor and a UI (seed 000 FR-OUT-01). When full it never
 * drops: a new chunk is merged into the last queued chunk of the same call and stream, so memory
 * stays bounded and order is kept (Started before chunks, Completed after the last chunk).
 * The consumer reads with `for await`; `close()` ends the iteration after the queue drains.
 */
export class EventChannel implements AsyncIterable<ToolEvent> {
  readonly #capacity: number;
  readonly #maxChunkBytes: number;
  readonly #queue: ToolEvent[] = [];
  #closed = false;
  #wake: (() => void) | undefined;
  #coalesced = 0;

  constructor(options: { capacity?: number; maxChunkBytes?: number } = {}) {
    this.#capacity = Math.max(2, options.capacity ?? 256);
    this.#maxChunkBytes = options.maxChunkBytes ?? 1 << 20;
  }

  /** How many chunks were merged into earlier ones because the queue was full. */
  get coalesced(): number {
    return this.#coalesced;
  }

  get size(): number {
    return this.#queue.length;
  }

  push(event: ToolEvent): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.#capacity && (event.type === 'stdout' || event.type === 'stderr')) {
      for (let i = this.#queue.length - 1; i >= 0; i--) {
        const queued = this.#queue[i] as ToolEvent;
        if (queued.callId !== event.callId) continue;
        if (queued.type === event.type) {
          if (queued.chunk.length + event.chunk.length > this.#maxChunkBytes) break;
          // Still plain ASCII only if both parts were (a writer may skip escaping on the flag).
          const chunk = queued.chunk + event.chunk;
          this.#queue[i] =
            queued.ascii && event.ascii
              ? { ...queued, chunk }
              : { type: queued.type, callId: queued.callId, chunk };
          this.#coalesced++;
          this.#notify();
          return;
        }
        // The other stream's chunk may be passed over; a lifecycle event may not (it would reorder).
        if (queued.type !== 'stdout' && queued.type !== 'stderr') break;
      }
    }
    // Lifecycle events (and chunks that cannot merge) always enter: the bound is soft by design,
    // since dropping would break the contract and every call adds at most a few of them.
    this.#queue.push(event);
    this.#notify();
  }

  close(): void {
    this.#closed = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ToolEvent> {
    for (;;) {
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}
