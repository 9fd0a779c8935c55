import type { Table } from './table-description.js';

/**
 * The journal's current schema, written once: each dialect makes a new database from it
 * (sqlite-ddl.ts, pg-ddl.ts), and each dialect's migrations bring an older one to it
 * (schema.ts, postgres/pg-schema.ts); test/journal/schema-agreement.test.ts checks that both
 * dialects' databases, new or migrated, are what it says. Tables come in an order that makes
 * each table's references before it.
 *
 * The two dialects count their migrations apart (SQLite's file has had more of them), so this is
 * the schema after `versions.sqlite` SQLite migrations and `versions.postgres` PostgreSQL ones:
 * add a migration, and this changes with it.
 */
export const JOURNAL_SCHEMA_VERSIONS = { sqlite: 15, postgres: 5 } as const;

// Which batches are still incomplete: open, or waiting for approval.
const INCOMPLETE = "status IN ('open', 'awaiting_approval')";

export const JOURNAL_TABLES: readonly Table[] = [
  {
    name: 'sessions',
    columns: [
      { name: 'id', type: 'text' },
      { name: 'created_at', type: 'bigint', notNull: true },
    ],
    primaryKey: ['id'],
  },
  {
    name: 'messages',
    columns: [
      { name: 'session_id', type: 'text', notNull: true, references: { table: 'sessions', column: 'id' } },
      { name: 'seq', type: 'integer', notNull: true },
      { name: 'role', type: 'text', notNull: true, check: "role IN ('user', 'assistant', 'tool')" },
      { name: 'batch_id', type: 'text' },
      { name: 'call_id', type: 'text' },
      { name: 'content', type: 'json', notNull: true },
      { name: 'created_at', type: 'bigint', notNull: true },
    ],
    primaryKey: ['session_id', 'seq'],
    indexes: [
      // PostgreSQL only, since its first schema, like batches_created below: pruning
      // (postgres/retention.ts) finds old rows by time through it. SQLite's journal has neither and
      // scans: it keeps the index pages each commit writes few (its migrations 4 and 5).
      { name: 'messages_created', columns: ['created_at'], only: 'postgres' },
    ],
  },
  {
    name: 'batches',
    columns: [
      { name: 'id', type: 'text' },
      // PostgreSQL has no rowid: `seq` is the order batches were written in, where SQLite orders
      // by rowid.
      { name: 'seq', type: 'serial', notNull: true, unique: true, only: 'postgres' },
      { name: 'session_id', type: 'text', notNull: true, references: { table: 'sessions', column: 'id' } },
      { name: 'status', type: 'text', notNull: true },
      { name: 'assistant_text', type: 'text' },
      { name: 'created_at', type: 'bigint', notNull: true },
      { name: 'finished_at', type: 'bigint' },
      // Which process journaled a batch (host:pid:start): recovery leaves a live one's batches alone.
      { name: 'owner', type: 'text' },
      // Workers and leases (issue #17): who holds an incomplete batch, and until when.
      { name: 'lease_owner', type: 'text' },
      { name: 'lease_expires', type: 'bigint' },
      // SQLite only: the HMAC by this user's seal key (state-seal.ts); a SQLite journal can come
      // from elsewhere. PostgreSQL's rows are guarded by the server's own access control
      // (docs/SECURITY.md, "Rows"). The same for grants, approval answers and governance modes.
      { name: 'seal', type: 'text', only: 'sqlite' },
    ],
    primaryKey: ['id'],
    indexes: [
      // Only incomplete batches are looked up by status: a batch journaled complete touches no index page.
      { name: 'batches_incomplete', columns: ['created_at'], where: INCOMPLETE },
      // PostgreSQL only (see messages_created): batches by time, and incomplete batches by when
      // their lease runs out, which workers look for.
      { name: 'batches_created', columns: ['created_at'], only: 'postgres' },
      { name: 'batches_lease', columns: ['lease_expires'], where: INCOMPLETE, only: 'postgres' },
    ],
  },
  {
    name: 'calls',
    columns: [
      { name: 'batch_id', type: 'text', notNull: true, references: { table: 'batches', column: 'id' } },
      { name: 'call_index', type: 'integer', notNull: true },
      { name: 'call_id', type: 'text', notNull: true },
      { name: 'name', type: 'text', notNull: true },
      { name: 'arguments', type: 'json', notNull: true },
      { name: 'status', type: 'text', notNull: true },
      { name: 'decision', type: 'json' },
      { name: 'approval', type: 'json' },
      { name: 'result', type: 'json' },
      { name: 'discarded_result', type: 'json' },
      { name: 'started_at', type: 'bigint' },
      { name: 'finished_at', type: 'bigint' },
    ],
    primaryKey: ['batch_id', 'call_index'],
    indexes: [
      // For per-hour rate limits. It costs every commit a page: SQLite makes it when a rate limit is
      // first counted on a journal (sqlite/governance.ts), so only journals that use one pay.
      { name: 'calls_name_started', columns: ['name', 'started_at'], madeOnFirstUseIn: 'sqlite' },
    ],
  },
  {
    name: 'read_cache',
    columns: [
      { name: 'session_id', type: 'text', notNull: true },
      { name: 'path', type: 'text', notNull: true },
      { name: 'sha256', type: 'text', notNull: true },
      { name: 'read_at', type: 'bigint', notNull: true },
    ],
    primaryKey: ['session_id', 'path'],
  },
  {
    name: 'grants',
    columns: [
      { name: 'id', type: 'serial' },
      { name: 'session_id', type: 'text' },
      { name: 'tool', type: 'text', notNull: true },
      // A command grant's prefix, as JSON.
      { name: 'prefix', type: 'json' },
      { name: 'scope', type: 'text', notNull: true, check: "scope IN ('session', 'project')" },
      { name: 'created_at', type: 'bigint', notNull: true },
      // Grants as narrow as what was shown (issue #30 §5): what a non-command grant covers (files, a
      // directory, an origin, exact arguments) as JSON. Older rows have neither this nor a prefix:
      // they were tool-wide and now cover nothing (grant-rows.ts) until revoked.
      { name: 'covers', type: 'json' },
      { name: 'seal', type: 'text', only: 'sqlite' },
    ],
    primaryKey: ['id'],
    indexes: [{ name: 'grants_session', columns: ['session_id'] }],
  },
  // write_todos: each session's list, in order (issue #15).
  {
    name: 'todos',
    columns: [
      { name: 'session_id', type: 'text', notNull: true },
      { name: 'position', type: 'integer', notNull: true },
      { name: 'id', type: 'text', notNull: true },
      { name: 'task', type: 'text', notNull: true },
      { name: 'completed', type: 'boolean', notNull: true },
      { name: 'created_at', type: 'bigint', notNull: true },
    ],
    primaryKey: ['session_id', 'position'],
  },
  // Governance modes as set at run time (issue #16): every process on this journal sees the last.
  {
    name: 'governance_modes',
    columns: [
      { name: 'seq', type: 'serial' },
      { name: 'mode', type: 'text', notNull: true },
      { name: 'reason', type: 'text', notNull: true },
      { name: 'actor', type: 'text', notNull: true },
      { name: 'created_at', type: 'bigint', notNull: true },
      { name: 'seal', type: 'text', only: 'sqlite' },
    ],
    primaryKey: ['seq'],
  },
  // Refused calls by time, for the automatic governor's LOCKDOWN threshold across processes.
  {
    name: 'refusals',
    columns: [{ name: 'at', type: 'bigint', notNull: true }],
    indexes: [{ name: 'refusals_at', columns: ['at'] }],
  },
  // Approvals from anywhere (issue #17 §3): a person's answer to a waiting call, bound to its preview.
  {
    name: 'approval_answers',
    columns: [
      { name: 'batch_id', type: 'text', notNull: true },
      { name: 'call_index', type: 'integer', notNull: true },
      { name: 'approved', type: 'boolean', notNull: true },
      { name: 'scope', type: 'text' },
      { name: 'reason', type: 'text' },
      { name: 'preview', type: 'text', notNull: true },
      { name: 'answered_by', type: 'text', notNull: true },
      { name: 'answered_at', type: 'bigint', notNull: true },
      { name: 'seal', type: 'text', only: 'sqlite' },
    ],
    primaryKey: ['batch_id', 'call_index'],
  },
  // PostgreSQL only: batches given up on (review lead H1): the server did not answer their first
  // commit, the model was told they did not run; if that commit lands after all, the batch is
  // settled, never run. `worker`: the lease of the process that gave up, the only one that settling
  // may pass over. A commit to a server that timed out can still land (docs/SCALING.md).
  {
    name: 'given_up_batches',
    only: 'postgres',
    columns: [
      { name: 'id', type: 'text' },
      { name: 'at', type: 'bigint', notNull: true },
      { name: 'worker', type: 'text' },
    ],
    primaryKey: ['id'],
  },
  // SQLite only: read-only batches as they finish, one row each (a commit writes one page, not the
  // four that a batch and its calls with their keys take), moved into batches and calls off the
  // reply's path (sqlite/fold.ts): every reader folds first, so none ever sees them apart.
  {
    name: 'staged_batches',
    only: 'sqlite',
    columns: [
      { name: 'seq', type: 'serial' },
      { name: 'body', type: 'json', notNull: true },
    ],
    primaryKey: ['seq'],
  },
  // SQLite only: read-only batches staged in a file per process instead (staging-files.ts): how far
  // each file is folded, so every process folds every line once; `seen`, how big each file was when
  // last looked at, so a half line that never grows is not read again by every reader.
  {
    name: 'staged_files',
    only: 'sqlite',
    columns: [
      { name: 'name', type: 'text' },
      { name: 'folded', type: 'integer', notNull: true },
      { name: 'seen', type: 'integer', notNull: true, default: '0' },
    ],
    primaryKey: ['name'],
  },
];
