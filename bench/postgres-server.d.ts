// Types of bench/postgres-server.js, shared by the tests (test/helpers/postgres.ts) and the bench.
export interface PgServer {
  /** A URL for a database on this server (default `postgres`). */
  url(database?: string): string;
  /** A new, empty database (for one journal); its URL. */
  createDatabase(): string;
  /** The server's directory (its data, its log, and its Unix socket). */
  dir: string;
  /** The server down (fast shutdown), its data kept: `start` brings it back. */
  halt(): void;
  start(): void;
  stop(): void;
}
export function startPostgres(settings?: Record<string, string | number>): PgServer;
export function pgProgram(name: string): string;
