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
  readonly #url: string;
  readonly #timeoutMs: number;
  /**
   * The flag the worker raises when it answered: one per worker, so a worker dropped while it
   * still worked can never wake (and so misalign) the requests of the one after it.
   */
  #flag = new Int32Array(new SharedArrayBuffer(4));
  /** Numbers each request; its answer must carry the same number. */
  #seq = 0;
  /** The connection: made on first use, and made again after one was lost or timed out. */
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  #closed = false;

  /** How long starting a connection (its worker thread, then the server's handshake) may take. */
  readonly #connectTimeoutMs: number;

  private constructor(url: string, timeoutMs: number, connectTimeoutMs: number) {
    this.#url = url;
    this.#timeoutMs = timeoutMs;
    this.#connectTimeoutMs = connectTimeoutMs;
  }

  /**
   * `timeoutMs` bounds every request; `connectTimeoutMs` (default: the same) bounds making each
   * connection, which also starts a worker thread: on a loaded machine that alone can outlast a
   * request timeout chosen for a fast server.
   */
  static connect(url: string, timeoutMs = 30_000, connectTimeoutMs = timeoutMs): SyncPg {
    const pg = new SyncPg(url, timeoutMs, connectTimeoutMs);
    try {
      pg.#open();
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
      if (this.#worker) this.#send({ type: 'end' }, 5_000);
    } catch {
      // A connection already gone: nothing to end.
    }
    this.#closed = true;
    this.#drop();
  }

  #open(): void {
    const worker = new Worker(workerFile());
    this.#flag = new Int32Array(new SharedArrayBuffer(4));
    // The worker never keeps the process alive: every request is awaited synchronously anyway.
    worker.unref();
    const { port1, port2 } = new MessageChannel();
    worker.postMessage(
      {
        port: port2,
        flag: this.#flag,
        url: this.#url,
        applicationName: 'toolgate',
        // The server gives up on a statement before this side does: a write this side reports as
        // failed is then one the server did not commit (a commit is not left in doubt).
        statementTimeoutMs: Math.max(100, Math.floor(this.#timeoutMs * 0.8)),
      },
      [port2],
    );
    this.#worker = worker;
    this.#port = port1;
    this.#send({ type: 'connect' }, this.#connectTimeoutMs);
  }

  #drop(): void {
    void this.#worker?.terminate();
    this.#port?.close();
    this.#worker = undefined;
    this.#port = undefined;
  }

  #request(request: PgRequest): NonNullable<PgAnswer['results']> {
    if (this.#closed) throw new JournalError('the PostgreSQL journal is closed');
    // A connection lost earlier (a server restart, a failover): this request gets a new one.
    if (!this.#worker) this.#open();
    return this.#send(request);
  }

  #send(request: PgRequest, timeoutMs = this.#timeoutMs): NonNullable<PgAnswer['results']> {
    const port = this.#port as MessagePort;
    const flag = this.#flag;
    const seq = ++this.#seq;
    Atomics.store(flag, 0, 0);
    port.postMessage({ ...request, seq });
    // Until the flag is raised, not merely until a wake-up: the worker raises it and then notifies,
    // so the previous answer's notify can arrive after this request began waiting.
    const deadline = performance.now() + timeoutMs;
    while (Atomics.load(flag, 0) === 0) {
      const left = deadline - performance.now();
      if (left <= 0 || Atomics.wait(flag, 0, 0, left) === 'timed-out') {
        // The connection is in an unknown state: it is not used again (the next request makes one).
        this.#drop();
        throw new JournalError(
          `PostgreSQL did not answer within ${timeoutMs} ms; check the server (this connection is dropped; the next write makes a new one)`,
          { outcomeUnknown: true },
        );
      }
    }
    const message = receiveMessageOnPort(port)?.message as PgAnswer | undefined;
    if (!message) {
      this.#drop();
      throw new JournalError(
        'the PostgreSQL journal worker raised its flag with no answer; the connection is dropped (the next request makes a new one)',
        { outcomeUnknown: true },
      );
    }
    if (message.seq !== seq) {
      // Never used as this request's answer: the connection is in an unknown state, and is dropped.
      this.#drop();
      throw new JournalError(
        `the PostgreSQL journal worker answered request ${String(message.seq)} when ${seq} was asked; the connection is dropped (the next request makes a new one)`,
      );
    }
    if (message.error) {
      // Not a SQLSTATE (none, or Node's own like ECONNREFUSED or ENOENT): the connection itself
      // failed, or was never made; a connection exception (08…) or a shutdown (57P…) too. The next
      // request makes a new one (kept, a worker that never connected made the next request wait out
      // its whole timeout).
      const code = message.error.code;
      if (!code || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57P)/.test(code)) this.#drop();
      throw new PgError(message.error.message, message.error.code);
    }
    return message.results ?? [];
  }
}
