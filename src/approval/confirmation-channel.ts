import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';

export class ConfirmationTimeoutError extends Error {
  constructor(readonly correlationId: string) {
    super('confirmation request timed out');
    this.name = 'ConfirmationTimeoutError';
  }
}

export class ConfirmationCancelledError extends Error {
  constructor(readonly correlationId: string) {
    super('confirmation request cancelled');
    this.name = 'ConfirmationCancelledError';
  }
}

export interface PendingConfirmation {
  correlationId: string;
  request: ConfirmationRequest;
  timeoutMs: number;
}

interface Waiter {
  resolve(approved: boolean): void;
  reject(error: Error): void;
  cleanup(): void;
}

/**
 * The confirmation message bus (seed 001, Properties 38-42): each request gets a unique
 * correlation id, a response reaches exactly its requester, no answer in time rejects, an abort
 * rejects. A UI listens for 'request' and calls `respond`. State is per instance.
 */
export class ConfirmationChannel {
  readonly #events = new EventEmitter();
  readonly #pending = new Map<string, Waiter>();
  readonly #defaultTimeoutMs: number;

  constructor(options: { timeoutMs?: number } = {}) {
    this.#defaultTimeoutMs = options.timeoutMs ?? 60_000;
  }

  onRequest(listener: (pending: PendingConfirmation) => void): () => void {
    this.#events.on('request', listener);
    return () => this.#events.off('request', listener);
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  request(
    request: ConfirmationRequest,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<boolean> {
    const correlationId = randomUUID();
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    const { signal } = options;
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new ConfirmationCancelledError(correlationId));
        return;
      }
      const onAbort = () => {
        waiter.cleanup();
        reject(new ConfirmationCancelledError(correlationId));
      };
      const timer = setTimeout(() => {
        waiter.cleanup();
        reject(new ConfirmationTimeoutError(correlationId));
      }, timeoutMs);
      const waiter: Waiter = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.#pending.delete(correlationId);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(correlationId, waiter);
      this.#events.emit('request', { correlationId, request, timeoutMs } satisfies PendingConfirmation);
    });
  }

  /** Delivers an answer; returns false when no request with that id is waiting (late or unknown). */
  respond(correlationId: string, approved: boolean): boolean {
    const waiter = this.#pending.get(correlationId);
    if (!waiter) return false;
    waiter.cleanup();
    waiter.resolve(approved);
    return true;
  }

  /** An Approver that asks every request of a batch on this channel concurrently. */
  approver(options: { timeoutMs?: number } = {}): Approver {
    return async (requests, signal): Promise<ApprovalDecision> => {
      const answers = await Promise.all(
        requests.map((request) =>
          this.request(request, {
            signal,
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          }).catch(
            () => false, // timeout or abort: a denial, never an allow
          ),
        ),
      );
      const ids = requests.filter((_, i) => answers[i]).map((r) => r.callId);
      return { kind: 'approve_selected', ids };
    };
  }
}
