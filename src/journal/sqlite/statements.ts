import type Database from 'better-sqlite3';
import { PENDING_APPROVALS_SQL } from '../journal-records.js';

/** A prepared statement (named here, so the statements' type can be declared for the library). */
export interface Statement extends Database.Statement {}

/**
 * Every statement the SQLite journal runs, prepared once when it opens (better-sqlite3 compiles
 * each at prepare), shared by all its parts through the context (sqlite-context.ts).
 */
export function prepareStatements(db: Database.Database) {
  const prep = (sql: string): Statement => db.prepare(sql);
  return {
    ensureSession: prep('INSERT OR IGNORE INTO sessions (id, created_at) VALUES (?, ?)'),
    nextSeq: prep('SELECT coalesce(max(seq), 0) + 1 AS seq FROM messages WHERE session_id = ?'),
    insertMessage: prep(
      'INSERT INTO messages (session_id, seq, role, batch_id, call_id, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertBatch: prep(
      'INSERT INTO batches (id, session_id, status, assistant_text, created_at, owner, seal) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertCall: prep(
      "INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status, decision) VALUES (?, ?, ?, ?, ?, 'planned', ?)",
    ),
    insertFinishedBatch: prep(
      "INSERT INTO batches (id, session_id, status, assistant_text, created_at, finished_at, owner) VALUES (?, ?, 'complete', ?, ?, ?, ?)",
    ),
    insertFinishedCall: prep(
      `INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status, decision, result, started_at, finished_at)
       VALUES (@batch, @index, @callId, @name, @args, @status, @decision, @result, @started, @finished)`,
    ),
    setDecision: prep('UPDATE calls SET decision = ? WHERE batch_id = ? AND call_index = ?'),
    setStatus: prep('UPDATE calls SET status = ? WHERE batch_id = ? AND call_index = ?'),
    setAwaiting: prep(
      "UPDATE calls SET status = 'awaiting_approval', approval = ? WHERE batch_id = ? AND call_index = ?",
    ),
    setBatchStatus: prep('UPDATE batches SET status = ? WHERE id = ?'),
    setAssistantText: prep('UPDATE batches SET assistant_text = ? WHERE id = ?'),
    // A call starts only from a state it can start from, in a batch nobody settled meanwhile.
    setRunning: prep(
      `UPDATE calls SET status = 'running', started_at = ? WHERE batch_id = ? AND call_index = ?
         AND status IN ('planned', 'approved', 'running')
         AND EXISTS (SELECT 1 FROM batches WHERE id = calls.batch_id AND status IN ('open', 'awaiting_approval'))`,
    ),
    setResult: prep(
      'UPDATE calls SET status = ?, result = ?, finished_at = ? WHERE batch_id = ? AND call_index = ?',
    ),
    finishBatch: prep('UPDATE batches SET status = ?, finished_at = ?, lease_expires = NULL WHERE id = ?'),
    setLease: prep('UPDATE batches SET lease_owner = ?, lease_expires = ? WHERE id = ?'),
    renewLease: prep(
      `UPDATE batches SET lease_expires = ? WHERE id = ? AND lease_owner = ?
         AND status IN ('open', 'awaiting_approval')`,
    ),
    setNotStarted: prep(
      `UPDATE calls SET status = 'planned', started_at = NULL WHERE batch_id = ? AND call_index = ? AND status = 'running'`,
    ),
    setRunningLeased: prep(
      `UPDATE calls SET status = 'running', started_at = @now WHERE batch_id = @batch AND call_index = @index
         AND status IN ('planned', 'approved', 'running')
         AND EXISTS (SELECT 1 FROM batches WHERE id = @batch AND lease_owner = @worker AND lease_expires >= @now
                       AND status IN ('open', 'awaiting_approval'))`,
    ),
    completeBatch: prep(
      `UPDATE batches SET status = 'complete', finished_at = @now, lease_expires = NULL
         WHERE id = @batch AND status IN ('open', 'awaiting_approval') AND (lease_owner IS NULL OR lease_owner = @worker)`,
    ),
    claimOne: prep(
      `UPDATE batches SET lease_owner = @worker, lease_expires = @until WHERE id = @id
         AND status IN ('open', 'awaiting_approval')
         AND (lease_expires IS NULL OR lease_expires < @now OR lease_owner = @worker
              OR lease_owner IN (SELECT value FROM json_each(@gone)))`,
    ),
    // Workers holding a lease that has not run out, to find those known gone (issue #31 §3).
    liveLeaseWorkers: prep(
      `SELECT DISTINCT lease_owner FROM batches WHERE status IN ('open', 'awaiting_approval')
         AND lease_expires >= ? AND lease_owner IS NOT NULL`,
    ).pluck(),
    pendingApprovals: prep(PENDING_APPROVALS_SQL),
    answerApproval: prep(
      `INSERT INTO approval_answers (batch_id, call_index, approved, scope, reason, preview, answered_by, answered_at, seal)
       SELECT @batch, @index, @approved, @scope, @reason, @preview, @by, @at, @seal
       WHERE EXISTS (SELECT 1 FROM calls c JOIN batches b ON b.id = c.batch_id
                     WHERE c.batch_id = @batch AND c.call_index = @index
                       AND c.status = 'awaiting_approval' AND b.status = 'awaiting_approval')
       ON CONFLICT (batch_id, call_index) DO NOTHING`,
    ),
    approvalAnswers: prep('SELECT * FROM approval_answers WHERE batch_id = ? ORDER BY call_index'),
    answerOf: prep('SELECT * FROM approval_answers WHERE batch_id = ? AND call_index = ?'),
    dropAnswer: prep('DELETE FROM approval_answers WHERE batch_id = ? AND call_index = ?'),
    pruneAnswers: prep('DELETE FROM approval_answers WHERE batch_id NOT IN (SELECT id FROM batches)'),
    expiredLease: prep(
      `SELECT id, session_id, created_at, seal FROM batches WHERE status IN ('open', 'awaiting_approval')
         AND lease_expires IS NOT NULL
         AND (lease_expires < @now OR lease_owner IN (SELECT value FROM json_each(@gone)))
         ORDER BY created_at, rowid`,
    ),
    batch: prep('SELECT * FROM batches WHERE id = ?'),
    // substr, not LIKE: an id may hold '%' or '_' (ids come from callers).
    batchIdsStartingWith: prep(
      // The range lets the primary key index find the prefix without reading every batch.
      `SELECT id FROM batches WHERE id >= @prefix AND id < @prefix || char(1114111)
         AND substr(id, 1, length(@prefix)) = @prefix ORDER BY created_at DESC LIMIT @limit`,
    ),
    calls: prep('SELECT * FROM calls WHERE batch_id = ? ORDER BY call_index'),
    recent: prep(
      `SELECT b.*, count(c.call_index) AS calls,
              sum(CASE WHEN json_extract(c.result, '$.ok') = 0 THEN 1 ELSE 0 END) AS failed
       FROM (SELECT rowid AS row, * FROM batches ORDER BY rowid DESC LIMIT ?) b
       LEFT JOIN calls c ON c.batch_id = b.id
       GROUP BY b.id ORDER BY b.created_at DESC, b.row DESC`,
    ),
    incomplete: prep(
      "SELECT * FROM batches WHERE status IN ('open', 'awaiting_approval') ORDER BY created_at, rowid",
    ),
    messages: prep('SELECT * FROM messages WHERE session_id = ? ORDER BY seq'),
    getRead: prep('SELECT sha256, read_at FROM read_cache WHERE session_id = ? AND path = ?'),
    putRead: prep(
      // The newest read wins, whichever process's fold writes it last (review M2).
      'INSERT INTO read_cache (session_id, path, sha256, read_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256, read_at = excluded.read_at WHERE excluded.read_at >= read_cache.read_at',
    ),
    listGrants: prep(
      "SELECT id, tool, prefix, covers, scope, session_id, created_at, seal FROM grants WHERE scope = 'project' OR session_id = ? ORDER BY id",
    ),
    allGrants: prep(
      'SELECT id, tool, prefix, covers, scope, session_id, created_at, seal FROM grants ORDER BY id',
    ),
    addGrant: prep(
      'INSERT INTO grants (session_id, tool, prefix, covers, scope, created_at, seal) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    revokeGrant: prep('DELETE FROM grants WHERE id = ?'),
    revokeAllGrants: prep('DELETE FROM grants'),
    revokeSessionGrants: prep("DELETE FROM grants WHERE scope = 'session' AND session_id = ?"),
    dataVersion: prep('PRAGMA data_version').pluck(),
    stage: prep('INSERT INTO staged_batches (body) VALUES (?)'),
    batchExists: prep('SELECT 1 FROM batches WHERE id = ?').pluck(),
    stagedFiles: prep('SELECT name, folded, seen FROM staged_files'),
    setStagedFile: prep(
      'INSERT INTO staged_files (name, folded, seen) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET folded = excluded.folded, seen = excluded.seen',
    ),
    forgetStagedFile: prep('DELETE FROM staged_files WHERE name = ?'),
    stagedBatches: prep('SELECT seq, body FROM staged_batches ORDER BY seq'),
    clearStaged: prep('DELETE FROM staged_batches WHERE seq <= ?'),
    countStaged: prep('SELECT count(*) FROM staged_batches').pluck(),
    deleteStaged: prep('DELETE FROM staged_batches WHERE seq = ?'),
    stagedBody: prep('SELECT body FROM staged_batches WHERE seq = ?'),
    todos: prep('SELECT id, task, completed, created_at FROM todos WHERE session_id = ? ORDER BY position'),
    clearTodos: prep('DELETE FROM todos WHERE session_id = ?'),
    // Retention: complete batches older than a time, with their calls and conversation messages;
    // never an open batch or one waiting for approval.
    prunable: prep(
      "SELECT id FROM batches WHERE created_at < ? AND status NOT IN ('open', 'awaiting_approval') ORDER BY rowid LIMIT ?",
    ),
    // The oldest complete batch, found from the start of the table (rowids grow with time): when
    // it is younger than the cut there is nothing to prune, and no need to read every batch.
    oldestComplete: prep(
      "SELECT created_at FROM batches WHERE status NOT IN ('open', 'awaiting_approval') ORDER BY rowid LIMIT 1",
    ).pluck(),
    pruneCalls: prep('DELETE FROM calls WHERE batch_id = ?'),
    pruneBatch: prep('DELETE FROM batches WHERE id = ?'),
    pruneMessages: prep(
      `DELETE FROM messages WHERE created_at < ? AND (batch_id IS NULL OR batch_id NOT IN
         (SELECT id FROM batches WHERE status IN ('open', 'awaiting_approval')))`,
    ),
    exportCalls: prep(
      `SELECT b.id AS batch_id, b.session_id, b.status AS batch_status, b.created_at AS batch_created_at, c.*
       FROM batches b JOIN calls c ON c.batch_id = b.id
       WHERE b.created_at >= ? ORDER BY b.created_at, b.rowid, c.call_index`,
    ),
    noteRefusal: prep('INSERT INTO refusals (at) VALUES (?)'),
    forgetRefusals: prep('DELETE FROM refusals WHERE at < ?'),
    refusalsSince: prep('SELECT count(*) FROM refusals WHERE at >= ?').pluck(),
    modesNewestFirst: prep('SELECT * FROM governance_modes ORDER BY seq DESC'),
    putMode: prep(
      'INSERT INTO governance_modes (mode, reason, actor, created_at, seal) VALUES (?, ?, ?, ?, ?) RETURNING *',
    ),
    putTodo: prep(
      'INSERT INTO todos (session_id, position, id, task, completed, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    countSince: prep('SELECT count(*) AS n FROM calls WHERE name = ? AND started_at >= ?'),
    discard: prep(
      'UPDATE calls SET discarded_result = result, result = ?, status = ?, finished_at = coalesce(finished_at, ?) WHERE batch_id = ? AND call_index = ?',
    ),
  };
}

/** The journal's prepared statements (prepareStatements). */
export type Statements = ReturnType<typeof prepareStatements>;
