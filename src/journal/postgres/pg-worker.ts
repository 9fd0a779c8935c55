import { type MessagePort, parentPort } from 'node:worker_threads';
import pg from 'pg';

/**
 * The PostgreSQL connection of one journal, in a worker thread: `SyncPg` on the main thread posts
 * a request and sleeps on a shared flag until this answers (the journal's interface is synchronous,
 * node-postgres is not). One connection, requests in order: a transaction is requests in a row.
 */
export interface PgRequest {
  type: 'connect' | 'query' | 'transaction' | 'end';
  text?: string;
  values?: unknown[];
  /** For `transaction`: run in order between BEGIN and COMMIT (ROLLBACK on the first error). */
  statements?: { text: string; values?: unknown[] }[];
}

export interface PgAnswer {
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
}

parentPort?.once('message', ({ port, flag, url, applicationName }: Setup) => {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
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
      case 'query': {
        const r = await client.query({ text: request.text ?? '', values: request.values ?? [] });
        return { results: [{ rows: r.rows, rowCount: r.rowCount ?? 0 }] };
      }
      case 'transaction': {
        const results: NonNullable<PgAnswer['results']> = [];
        await client.query('BEGIN');
        try {
          for (const s of request.statements ?? []) {
            const r = await client.query({ text: s.text, values: s.values ?? [] });
            results.push({ rows: r.rows, rowCount: r.rowCount ?? 0 });
          }
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
        return { results };
      }
    }
  };
  port.on('message', (request: PgRequest) => {
    run(request).then(answer, (error: Error & { code?: string }) =>
      answer({ error: { message: error.message, ...(error.code ? { code: error.code } : {}) } }),
    );
  });
});
