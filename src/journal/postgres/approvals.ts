import { answerRow } from '../common/answer-row.js';
import { waitForChange } from '../common/wait-for-change.js';
import {
  type AnswerRow,
  approvalAnswer,
  PENDING_APPROVALS_SQL,
  type PendingRow,
  pendingApproval,
} from '../journal-records.js';
import type { ApprovalAnswer, PendingApproval } from '../journal-types.js';
import type { ApprovalQueue } from '../roles/approval-queue.js';
import { settleGivenUp } from './given-up.js';
import type { PgContext } from './pg-context.js';

/** The connection that LISTENs for answers, and who waits for one. */
type Listener = { client: import('pg').Client; waiters: Set<() => void> };

/** The channel an answer to a waiting call is announced on (NOTIFY), so the waiting worker wakes. */
const APPROVALS_CHANNEL = 'toolgate_approvals';

/**
 * The approval queue on PostgreSQL (issue #17 §3): an answer is committed with a NOTIFY, and a
 * worker waiting for one LISTENs on a connection of its own, so it wakes at the commit.
 */
export class PgApprovals implements ApprovalQueue {
  readonly #ctx: PgContext;
  /** The URL as given (with any password): only for the connection that listens for answers. */
  readonly #url: string;
  /** The LISTEN connection (asynchronous, on this thread), made when someone first waits. */
  #listener: Promise<Listener> | undefined;
  /** The LISTEN connection once it is up (see approvalsChanged). */
  #listening: Listener | undefined;

  constructor(ctx: PgContext, url: string) {
    this.#ctx = ctx;
    this.#url = url;
  }

  pendingApprovals(): PendingApproval[] {
    settleGivenUp(this.#ctx);
    return this.#ctx.query<PendingRow>(PENDING_APPROVALS_SQL).map(pendingApproval);
  }

  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean {
    const row = answerRow(answer, Date.now());
    const [r] = this.#ctx.write([
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
          row.batch_id,
          row.call_index,
          row.approved,
          row.scope,
          row.reason,
          row.preview,
          row.answered_by,
          row.answered_at,
        ],
      },
    ]);
    return (r?.rowCount ?? 0) > 0;
  }

  approvalAnswers(batchId: string): ApprovalAnswer[] {
    return this.#ctx
      .query<AnswerRow>('SELECT * FROM approval_answers WHERE batch_id = $1 ORDER BY call_index', [batchId])
      .map(approvalAnswer);
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
    await waitForChange(signal, listener ? Math.max(waitMs, 1000) : waitMs, listener?.waiters);
  }

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

  /** Ends the LISTEN connection, if one was made. */
  close(): void {
    void this.#listener?.then(
      ({ client }) => client.end().catch(() => {}),
      () => {},
    );
    this.#listener = undefined;
    this.#listening = undefined;
  }
}
