import { redactUrl } from '../../output/redact-url.js';
import { RoleDelegation, type RoleParts } from '../common/role-delegation.js';
import type { Journal } from '../journal.js';
import { thisProcess } from '../process-identity.js';
import { PgApprovals } from './approvals.js';
import { PgBatchLog } from './batches.js';
import { PgConversation } from './conversation.js';
import { explainPgError } from './explain-pg-error.js';
import { PgGovernance } from './governance.js';
import { PgGrants } from './grants.js';
import { PgHistory } from './history.js';
import { PgLeases } from './leases.js';
import type { PgContext } from './pg-context.js';
import { migratePg, PG_SCHEMA_VERSION } from './pg-schema.js';
import { PgReadRecords, readRecordStatement } from './read-records.js';
import { PgRecovery } from './recovery.js';
import { PgRetention } from './retention.js';
import { type PgResult, type PgStatement, SyncPg } from './sync-pg.js';
import { PgTodos } from './todos.js';

// redactUrl: what `location` shows and messages repeat, password and query values out (issue #30 §9).
// explainPgError (explain-pg-error.ts): kept importable from here, where callers found it.
export { explainPgError, redactUrl };

/**
 * The journal on PostgreSQL (issue #17), behind the same interface and conformance suite as
 * SQLite. Each public write is one transaction sent in one round trip; it is committed (and, with
 * the server's default `synchronous_commit = on`, on disk) when the method returns, so `sync()` has
 * nothing left to do. Message sequence numbers are taken under a per-session advisory lock, so
 * several processes can append to one session.
 *
 * One object per store: the connection, and the write path every part shares (`PgContext`); each
 * role is one part in a file of its own (batches, history, recovery, leases, approvals,
 * conversation, read-records, todos, governance, grants, retention), which this class delegates to.
 */
export class PostgresJournal extends RoleDelegation implements Journal {
  readonly location: string;
  readonly durableCommits = true;
  readonly #pg: SyncPg;
  readonly #reads: PgReadRecords;
  readonly #batches: PgBatchLog;
  readonly #approvals: PgApprovals;
  protected readonly parts: RoleParts;

  /** `url` as given (with any password): only for the connection that listens for answers. */
  private constructor(location: string, pg: SyncPg, url: string) {
    super();
    this.location = location;
    this.#pg = pg;
    const ctx: PgContext = {
      location,
      owner: thisProcess(),
      sessionOf: new Map<string, string | undefined>(),
      query: (text, values) => this.#query(text, values),
      write: (statements) => this.#write(statements),
      transaction: (statements) => this.#pg.transaction(statements),
    };
    this.#reads = new PgReadRecords(ctx.query);
    this.#batches = new PgBatchLog(ctx);
    this.#approvals = new PgApprovals(ctx, url);
    const history = new PgHistory(ctx);
    this.parts = {
      batches: this.#batches,
      history,
      recovery: new PgRecovery(ctx),
      leases: new PgLeases(ctx, history),
      approvals: this.#approvals,
      conversation: new PgConversation(ctx),
      reads: this.#reads,
      todos: new PgTodos(ctx),
      governance: new PgGovernance(ctx),
      grants: new PgGrants(ctx),
      retention: new PgRetention(ctx),
    };
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

  giveUp(batchId: string, worker?: string): void {
    this.#batches.giveUp(batchId, worker);
  }

  // Every other role: RoleDelegation hands it to its part (this.parts).

  /** Whether the LISTEN connection comes up (it is made if it is not there): for tools and tests. */
  listening(): Promise<boolean> {
    return this.#approvals.listening();
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
    this.#approvals.close();
  }
}
