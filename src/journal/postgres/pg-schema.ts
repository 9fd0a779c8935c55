import { JournalError } from '../journal.js';
import { pgDdl } from '../schema/pg-ddl.js';
import { JOURNAL_TABLES } from '../schema/tables.js';
import type { SyncPg } from './sync-pg.js';

/**
 * The PostgreSQL journal's schema, versioned like the SQLite one: `toolgate_schema.version` holds
 * how many migrations ran; they only ever append. The tables and columns mirror SQLite's (times in
 * ms since the epoch, JSON as text), with `seq` columns where SQLite has a rowid. The migrations
 * bring a database an older toolgate made to the current schema, which ../schema/tables.ts
 * describes; a new database is made from that description at once.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    batch_id TEXT,
    call_id TEXT,
    content TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX messages_created ON messages(created_at);
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    seq BIGSERIAL NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    status TEXT NOT NULL,
    assistant_text TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT,
    owner TEXT
  );
  CREATE INDEX batches_incomplete ON batches(created_at) WHERE status IN ('open', 'awaiting_approval');
  CREATE INDEX batches_created ON batches(created_at);
  CREATE TABLE calls (
    batch_id TEXT NOT NULL REFERENCES batches(id),
    call_index INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    status TEXT NOT NULL,
    decision TEXT,
    approval TEXT,
    result TEXT,
    discarded_result TEXT,
    started_at BIGINT,
    finished_at BIGINT,
    PRIMARY KEY (batch_id, call_index)
  );
  CREATE INDEX calls_name_started ON calls(name, started_at);
  CREATE TABLE read_cache (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    read_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, path)
  );
  CREATE TABLE grants (
    id BIGSERIAL PRIMARY KEY,
    session_id TEXT,
    tool TEXT NOT NULL,
    prefix TEXT,
    scope TEXT NOT NULL CHECK (scope IN ('session', 'project')),
    created_at BIGINT NOT NULL
  );
  CREATE INDEX grants_session ON grants(session_id);
  CREATE TABLE todos (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    task TEXT NOT NULL,
    completed BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, position)
  );
  CREATE TABLE governance_modes (
    seq BIGSERIAL PRIMARY KEY,
    mode TEXT NOT NULL,
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE refusals (at BIGINT NOT NULL);
  CREATE INDEX refusals_at ON refusals(at);
  `,
  // Workers and leases (issue #17 §2): who holds an incomplete batch, and until when (server clock).
  `
  ALTER TABLE batches ADD COLUMN lease_owner TEXT, ADD COLUMN lease_expires BIGINT;
  CREATE INDEX batches_lease ON batches(lease_expires) WHERE status IN ('open', 'awaiting_approval');
  `,
  // Approvals from anywhere (issue #17 §3): a person's answer to a waiting call, bound to its preview.
  `
  CREATE TABLE approval_answers (
    batch_id TEXT NOT NULL,
    call_index INTEGER NOT NULL,
    approved BOOLEAN NOT NULL,
    scope TEXT,
    reason TEXT,
    preview TEXT NOT NULL,
    answered_by TEXT NOT NULL,
    answered_at BIGINT NOT NULL,
    PRIMARY KEY (batch_id, call_index)
  );
  `,
  // Batches given up on (review lead H1): the server did not answer their first commit, the model
  // was told they did not run; if that commit lands after all, the batch is settled, never run.
  // `worker`: the lease of the process that gave up, the only one that settling may pass over.
  `
  CREATE TABLE given_up_batches (id TEXT PRIMARY KEY, at BIGINT NOT NULL, worker TEXT);
  `,
  // Grants as narrow as what was shown (issue #30 §5): what a non-command grant covers, as JSON.
  // Older rows have neither this nor a prefix: tool-wide then, covering nothing now (grant-rows.ts).
  `
  ALTER TABLE grants ADD COLUMN covers TEXT;
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** One lock for schema changes, so processes opening a new database at once migrate it once. */
const MIGRATION_LOCK = 7_461_001;

/**
 * Brings the database to PG_SCHEMA_VERSION inside one transaction holding an advisory lock (a new
 * one, at version 0, from the description): a migration another process finished while this one
 * waited is skipped, never run twice.
 */
export function migratePg(pg: SyncPg): void {
  const version = (): number => {
    const exists = pg.query<{ t: string | null }>("SELECT to_regclass('toolgate_schema')::text AS t").rows[0]
      ?.t;
    if (!exists) return 0;
    return pg.query<{ version: number }>('SELECT version FROM toolgate_schema').rows[0]?.version ?? 0;
  };
  const refuseNewer = (v: number) => {
    if (v > PG_SCHEMA_VERSION)
      throw new JournalError(
        `the PostgreSQL journal has schema version ${v}, newer than this toolgate understands (${PG_SCHEMA_VERSION}); upgrade toolgate`,
      );
  };
  const current = version();
  refuseNewer(current);
  if (current === PG_SCHEMA_VERSION) return;
  pg.query('BEGIN');
  try {
    pg.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    pg.query('CREATE TABLE IF NOT EXISTS toolgate_schema (version INTEGER NOT NULL)');
    const rows = pg.query<{ version: number }>('SELECT version FROM toolgate_schema').rows;
    if (rows.length === 0) pg.query('INSERT INTO toolgate_schema (version) VALUES (0)');
    let v = rows[0]?.version ?? 0;
    refuseNewer(v);
    if (v === 0) pg.query(pgDdl(JOURNAL_TABLES));
    else for (; v < PG_SCHEMA_VERSION; v++) pg.query(PG_MIGRATIONS[v] as string);
    pg.query('UPDATE toolgate_schema SET version = $1', [PG_SCHEMA_VERSION]);
    pg.query('COMMIT');
  } catch (error) {
    pg.query('ROLLBACK');
    throw error;
  }
}
