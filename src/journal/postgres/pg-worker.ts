import { type MessagePort, parentPort } from 'node:worker_threads';
import pg from 'pg';
import { inlineStatement } from './inline-sql.js';

/**
 * The PostgreSQL connection of one journal, in a worker thread: `SyncPg` on the main thread posts
 * a request and sleeps on a shared flag until this answers (the journal's interface is synchronous,
 * node-postgres is not). One connection, requests in order. A query goes with its parameters; a
 * transaction's statements go as one simple query (their values written in as literals by
 * inlineStatement): one round trip, and PostgreSQL runs them as one implicit transaction.
 */
export interface PgRequest {
  type: 'connect' | 'query' | 'transaction' | 'end';
  /** Given back with the answer (SyncPg checks it is the answer to this request). */
  seq?: number;
  text?: string;
  values?: unknown[];
  /** For `transaction`: run in order, all or nothing. */
  statements?: { text: string; values?: unknown[] }[];
}

export interface PgAnswer {
  seq?: number;
  results?: { rows: Record<string, unknown>[]; rowCount: number }[];
  error?: { message: string; code?: string };
}

// BIGINT (times in ms, counts) as numbers: every value the journal keeps is far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

interface Setup {
  port: MessagePort;
  flag: Int32Array;
  url: string;
  applicationName: string;
  statementTimeoutMs: number;
}

type Result = { rows: Record<string, unknown>[]; rowCount: number };
const asResult = (r: pg.QueryResult): Result => ({ rows: r.rows, rowCount: r.rowCount ?? 0 });

parentPort?.once('message', ({ port, flag, url, applicationName, statementTimeoutMs }: Setup) => {
  const client = new pg.Client({
    connectionString: url,
    application_name: applicationName,
    statement_timeout: statementTimeoutMs,
  });
  // A connection lost between requests: the next request fails with the reason, not the process.
  client.on('error', () => {});
  const answer = (a: PgAnswer) => {
    port.postMessage(a);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  };
  const run = async (request: PgRequest): Promise<PgAnswer> => {
    switch (request.type) {
      case 'connect':
        await client.connect();
        return { results: [] };
      case 'end':
        await client.end();
        return { results: [] };
      case 'query':
        return { results: [asResult(await client.query(request.text ?? '', request.values ?? []))] };
      case 'transaction': {
        const statements = request.statements ?? [];
        if (statements.length === 0) return { results: [] };
        const text = statements.map((s) => inlineStatement(s.text, s.values)).join(';\n');
        // One statement answers with one result, several with a list.
        const out = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
        return { results: (Array.isArray(out) ? out : [out]).map(asResult) };
      }
    }
  };
  port.on('message', (request: PgRequest) => {
    const seq = request.seq;
    run(request).then(
      (a) => answer({ ...a, seq }),
      (error: Error & { code?: string }) =>
        answer({ seq, error: { message: error.message, ...(error.code ? { code: error.code } : {}) } }),
    );
  });
});
