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
});
