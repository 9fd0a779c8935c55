import type { Grants } from '../approval/grants.js';
import type { ToolgateConfig } from '../config/config-schema.js';
import type { Approver } from '../core/confirmation.js';
import type { Lease } from '../journal/journal-types.js';
import type { BatchHistory } from '../journal/roles/batch-history.js';
import type { EventLogger } from '../telemetry/event-log.js';
import { BatchPlanner, type BatchPlannerDeps } from './batch-planner.js';
import type { NewBatchJournal } from './execute-new-batch.js';
import type { BatchRunner, RunJournal } from './run-batch.js';

/** What a gate hands its batch stage: its parts, its settings, and the session's state. */
export interface BatchStageParts extends Omit<BatchPlannerDeps, 'journal' | 'tools'> {
  tools: BatchPlannerDeps['tools'] & BatchRunner['tools'] & Pick<ToolgateConfig['tools'], 'approval'>;
  grants: Grants;
  journal: (RunJournal & Pick<BatchHistory, 'batch'>) | undefined;
  session: string;
  logger: EventLogger | undefined;
  lease: Lease | undefined;
  /** Answers confirmations unless a batch brings its own. */
  approver: Approver;
  /** false: the journal keeps no conversation messages (ToolgateOptions.conversation). */
  conversation: boolean;
}

/** One gate's batch stage: how it plans, how it runs (and asks), and where new batches are journaled. */
export interface BatchStage {
  readonly planner: BatchPlanner;
  readonly runner: BatchRunner;
  readonly newBatches: NewBatchJournal | undefined;
}

export function batchStage(parts: BatchStageParts): BatchStage {
  const { grants, journal, session, logger } = parts;
  return {
    planner: new BatchPlanner(parts),
    runner: {
      session,
      sandbox: parts.sandbox,
      rates: parts.rates,
      tools: parts.tools,
      logger,
      lease: parts.lease,
      approval: {
        session,
        approver: parts.approver,
        timeoutMs: parts.tools.approval.timeout_seconds * 1000,
        configWhere: parts.configWhere,
        logger,
        remember: (p, choice) => grants.remember(p, choice),
      },
    },
    newBatches: journal ? { journal, conversation: parts.conversation } : undefined,
  };
}
