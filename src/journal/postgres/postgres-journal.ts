import { randomUUID } from 'node:crypto';
import type { Grant } from '../../core/grant.js';
import type { GovernanceMode } from '../../core/tier.js';
import type { ToolCall } from '../../core/tool-call.js';
import type { ToolResult } from '../../core/tool-result.js';
import { redactUrl } from '../../output/redact-url.js';
import type { ReadRecord } from '../../tools/fs/read-cache.js';
import type { Todo } from '../../tools/todos/todo-store.js';
import {
  type ApprovalAnswer,
  type BatchRecord,
  type BatchSummary,
  type BeginBatchOptions,
  type CallRecord,
  type ExportedCall,
  type FinishedCall,
  type Journal,
  JournalError,
  type Lease,
  type MessageRecord,
  type ModeRecord,
  type PendingApproval,
  type PlanEntry,
} from '../journal.js';
import {
  type AnswerRow,
  approvalAnswer,
  type BatchRow,
  batchRecord,
  type CallRow,
  callRecord,
  decisionJson,
  discardSettlement,
  givenUpSettlement,
  leaseLost,
  notStartable,
  PENDING_APPROVALS_SQL,
  type PendingRow,
  pendingApproval,
  resumeSettlement,
  type Settlement,
  settleable,
  takenOver,
} from '../journal-records.js';
import { thisProcess, workerGone } from '../process-identity.js';
import { ensureSession, messageStatements, PgConversation } from './conversation.js';
import { explainPgError } from './explain-pg-error.js';
import { PgGovernance } from './governance.js';
import { PgGrants } from './grants.js';
import { INCOMPLETE, NOW_MS, type PgContext } from './pg-context.js';
import { migratePg, PG_SCHEMA_VERSION } from './pg-schema.js';
import { PgReadRecords, readRecordStatement } from './read-records.js';
import { PgRetention } from './retention.js';
import { PgError, type PgResult, type PgStatement, SyncPg } from './sync-pg.js';
import { PgTodos } from './todos.js';

/** The connection that LISTENs for answers, and who waits for one. */
type Listener = { client: import('pg').Client; waiters: Set<() => void> };

/**
 * A result that failed, read from its JSON text as the journal writes it ({"id":…,"name":…,"ok":false…}),
 * never parsed as jsonb: jsonb refuses \u0000 and unpaired surrogates, which a model can put in a result.
 */
const FAILED_RESULT = String.raw`^\{"id":"([^"\\]|\\.)*","name":"([^"\\]|\\.)*","ok":false`;
/** The channel an answer to a waiting call is announced on (NOTIFY), so the waiting worker wakes. */
const APPROVALS_CHANNEL = 'toolgate_approvals';

// What `location` shows and messages repeat: password and query values out (issue #30 §9).
export { explainPgError, redactUrl };

