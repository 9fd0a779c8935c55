import type BetterSqlite3 from 'better-sqlite3';
import { sqliteDdl } from './schema/sqlite-ddl.js';
import { JOURNAL_TABLES } from './schema/tables.js';

/**
 * Versioned schema: `PRAGMA user_version` holds how many migrations ran. Migrations only ever
 * append; an older toolgate refuses a newer file instead of guessing. They bring a file an older
 * toolgate made to the current schema, which schema/tables.ts describes; a new file is made from
 * that description at once.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    batch_id TEXT,
    call_id TEXT,
    content TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    status TEXT NOT NULL,
    assistant_text TEXT,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
  );
  CREATE INDEX batches_status ON batches(status, created_at);
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
    started_at INTEGER,
    finished_at INTEGER,
    PRIMARY KEY (batch_id, call_index)
  );
  CREATE INDEX calls_name_started ON calls(name, started_at);
  CREATE TABLE read_cache (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    read_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, path)
  );
  `,
  `
  CREATE TABLE grants (
    id INTEGER PRIMARY KEY,
    session_id TEXT,
    tool TEXT NOT NULL,
    prefix TEXT,
    scope TEXT NOT NULL CHECK (scope IN ('session', 'project')),
    created_at INTEGER NOT NULL
  );
  CREATE INDEX grants_session ON grants(session_id);
  `,
  // Which process journaled a batch (host:pid:start): recovery leaves a live one's batches alone.
  `
  ALTER TABLE batches ADD COLUMN owner TEXT;
  `,
  // Only incomplete batches are looked up by status: a batch journaled complete touches no index page.
  `
  DROP INDEX batches_status;
  CREATE INDEX batches_incomplete ON batches(created_at) WHERE status IN ('open', 'awaiting_approval');
  `,
  // The index for per-hour rate limits costs every commit a page; it is made when a rate limit is
  // first counted on this journal (SqliteJournal.countCallsSince), so only journals that use one pay.
  `
  DROP INDEX IF EXISTS calls_name_started;
  `,
  // write_todos: each session's list, in order (issue #15).
  `
  CREATE TABLE todos (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    task TEXT NOT NULL,
    completed INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, position)
  );
  `,
  // Governance modes as set at run time (issue #16): every process on this journal sees the last.
  `
  CREATE TABLE governance_modes (
    seq INTEGER PRIMARY KEY,
    mode TEXT NOT NULL,
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // Refused calls by time, for the automatic governor's LOCKDOWN threshold across processes.
  `
  CREATE TABLE refusals (at INTEGER NOT NULL);
  CREATE INDEX refusals_at ON refusals(at);
  `,
  // Workers and leases (issue #17): who holds an incomplete batch, and until when.
  `
  ALTER TABLE batches ADD COLUMN lease_owner TEXT;
  ALTER TABLE batches ADD COLUMN lease_expires INTEGER;
  `,
  // Approvals from anywhere (issue #17 §3): a person's answer to a waiting call, bound to its preview.
  `
  CREATE TABLE approval_answers (
    batch_id TEXT NOT NULL,
    call_index INTEGER NOT NULL,
    approved INTEGER NOT NULL,
    scope TEXT,
    reason TEXT,
    preview TEXT NOT NULL,
    answered_by TEXT NOT NULL,
    answered_at INTEGER NOT NULL,
    PRIMARY KEY (batch_id, call_index)
  );
  `,
  // Read-only batches as they finish, one row each (a commit writes one page, not the four that a
  // batch and its calls with their keys take), moved into batches and calls off the reply's path
  // (SqliteJournal#fold): every reader folds first, so none ever sees them apart.
  `
  CREATE TABLE staged_batches (
    seq INTEGER PRIMARY KEY,
    body TEXT NOT NULL
  );
  `,
  // Read-only batches staged in a file per process instead (staging-files.ts): how far each file
  // is folded, so every process folds every line once.
  `
  CREATE TABLE staged_files (
    name TEXT PRIMARY KEY,
    folded INTEGER NOT NULL
  );
  `,
  // How big each file was when last looked at, so a half line that never grows is not read again
  // by every reader. A migration of its own: journals made with version 12 exist.
  `
  ALTER TABLE staged_files ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;
  `,
  // Grants as narrow as what was shown (issue #30 §5): what a non-command grant covers (files, a
  // directory, an origin, exact arguments) as JSON. Older rows have neither this nor a prefix:
  // they were tool-wide and now cover nothing (grant-rows.ts) until revoked.
  `
  ALTER TABLE grants ADD COLUMN covers TEXT;
  `,
  // State toolgate did not make (issue #30): grants, approval answers, governance modes and batches
  // (a worker takes them over on its own) carry an HMAC by this user's seal key (state-seal.ts).
  // Rows from before have none and count for nothing: a journal committed to a repository must not
  // bring its own grants by being migrated.
  `
  ALTER TABLE grants ADD COLUMN seal TEXT;
  ALTER TABLE approval_answers ADD COLUMN seal TEXT;
  ALTER TABLE governance_modes ADD COLUMN seal TEXT;
  ALTER TABLE batches ADD COLUMN seal TEXT;
  `,
];

export const SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

/**
 * Brings the file to SCHEMA_VERSION: a new one (version 0) in one step, from the description; an
 * older one a migration at a time. Safe when many processes open a new file at once: the version
 * is read again inside each write transaction (BEGIN IMMEDIATE takes the write lock first), so a
 * migration another process finished while this one waited is skipped, never run twice.
 */
export function migrate(db: BetterSqlite3.Database): void {
  const readVersion = () => db.pragma('user_version', { simple: true }) as number;
  const refuseNewer = (version: number) => {
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `the journal has schema version ${version}, newer than this toolgate understands (${SCHEMA_VERSION}); upgrade toolgate`,
      );
    }
  };
  refuseNewer(readVersion());
  while (readVersion() < SCHEMA_VERSION) {
    db.transaction(() => {
      const version = readVersion();
      refuseNewer(version);
      if (version >= SCHEMA_VERSION) return;
      if (version === 0) {
        db.exec(sqliteDdl(JOURNAL_TABLES));
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
        return;
      }
      db.exec(SQLITE_MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
