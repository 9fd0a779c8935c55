import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';

/** A server of its own: this file takes it down and brings it back. */
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

describe('the PostgreSQL connection after the server was down', () => {
  it('requests while it is down fail at once; the first request once it is back succeeds, without waiting out the timeout', () => {
    const pg = SyncPg.connect(server.createDatabase(), 20_000);
    try {
      expect(pg.query<{ n: number }>('SELECT 1 AS n').rows).toEqual([{ n: 1 }]);
      server.halt();
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        expect(() => pg.query('SELECT 1')).toThrow();
        expect(performance.now() - t).toBeLessThan(10_000); // a refusal, not the 20 s timeout
      }
      server.start();
      const t = performance.now();
      expect(pg.query<{ n: number }>('SELECT 2 AS n').rows).toEqual([{ n: 2 }]);
      expect(performance.now() - t).toBeLessThan(10_000);
    } finally {
      pg.close();
    }
  }, 90_000);

  // Found once by `npm run bench` (pg-workers, many processes): "the PostgreSQL journal worker
  // answered request 81 when 82 was asked". The worker raises its flag and then notifies; a request
  // that found the flag raised never slept, and that notify could then wake the next request before
  // its answer existed. The wait now lasts until the flag is raised. Not reproduced on demand (the
  // window is a preemption between two instructions): this checks the property over many requests.
  it('every answer is its own request’s, over thousands of back-to-back requests from several connections', () => {
    const url = server.createDatabase();
    const pgs = Array.from({ length: 3 }, () => SyncPg.connect(url, 20_000));
    try {
      for (let i = 0; i < 3000; i++) {
        const pg = pgs[i % pgs.length] as SyncPg;
        expect(pg.query<{ n: number }>('SELECT $1::int AS n', [i]).rows).toEqual([{ n: i }]);
      }
    } finally {
      for (const pg of pgs) pg.close();
    }
  }, 120_000);
});