/** `LIKE` text matching `prefix` literally (its %, _ and \ escaped). */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The journal on PostgreSQL (issue #17), behind the same interface and conformance suite as
 * SQLite. Each public write is one transaction sent in one round trip; it is committed (and, with
 * the server's default `synchronous_commit = on`, on disk) when the method returns, so `sync()` has
 * nothing left to do. Message sequence numbers are taken under a per-session advisory lock, so
 * several processes can append to one session.
 */
export class PostgresJournal implements Journal {
  readonly location: string;
  readonly durableCommits = true;
  readonly #pg: SyncPg;
  readonly #owner = thisProcess();
  readonly #sessionOf = new Map<string, string | undefined>();
  readonly #ctx: PgContext;
  readonly #reads: PgReadRecords;
  readonly #conversation: PgConversation;
  readonly #todos: PgTodos;
  readonly #governance: PgGovernance;
  readonly #grants: PgGrants;
  readonly #retention: PgRetention;

  /** The URL as given (with any password): only for the connection that listens for answers. */
  readonly #url: string;
  /** The LISTEN connection (asynchronous, on this thread), made when someone first waits. */
  #listener: Promise<Listener> | undefined;

  private constructor(location: string, pg: SyncPg, url: string) {
    this.location = location;
    this.#pg = pg;
    this.#url = url;
    this.#ctx = {
      location,
      owner: this.#owner,
      sessionOf: this.#sessionOf,
      query: (text, values) => this.#query(text, values),
      write: (statements) => this.#write(statements),
      transaction: (statements) => this.#pg.transaction(statements),
    };
    this.#reads = new PgReadRecords(this.#ctx.query);
    this.#conversation = new PgConversation(this.#ctx);
    this.#todos = new PgTodos(this.#ctx);
    this.#governance = new PgGovernance(this.#ctx);
    this.#grants = new PgGrants(this.#ctx);
    this.#retention = new PgRetention(this.#ctx);
  }

  static open(url: string, options: { timeoutMs?: number } = {}): PostgresJournal {
    const where = redactUrl(url);
    let pg: SyncPg | undefined;
    try {
      pg = SyncPg.connect(url, options.timeoutMs);
      migratePg(pg);
      pg.query('SELECT count(*) FROM batches');
      return new PostgresJournal(where, pg, url);
    } catch (error) {
      pg?.close();
      throw explainPgError(error, where);
    }
  }

  #query<R = Record<string, unknown>>(text: string, values: unknown[] = []): R[] {
    try {
      return this.#pg.query<R>(text, values).rows;
    } catch (error) {
      throw explainPgError(error, this.location);
    }
  }

  /** One write transaction (pending read-cache changes first), in one round trip. */
  #write(statements: PgStatement[]): PgResult[] {
    const reads = this.#reads.pending();
    const all: PgStatement[] = [...reads.map(readRecordStatement), ...statements];
    let results: PgResult[];
    try {
      results = this.#pg.transaction(all);
    } catch (error) {
      throw explainPgError(error, this.location);
    }
    this.#reads.written(reads);
    return results.slice(reads.length);
  }

  async sync(): Promise<void> {
    // Every write was committed by the server before its method returned.
  }

  beginBatch(session: string, calls: readonly ToolCall[], options: BeginBatchOptions = {}): string {
    const id = options.batchId ?? randomUUID();
    this.#guarded(id, () => this.#write(this.#insertBatch(id, session, calls, options, Date.now())));
    this.#sessionOf.set(id, options.messages === false ? undefined : session);
    return id;
  }

  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options: BeginBatchOptions = {},
  ): string {
    const id = options.batchId ?? randomUUID();
    this.#write(this.#insertBatch(id, session, calls, options, Date.now(), finished));
    return id;
  }

  /**
   * The batch, its calls (with decisions) and the assistant message; with `finished`, each call's
   * result and `tool` message too, and the batch complete. Calls already journaled while streaming
   * are kept (only their decision and approval are set).
   */
  #insertBatch(
    id: string,
    session: string,
    calls: readonly ToolCall[],
    options: BeginBatchOptions,
    now: number,
    finished?: readonly FinishedCall[],
  ): PgStatement[] {
    const text = options.assistantText ?? null;
    const out: PgStatement[] = [ensureSession(session, now)];
    // Begun over calls journaled while streaming: only if nobody settled or took the batch meanwhile
    // (a division by zero rolls the whole write back).
    if (!finished && options.batchId !== undefined)
      out.push({
        text: `SELECT 1 / (1 - count(*)) FROM batches WHERE id = $1
                 AND NOT (status = 'open' AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $2))`,
        values: [id, options.lease?.worker ?? null],
      });
    out.push(
      finished
        ? {
            text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, finished_at, owner)
                   VALUES ($1, $2, 'complete', $3, $4, $4, $5) ON CONFLICT (id) DO UPDATE SET assistant_text = excluded.assistant_text`,
            values: [id, session, text, now, this.#owner],
          }
        : {
            text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, owner, lease_owner, lease_expires)
                   VALUES ($1, $2, 'open', $3, $4, $5, $6, CASE WHEN $6::text IS NULL THEN NULL ELSE ${NOW_MS} + $7 END)
                   ON CONFLICT (id) DO UPDATE SET assistant_text = excluded.assistant_text,
                     lease_owner = excluded.lease_owner, lease_expires = excluded.lease_expires`,
            values: [
              id,
              session,
              text,
              now,
              this.#owner,
              options.lease?.worker ?? null,
              options.lease?.ttlMs ?? 0,
            ],
          },
    );
    const plan = new Map((options.plan ?? []).map((e) => [e.index, e]));
    const resultJson = finished?.map((f) => JSON.stringify(f.result));
    if (calls.length > 0) {
      const values: unknown[] = [];
      const rows: string[] = [];
      for (const [index, call] of calls.entries()) {
        const f = finished?.[index];
        const row = [
          id,
          index,
          call.id,
          call.name,
          JSON.stringify(call.arguments),
          f ? f.status : 'planned',
          decisionJson(plan.get(index)),
          f ? (resultJson?.[index] ?? null) : null,
          f ? (f.startedAt ?? null) : null,
          f ? f.finishedAt : null,
        ];
        rows.push(`(${row.map((_, i) => `$${values.length + i + 1}`).join(', ')})`);
        values.push(...row);
      }
      out.push({
        text: `INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status, decision, result, started_at, finished_at)
               VALUES ${rows.join(', ')}
               ON CONFLICT (batch_id, call_index) DO UPDATE SET decision = coalesce(excluded.decision, calls.decision)`,
        values,
      });
    }
    if (!finished) {
      for (const entry of options.plan ?? []) if (entry.approval) out.push(...this.#awaiting(id, entry));
    }
    if (options.messages === false && !options.assistant) return out;
    out.push(
      ...messageStatements(
        session,
        'assistant',
        {
          ...options.assistant,
          text,
          toolUses: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        },
        id,
        null,
      ),
    );
    if (options.messages === false) return out;
    for (const [i, f] of (finished ?? []).entries())
      out.push(...messageStatements(session, 'tool', f.result, id, f.result.id, resultJson?.[i]));
    return out;
  }

  #awaiting(batchId: string, entry: PlanEntry): PgStatement[] {
    return [
      {
        text: "UPDATE calls SET status = 'awaiting_approval', approval = $1 WHERE batch_id = $2 AND call_index = $3",
        values: [JSON.stringify(entry.approval), batchId, entry.index],
      },
      { text: "UPDATE batches SET status = 'awaiting_approval' WHERE id = $1", values: [batchId] },
    ];
  }

  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void {
    const now = Date.now();
    this.#write([
      ensureSession(session, now),
      // Held while the model is still writing the rest: no one takes over a batch still streaming.
      {
        text: `INSERT INTO batches (id, session_id, status, assistant_text, created_at, owner, lease_owner, lease_expires)
               VALUES ($1, $2, 'open', NULL, $3, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE ${NOW_MS} + $6 END)
               ON CONFLICT (id) DO NOTHING`,
        values: [batchId, session, now, this.#owner, lease?.worker ?? null, lease?.ttlMs ?? 0],
      },
      {
        text: "INSERT INTO calls (batch_id, call_index, call_id, name, arguments, status) VALUES ($1, $2, $3, $4, $5, 'planned')",
        values: [batchId, index, call.id, call.name, JSON.stringify(call.arguments)],
      },
    ]);
  }

  replan(batchId: string, plan: readonly PlanEntry[]): void {
    const out: PgStatement[] = [];
    for (const entry of plan) {
      const value = decisionJson(entry);
      if (value !== null)
        out.push({
          text: 'UPDATE calls SET decision = $1 WHERE batch_id = $2 AND call_index = $3',
          values: [value, batchId, entry.index],
        });
      if (entry.approval) out.push(...this.#awaiting(batchId, entry));
    }
    this.#write(out);
  }

  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void {
    this.#guarded(batchId, () =>
      this.#write([
        {
          text: `SELECT 1 / count(*) FROM batches WHERE id = $1 AND status IN ${INCOMPLETE}
                 AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $2 OR $2::text IS NULL)`,
          values: [batchId, lease?.worker ?? null],
        },
        {
          text: "UPDATE calls SET status = 'approved' WHERE batch_id = $1 AND call_index = ANY($2::int[])",
          values: [batchId, [...indexes]],
        },
        { text: "UPDATE batches SET status = 'open' WHERE id = $1", values: [batchId] },
      ]),
    );
  }

  /** Runs a guarded write: a guard's division by zero means the batch is no longer this process's. */
  #guarded<T>(batchId: string, write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (error instanceof JournalError && /division by zero/.test(error.message)) throw takenOver(batchId);
      throw error;
    }
  }

  markRunning(batchId: string, index: number, lease?: Lease): void {
    // Only a call that can start (not settled, not done), in a batch nobody settled meanwhile; with a
    // lease, only while this worker holds it (one statement: the check and the mark are one).
    const [r] = this.#write([
      {
        text: `UPDATE calls SET status = 'running', started_at = $1 WHERE batch_id = $2 AND call_index = $3
                 AND status IN ('planned', 'approved', 'running')
                 AND EXISTS (SELECT 1 FROM batches WHERE id = $2 AND status IN ${INCOMPLETE}
                   AND ($4::text IS NULL OR (lease_owner = $4 AND lease_expires >= ${NOW_MS})))`,
        values: [Date.now(), batchId, index, lease?.worker ?? null],
      },
    ]);
    if (r?.rowCount === 0) throw lease ? leaseLost(batchId, lease.worker) : notStartable(batchId, index);
  }

  markNotStarted(batchId: string, index: number): void {
    this.#write([
      { text: 'SELECT 1 FROM batches WHERE id = $1 FOR UPDATE', values: [batchId] },
      {
        text: `UPDATE calls SET status = 'planned', started_at = NULL WHERE batch_id = $1 AND call_index = $2 AND status = 'running'`,
        values: [batchId, index],
      },
    ]);
  }

  pendingApprovals(): PendingApproval[] {
    this.#settleGivenUp();
    return this.#query<PendingRow>(PENDING_APPROVALS_SQL).map(pendingApproval);
  }

  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean {
    const [r] = this.#write([
      {
        text: `WITH answered AS (
                 INSERT INTO approval_answers (batch_id, call_index, approved, scope, reason, preview, answered_by, answered_at)
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8
                 WHERE EXISTS (SELECT 1 FROM calls c JOIN batches b ON b.id = c.batch_id
                               WHERE c.batch_id = $1 AND c.call_index = $2
                                 AND c.status = 'awaiting_approval' AND b.status = 'awaiting_approval')
                 ON CONFLICT (batch_id, call_index) DO NOTHING
                 RETURNING batch_id)
               SELECT pg_notify('${APPROVALS_CHANNEL}', batch_id) FROM answered`,
        values: [
          answer.batchId,
          answer.index,
          answer.approved,
          answer.scope ?? null,
          answer.reason ?? null,
          answer.preview,
          answer.by,
          Date.now(),
        ],
      },
    ]);
    return (r?.rowCount ?? 0) > 0;
  }

  approvalAnswers(batchId: string): ApprovalAnswer[] {
    return this.#query<AnswerRow>('SELECT * FROM approval_answers WHERE batch_id = $1 ORDER BY call_index', [
      batchId,
    ]).map(approvalAnswer);
  }

  /**
   * Resolves when an answer is committed anywhere (LISTEN on a connection of its own, kept for the
   * journal's life), after `waitMs` at most (a notification lost with a dropped connection is then
   * only late), or when `signal` aborts.
   */
  async approvalsChanged(signal: AbortSignal, waitMs: number): Promise<void> {
    // The LISTEN connection is made in the background: until it is up (or if it never comes up:
    // a server too busy to answer), the caller simply looks again after waitMs. Nothing here waits
    // on the connection itself, so a stalled connect can never stall a waiting approval.
    const listener = this.#listening;
    if (!listener) void this.#listen().catch(() => {});
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        listener?.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, listener ? Math.max(waitMs, 1000) : waitMs);
      signal.addEventListener('abort', done, { once: true });
      listener?.waiters.add(done);
    });
  }

  /** The LISTEN connection once it is up (see approvalsChanged). */
  #listening: Listener | undefined;

  /** Whether the LISTEN connection comes up (it is made if it is not there): for tools and tests. */
  listening(): Promise<boolean> {
    return this.#listen().then(
      () => true,
      () => false,
    );
  }

  #listen(): Promise<Listener> {
    this.#listener ??= (async () => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({
        connectionString: this.#url,
        application_name: 'toolgate-listen',
        connectionTimeoutMillis: 10_000,
      });
      const waiters = new Set<() => void>();
      client.on('notification', () => {
        for (const wake of [...waiters]) wake();
      });
      client.on('error', () => {
        this.#listener = undefined; // made again by the next waiter
        this.#listening = undefined;
      });
      await client.connect();
      await client.query(`LISTEN ${APPROVALS_CHANNEL}`);
      // Listening never keeps the process alive on its own.
      (
        client as unknown as { connection?: { stream?: { unref?: () => void } } }
      ).connection?.stream?.unref?.();
      this.#listening = { client, waiters };
      return this.#listening;
    })();
    this.#listener.catch(() => {
      this.#listener = undefined;
    });
    return this.#listener;
  }

  renewLease(batchId: string, lease: Lease): boolean {
    const [r] = this.#write([
      {
        text: `UPDATE batches SET lease_expires = ${NOW_MS} + $1 WHERE id = $2 AND lease_owner = $3 AND status IN ${INCOMPLETE}`,
        values: [lease.ttlMs, batchId, lease.worker],
      },
    ]);
    return (r?.rowCount ?? 0) > 0;
  }

  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined {
    for (;;) {
      // A lease of a process known to have ended on this machine holds nothing, even before it
      // runs out (issue #31 §3). Only this machine can tell, so the workers are judged here and
      // named to the server: a lease taken meanwhile by anyone else is another name, not taken.
      const gone = this.#query<{ lease_owner: string }>(
        `SELECT DISTINCT lease_owner FROM batches WHERE status IN ${INCOMPLETE}
           AND lease_expires >= ${NOW_MS} AND lease_owner IS NOT NULL`,
      )
        .map((r) => r.lease_owner)
        .filter((w) => w !== lease.worker && workerGone(w));
      // As JSON text: a statement's literals hold strings and numbers, not arrays of strings.
      const goneJson = JSON.stringify(gone);
      // SKIP LOCKED: workers claiming at once each take a different batch, none waits on another.
      const [r] = this.#write([
        batchId !== undefined
          ? {
              text: `UPDATE batches SET lease_owner = $1, lease_expires = ${NOW_MS} + $2
                     WHERE id = $3 AND status IN ${INCOMPLETE}
                       AND (lease_expires IS NULL OR lease_expires < ${NOW_MS} OR lease_owner = $1
                            OR lease_owner IN (SELECT json_array_elements_text($4::json)))
                     RETURNING id, EXISTS (SELECT 1 FROM given_up_batches g WHERE g.id = batches.id) AS given_up`,
              values: [lease.worker, lease.ttlMs, batchId, goneJson],
            }
          : {
              text: `UPDATE batches SET lease_owner = $1, lease_expires = ${NOW_MS} + $2
                     WHERE id = (SELECT id FROM batches WHERE status IN ${INCOMPLETE}
                                   AND (lease_expires < ${NOW_MS}
                                        OR lease_owner IN (SELECT json_array_elements_text($3::json)))
                                 ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                     RETURNING id, EXISTS (SELECT 1 FROM given_up_batches g WHERE g.id = batches.id) AS given_up`,
              values: [lease.worker, lease.ttlMs, goneJson],
            },
      ]);
      const row = r?.rows[0] as { id: string; given_up: boolean } | undefined;
      if (row === undefined) return undefined;
      if (!row.given_up) return this.batch(row.id);
      // A batch its process gave up on, whose first commit landed after all: the model was told it
      // did not run, so it never does. Settled now (this worker holds it); a worker looking for any
      // batch looks on.
      this.#settleGivenUpIfStill(row.id, lease.worker);
      if (batchId !== undefined) return undefined;
    }
  }

  /**
   * Batches given up on whose first commit landed after all (giveUp): settled as never run before
   * anything lists them, so nobody is asked about them and no recovery resumes them. The giving-up
   * process's own lease does not stop the settling (it will never use it); anyone else's does.
   */
  #settleGivenUp(): void {
    const rows = this.#query<{ id: string; worker: string | null }>(
      `SELECT b.id, g.worker FROM batches b JOIN given_up_batches g ON g.id = b.id WHERE b.status IN ${INCOMPLETE}`,
    );
    for (const { id, worker } of rows) this.#settleGivenUpIfStill(id, worker ?? undefined);
  }

  /**
   * Settles a given-up batch as never run, passing over `worker`'s lease only. Left as it is when
   * another process settled it meanwhile, or a worker that claimed it before the mark holds it
   * (its lease is respected: it may be running a call).
   */
  #settleGivenUpIfStill(batchId: string, worker: string | undefined): void {
    try {
      this.#settle(batchId, 'discarded', givenUpSettlement, worker);
    } catch {
      // Settled or held elsewhere: see above.
    }
  }

  giveUp(batchId: string, worker?: string): void {
    // Local durability only: a commit held up waiting for a standby must not hold this one up too.
    this.#write([
      // For this transaction only (set_config's `true`): the statements go as one implicit transaction.
      { text: "SELECT set_config('synchronous_commit', 'local', true)" },
      {
        text: 'INSERT INTO given_up_batches (id, at, worker) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        values: [batchId, Date.now(), worker ?? null],
      },
    ]);
  }

  #sessionOfBatch(batchId: string): string | undefined {
    if (this.#sessionOf.has(batchId)) return this.#sessionOf.get(batchId);
    return this.#query<{ session_id: string }>('SELECT session_id FROM batches WHERE id = $1', [batchId])[0]
      ?.session_id;
  }

  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status: 'done' | 'denied' | 'unknown' = 'done',
    finish?: { lease?: Lease },
  ): boolean {
    const json = JSON.stringify(result);
    const session = this.#sessionOfBatch(batchId);
    this.#write([
      // The batch row is locked first, as recovery (resumeBatch, discardBatch) locks it: the other
      // order could deadlock with a recovery running at the same moment (and lose this result).
      { text: 'SELECT 1 FROM batches WHERE id = $1 FOR UPDATE', values: [batchId] },
      {
        text: 'UPDATE calls SET status = $1, result = $2, finished_at = $3 WHERE batch_id = $4 AND call_index = $5',
        values: [status, json, Date.now(), batchId, index],
      },
      ...(session !== undefined ? messageStatements(session, 'tool', result, batchId, result.id, json) : []),
      // The last result completes the batch in the same round trip and transaction.
      ...(finish ? [completeBatch(batchId, finish.lease)] : []),
    ]);
    if (finish) this.#sessionOf.delete(batchId);
    return finish !== undefined;
  }

  finishBatch(batchId: string, lease?: Lease): void {
    this.#write([completeBatch(batchId, lease)]);
    this.#sessionOf.delete(batchId);
  }

  // The conversation (conversation.ts).

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void {
    this.#conversation.appendMessage(session, role, content);
  }

  messages(session: string): MessageRecord[] {
    return this.#conversation.messages(session);
  }

  // Read records (read-records.ts).

  getReadRecord(session: string, file: string): ReadRecord | undefined {
    return this.#reads.getReadRecord(session, file);
  }

  putReadRecord(session: string, file: string, record: ReadRecord): void {
    this.#reads.putReadRecord(session, file, record);
  }

  deleteReadRecord(session: string, file: string): void {
    this.#reads.deleteReadRecord(session, file);
  }

  // Todo lists (todos.ts).

  todos(session: string): Todo[] {
    return this.#todos.todos(session);
  }

  saveTodos(session: string, todos: readonly Todo[]): void {
    this.#todos.saveTodos(session, todos);
  }

  // Governance (governance.ts).

  noteRefusals(times: readonly number[]): void {
    this.#governance.noteRefusals(times);
  }

  refusalsSince(since: number): number {
    return this.#governance.refusalsSince(since);
  }

  governanceMode(): ModeRecord | undefined {
    return this.#governance.governanceMode();
  }

  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord {
    return this.#governance.recordMode(mode, reason, actor);
  }

  modeHistory(limit: number): ModeRecord[] {
    return this.#governance.modeHistory(limit);
  }

  countCallsSince(tool: string, since: number): number {
    return this.#governance.countCallsSince(tool, since);
  }

  // Grants (grants.ts).

  listGrants(session: string): Grant[] {
    return this.#grants.listGrants(session);
  }

  addGrant(grant: Grant): void {
    this.#grants.addGrant(grant);
  }

  allGrants(): Grant[] {
    return this.#grants.allGrants();
  }

  revokeGrant(id: number): boolean {
    return this.#grants.revokeGrant(id);
  }

  revokeGrants(session?: string): number {
    return this.#grants.revokeGrants(session);
  }

  // Retention (retention.ts).

  prune(before: number, maxBatches?: number): { batches: number; calls: number; messages: number } {
    return this.#retention.prune(before, maxBatches);
  }

  exportCalls(since: number): Generator<ExportedCall> {
    return this.#retention.exportCalls(since);
  }

  #toRecord(row: BatchRow): BatchRecord {
    const calls = this.#query<CallRow>('SELECT * FROM calls WHERE batch_id = $1 ORDER BY call_index', [
      row.id,
    ]);
    return batchRecord(row, calls.map(callRecord));
  }

  batch(batchId: string): BatchRecord | undefined {
    const row = this.#query<BatchRow & { given_up: boolean; given_up_by: string | null }>(
      `SELECT b.*, g.id IS NOT NULL AS given_up, g.worker AS given_up_by
         FROM batches b LEFT JOIN given_up_batches g ON g.id = b.id WHERE b.id = $1`,
      [batchId],
    )[0];
    if (!row?.given_up || (row.status !== 'open' && row.status !== 'awaiting_approval'))
      return row ? this.#toRecord(row) : undefined;
    // Given up, and landed after all: settled before anyone can resume or answer it (see #settleGivenUp).
    this.#settleGivenUpIfStill(batchId, row.given_up_by ?? undefined);
    return this.#storedBatch(batchId);
  }

  /** The batch as stored, nothing settled on the way (for #settle itself). */
  #storedBatch(batchId: string): BatchRecord | undefined {
    const row = this.#query<BatchRow>('SELECT * FROM batches WHERE id = $1', [batchId])[0];
    return row ? this.#toRecord(row) : undefined;
  }

  batchIdsStartingWith(prefix: string, limit: number): string[] {
    if (prefix === '') return [];
    return this.#query<{ id: string }>(
      'SELECT id FROM batches WHERE id LIKE $1 ORDER BY created_at DESC LIMIT $2',
      [likePrefix(prefix), limit],
    ).map((r) => r.id);
  }

  recentBatches(limit: number): BatchSummary[] {
    return this.#query<BatchRow & { calls: number; failed: number }>(
      `SELECT b.id, b.seq, b.session_id, b.status, b.created_at, b.finished_at, count(c.call_index) AS calls,
              coalesce(sum(CASE WHEN c.result ~ '${FAILED_RESULT}' THEN 1 ELSE 0 END), 0) AS failed
       FROM (SELECT * FROM batches ORDER BY seq DESC LIMIT $1) b
       LEFT JOIN calls c ON c.batch_id = b.id
       GROUP BY b.id, b.seq, b.session_id, b.status, b.created_at, b.finished_at
       ORDER BY b.created_at DESC, b.seq DESC`,
      [limit],
    ).map((r) => ({
      id: r.id,
      session: r.session_id,
      status: r.status,
      createdAt: r.created_at,
      ...(r.finished_at ? { finishedAt: r.finished_at } : {}),
      calls: r.calls,
      failed: r.failed,
    }));
  }

  incompleteBatches(): BatchRecord[] {
    this.#settleGivenUp();
    return this.#query<BatchRow>(
      `SELECT * FROM batches WHERE status IN ${INCOMPLETE} ORDER BY created_at, seq`,
    ).map((row) => this.#toRecord(row));
  }

  #settle(
    batchId: string,
    status: 'resumed' | 'discarded',
    decide: (call: CallRecord) => Settlement,
    worker?: string,
  ): ToolResult[] {
    const record = settleable(this.#storedBatch(batchId), batchId, this.location);
    const now = Date.now();
    const results: ToolResult[] = [];
    const out: PgStatement[] = [
      // Settled once: the batch row is locked, and if another process settled it meanwhile the
      // division by zero aborts the whole transaction (nothing of this settlement is written).
      {
        text: `SELECT 1 / count(*) FROM (SELECT 1 FROM batches WHERE id = $1 AND status IN ${INCOMPLETE}
                 AND (lease_expires IS NULL OR lease_expires < ${NOW_MS} OR lease_owner IS NOT DISTINCT FROM $2 OR $3) FOR UPDATE) s`,
        // A lease of a process of this host that is gone holds nothing (known here, not on the server).
        values: [batchId, worker ?? null, workerGone(record.lease?.worker)],
      },
    ];
    for (const call of record.calls) {
      const outcome = decide(call);
      if (!outcome) {
        results.push(call.result as ToolResult);
        continue;
      }
      const json = JSON.stringify(outcome.result);
      out.push(
        outcome.discard
          ? {
              text: 'UPDATE calls SET discarded_result = result, result = $1, status = $2, finished_at = coalesce(finished_at, $3) WHERE batch_id = $4 AND call_index = $5',
              values: [json, outcome.status, now, batchId, call.index],
            }
          : {
              text: 'UPDATE calls SET status = $1, result = $2, finished_at = $3 WHERE batch_id = $4 AND call_index = $5',
              values: [outcome.status, json, now, batchId, call.index],
            },
      );
      if (!outcome.discard)
        out.push(...messageStatements(record.session, 'tool', outcome.result, batchId, call.id, json));
      results.push(outcome.result);
    }
    out.push({
      text: `UPDATE batches SET status = $1, finished_at = $2, lease_expires = NULL WHERE id = $3 AND status IN ${INCOMPLETE}`,
      values: [status, now, batchId],
    });
    try {
      this.#pg.transaction(out);
    } catch (error) {
      if (error instanceof PgError && error.code === '22012') {
        // Which of the two: a caller that gave the batch up must know whether a worker may run it.
        const now = this.#storedBatch(batchId);
        throw new JournalError(
          now && (now.status === 'open' || now.status === 'awaiting_approval')
            ? `batch ${batchId} is held by worker ${now.lease?.worker ?? '(unknown)'} (its lease has not run out); see \`toolgate journal show ${batchId}\``
            : `batch ${batchId} is already ${now?.status ?? 'gone'}: settled by another process meanwhile; see \`toolgate journal show ${batchId}\``,
        );
      }
      throw explainPgError(error, this.location);
    }
    this.#sessionOf.delete(batchId);
    return results;
  }

  resumeBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settleGivenUpBatch(batchId) ?? this.#settle(batchId, 'resumed', resumeSettlement, worker);
  }

  discardBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settleGivenUpBatch(batchId) ?? this.#settle(batchId, 'discarded', discardSettlement, worker);
  }

  /**
   * An incomplete batch marked given up is settled as never run whoever asks to resume or discard
   * it (nothing of it ran: a call its first commit marked running never started); else undefined.
   */
  #settleGivenUpBatch(batchId: string): ToolResult[] | undefined {
    const [row] = this.#query<{ worker: string | null }>(
      `SELECT g.worker FROM batches b JOIN given_up_batches g ON g.id = b.id WHERE b.id = $1 AND b.status IN ${INCOMPLETE}`,
      [batchId],
    );
    return row ? this.#settle(batchId, 'discarded', givenUpSettlement, row.worker ?? undefined) : undefined;
  }

  /** What the server guarantees for a commit, and the schema version (for `toolgate journal` and tests). */
  settings(): { synchronousCommit: string; fsync: string; schemaVersion: number } {
    const show = (name: string) => this.#query<Record<string, string>>(`SHOW ${name}`)[0]?.[name] ?? '';
    return {
      synchronousCommit: show('synchronous_commit'),
      fsync: show('fsync'),
      schemaVersion: this.#query<{ version: number }>('SELECT version FROM toolgate_schema')[0]?.version ?? 0,
    };
  }

  static readonly schemaVersion = PG_SCHEMA_VERSION;

  close(): void {
    try {
      if (this.#reads.waiting) this.#write([]); // nothing recorded is dropped
    } catch {
      // A journal that cannot write any more: the calls' results could not be recorded either.
    }
    this.#pg.close();
    void this.#listener?.then(
      ({ client }) => client.end().catch(() => {}),
      () => {},
    );
    this.#listener = undefined;
    this.#listening = undefined;
  }
}

/** Completes a batch, unless it was settled or taken over by another worker meanwhile. */
function completeBatch(batchId: string, lease: Lease | undefined): PgStatement {
  return {
    text: `UPDATE batches SET status = 'complete', finished_at = $1, lease_expires = NULL
             WHERE id = $2 AND status IN ${INCOMPLETE} AND (lease_owner IS NULL OR lease_owner IS NOT DISTINCT FROM $3)`,
    values: [Date.now(), batchId, lease?.worker ?? null],
  };
}
