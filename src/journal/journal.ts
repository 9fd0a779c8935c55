import type { ApprovalQueue } from './roles/approval-queue.js';
import type { BatchHistory } from './roles/batch-history.js';
import type { BatchLeases } from './roles/batch-leases.js';
import type { BatchLog } from './roles/batch-log.js';
import type { BatchRecovery } from './roles/batch-recovery.js';
import type { ConversationLog } from './roles/conversation-log.js';
import type { GovernanceLog } from './roles/governance-log.js';
import type { GrantStore } from './roles/grant-store.js';
import type { ReadRecords } from './roles/read-records.js';
import type { Retention } from './roles/retention.js';
import type { TodoLists } from './roles/todo-lists.js';

export { JournalError } from './journal-error.js';
export type * from './journal-types.js';
export type {
  ApprovalQueue,
  BatchHistory,
  BatchLeases,
  BatchLog,
  BatchRecovery,
  ConversationLog,
  GovernanceLog,
  GrantStore,
  ReadRecords,
  Retention,
  TodoLists,
};

/**
 * The durable store behind the pipeline: every role a store plays, in one object per store (one
 * connection, so that one transaction can span roles). Code that needs only some of it depends on
 * those roles (`src/journal/roles/`), not on this whole interface. Two implementations, SQLite
 * (`src/journal/sqlite/`) and PostgreSQL (`src/journal/postgres/`), and one conformance suite both
 * must pass (`test/journal/journal-conformance.ts`). Every write is committed before the method
 * returns: it survives the process being killed.
 */
export interface Journal
  extends BatchLog,
    BatchHistory,
    BatchRecovery,
    BatchLeases,
    ApprovalQueue,
    ConversationLog,
    ReadRecords,
    TodoLists,
    GovernanceLog,
    GrantStore,
    Retention {
  close(): void;
}
