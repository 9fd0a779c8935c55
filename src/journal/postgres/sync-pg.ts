import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { JournalError } from '../journal.js';
import type { PgAnswer, PgRequest } from './pg-worker.js';

export interface PgResult<R = Record<string, unknown>> {
  rows: R[];
  rowCount: number;
}

export interface PgStatement {
  text: string;
  values?: unknown[];
}

/** A PostgreSQL error as the journal reports it: the server's SQLSTATE code kept apart. */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Where the worker's code is: beside this module (dist/journal/postgres), the CLI bundle, or dist from the sources. */
function workerFile(): URL {
  for (const candidate of [
    './pg-worker.js',
    '../pg-worker.js',
    '../../../dist/journal/postgres/pg-worker.js',
  ]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new JournalError('the PostgreSQL journal worker (pg-worker.js) is missing; run npm run build');
}

/**
 * A synchronous PostgreSQL connection: the Journal interface is synchronous (a SQLite call returns
 * when its commit is done), so each request goes to a worker thread holding a node-postgres client,
 * and this thread waits on a shared flag (Atomics.wait) for the answer. A request that gets no
 * answer within `timeoutMs` is a JournalError: a journal that cannot commit stops the batch.
 */
export class SyncPg {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag = new Int32Array(new SharedArrayBuffer(4));
  readonly #timeoutMs: number;
  #closed = false;

  private constructor(url: string, timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#worker = new Worker(workerFile());
    // The worker never keeps the process alive: every request is awaited synchronously anyway.
    this.#worker.unref();
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker.postMessage({ port: port2, flag: this.#flag, url, applicationName: 'toolgate' }, [port2]);
  }

  static connect(url: string, timeoutMs = 30_000): SyncPg {
    const pg = new SyncPg(url, timeoutMs);
    try {
      pg.#request({ type: 'connect' });
    } catch (error) {
      pg.close();
      throw error;
    }
    return pg;
  }

  query<R = Record<string, unknown>>(text: string, values: unknown[] = []): PgResult<R> {
    return this.#request({ type: 'query', text, values })[0] as PgResult<R>;
  }

  /** The statements in one transaction, one round trip; the results in order. */
  transaction(statements: readonly PgStatement[]): PgResult[] {
    return this.#request({ type: 'transaction', statements: [...statements] });
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#request({ type: 'end' }, 5_000);
    } catch {
      // A connection already gone: nothing to end.
    }
    this.#closed = true;
    void this.#worker.terminate();
    this.#port.close();
  }

  #request(request: PgRequest, timeoutMs = this.#timeoutMs): NonNullable<PgAnswer['results']> {
    if (this.#closed) throw new JournalError('the PostgreSQL journal is closed');
    Atomics.store(this.#flag, 0, 0);
    this.#port.postMessage(request);
    if (Atomics.wait(this.#flag, 0, 0, timeoutMs) === 'timed-out') {
      // The connection is in an unknown state: no later request may use it.
      this.#closed = true;
      void this.#worker.terminate();
      throw new JournalError(
        `PostgreSQL did not answer within ${Math.round(timeoutMs / 1000)} s; check the server (nothing more is written through this connection)`,
      );
    }
    const message = receiveMessageOnPort(this.#port)?.message as PgAnswer | undefined;
    if (!message) throw new JournalError('the PostgreSQL journal worker answered nothing');
    if (message.error) throw new PgError(message.error.message, message.error.code);
    return message.results ?? [];
  }
}
