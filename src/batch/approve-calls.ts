import { approveBatch } from '../approval/approve-batch.js';
import { type Approver, denyWith } from '../core/confirmation.js';
import type { RememberChoice } from '../core/grant.js';
import type { PlannedCall } from '../core/planned-call.js';
import { hintForAsk } from '../policy/allow-hint.js';
import type { BatchTrace } from '../telemetry/batch-trace.js';
import { callFields, type EventLogger, logEvent } from '../telemetry/event-log.js';
import { toolMetrics } from '../telemetry/tool-metrics.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';

/** What asking a person about a batch needs from its gate. */
export interface ApprovalStep {
  readonly session: string;
  /** Answers confirmations unless the batch brings its own (ExecuteBatchOptions.approver). */
  readonly approver: Approver;
  /** `[tools.approval] timeout_seconds`, in ms: no answer by then is a denial. */
  readonly timeoutMs: number;
  /** The config file named in a denial's way to allow the call (Toolgate.configWhere). */
  readonly configWhere: string;
  readonly logger: EventLogger | undefined;
  /** Stores the "always" a person picked for an approved call (Grants.remember). */
  remember(p: PlannedCall, choice: RememberChoice): void;
}

/** The approver of a gate given none: every confirmation is denied, saying why (fail closed). */
export function noApproverSet(): Approver {
  return denyWith(
    'nobody was asked: no approver is set (createToolgate({ approver })), so confirmations are denied',
  );
}

/** Puts the calls that need it to a person (the approver), counted and, when traced, timed. */
export async function approveCalls(
  step: ApprovalStep,
  planned: PlannedCall[],
  options: ExecuteBatchOptions,
  tracing: BatchTrace | undefined,
  batchId?: string,
): Promise<PlannedCall[]> {
  const ask = () =>
    approveBatch(planned, options.approver ?? step.approver, {
      context: { session: step.session, ...(batchId !== undefined ? { batchId } : {}) },
      timeoutMs: step.timeoutMs,
      remember: (p, choice) => step.remember(p, choice),
      allowHint: (request) => hintForAsk(request, step.configWhere),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const counts = (approved: PlannedCall[]) => {
    let asked = 0;
    let granted = 0;
    for (const [i, p] of planned.entries()) {
      if (p.disposition.kind !== 'needs_approval') continue;
      asked++;
      if (approved[i]?.disposition.kind === 'execute') granted++;
    }
    return { asked, granted };
  };
  const log = step.logger;
  if (log) {
    for (const p of planned)
      if (p.disposition.kind === 'needs_approval')
        logEvent(
          log,
          'info',
          'approval_requested',
          { session: step.session, ...callFields(p) },
          tracing?.span,
        );
  }
  const approved = tracing
    ? await tracing.stepAsync('toolgate.approval', ask, (a) => {
        const { asked, granted } = counts(a);
        return { 'toolgate.approval.asked': asked, 'toolgate.approval.granted': granted };
      })
    : await ask();
  const { asked, granted } = counts(approved);
  if (log)
    logEvent(
      log,
      'info',
      'approval_decided',
      { session: step.session, asked, granted, denied: asked - granted },
      tracing?.span,
    );
  const m = toolMetrics().approvals;
  m.add(asked, { decision: 'asked' });
  if (granted) m.add(granted, { decision: 'granted' });
  if (asked > granted) m.add(asked - granted, { decision: 'denied' });
  return approved;
}
