// A throwaway PostgreSQL server per test file (issue #17): see bench/postgres-server.js, which the
// bench uses too.
export { type PgServer, pgProgram, startPostgres } from '../../bench/postgres-server.js';
