import type {
  ApprovalContext,
  ApprovalDecision,
  Approver,
  ConfirmationRequest,
} from '../core/confirmation.js';
import { denialMetadata } from '../core/denial.js';
import type { RememberChoice } from '../core/grant.js';
import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import { redactSecrets } from '../output/redact-secrets.js';

/**
 * Asks every confirmation of a batch at once, before anything runs (T-APR-01), then turns each
 * `needs_approval` into `execute` or a `Denied` result. No answer in time, an abort, or an
 * approver that fails are all denials (fail closed).
 */
export async function approveBatch(
  planned: readonly PlannedCall[],
  approver: Approver,
  options: {
    signal?: AbortSignal;
    timeoutMs: number;
    /**
     * Called for each approved call the person asked to always allow: the scope, and a directory
     * when the person picked one (a grant as narrow as the call's offer, `grant-coverage.ts`).
     */
    remember?: (planned: PlannedCall, choice: RememberChoice) => void;
    /** The config line that would let a call run without asking (named in its denial). */
    allowHint?: (request: ConfirmationRequest) => string | undefined;
    context?: ApprovalContext;
  },
): Promise<PlannedCall[]> {
  const requests: ConfirmationRequest[] = [];
  for (const p of planned) if (p.disposition.kind === 'needs_approval') requests.push(p.disposition.request);
  if (requests.length === 0) return [...planned];

  const decision = await decideWithTimeout(approver, requests, options);
  const approved = approvedIds(decision, requests);
  const why =
    decision.kind === 'deny_all' && decision.reason ? decision.reason : 'the user did not approve this call';
  return planned.map((p) => {
    if (p.disposition.kind !== 'needs_approval') return p;
    if (approved.has(p.call.id)) {
      const choice = rememberChoice(decision, p.call.id);
      if (choice) options.remember?.(p, choice);
      return { ...p, disposition: { kind: 'execute', approvedBy: 'person' } };
    }
    const { request } = p.disposition;
    const hint = options.allowHint?.(request);
    // What the model (and a person reading the result) needs: what would let it run first (hosts
    // shorten results, and some wrap them twice: issue #31 §1), then why it was not run and why it
    // was asked at all.
    // Redacted: the request is the call's exact text (a person saw it whole), but this goes to the
    // model and the journal's result, where a secret on the command line has no business (issue #30 §1).
    const message = redactSecrets(
      `denied. ${hint ? `${fixFirst(hint)} ` : ''}Why: ${why}; it needed approval because ${request.reason} (${request.rule}). Do not retry it unchanged`,
    );
    const denial = denialMetadata({
      kind: 'not_approved',
      reason: redactSecrets(why),
      rule: request.rule,
      ...(hint ? { allow: redactSecrets(hint) } : {}),
    });
    return {
      ...p,
      disposition: {
        kind: 'resolved',
        result: errorResult(p.call.id, p.call.name, 'Denied', message, 0, denial),
      },
    };
  });
}

/** The fix as the sentence a denial starts with: a config change, or "only when asked". */
export function fixFirst(hint: string): string {
  // hintForAsk's "none: …" (a deletion): no config line can help, so that is the sentence.
  if (hint.startsWith('none: ')) return `${hint.charAt(6).toUpperCase()}${hint.slice(7)}.`;
  return `To let it run without asking: ${hint}.`;
}

/**
 * What the person asked to remember for this call, read as data from whatever the approver sent:
 * a scope, or `{ scope, directory }`. Anything else remembers nothing (the approval itself stands).
 */
function rememberChoice(decision: ApprovalDecision, id: string): RememberChoice | undefined {
  let raw: unknown;
  if (decision?.kind === 'approve_all') raw = decision.remember;
  else if (decision?.kind === 'approve_selected')
    raw = decision.remember && Object.hasOwn(decision.remember, id) ? decision.remember[id] : undefined;
  const isScope = (s: unknown): s is 'session' | 'project' => s === 'session' || s === 'project';
  if (isScope(raw)) return raw;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { scope, directory } = raw as { scope?: unknown; directory?: unknown };
  if (!isScope(scope)) return undefined;
  if (directory === undefined) return scope;
  return typeof directory === 'string' ? { scope, directory } : undefined;
}

function approvedIds(decision: ApprovalDecision, requests: readonly ConfirmationRequest[]): Set<string> {
  switch (decision?.kind) {
    case 'approve_all':
      return new Set(requests.map((r) => r.callId));
    case 'approve_selected': {
      // Only ids that were actually asked count; anything else in the answer is ignored.
      const asked = new Set(requests.map((r) => r.callId));
      return new Set(decision.ids.filter((id) => asked.has(id)));
    }
    default:
      // deny_all, or an answer of a shape we do not know: nothing is approved.
      return new Set();
  }
}

async function decideWithTimeout(
  approver: Approver,
  requests: readonly ConfirmationRequest[],
  options: { signal?: AbortSignal; timeoutMs: number; context?: ApprovalContext },
): Promise<ApprovalDecision> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (options.signal?.aborted) return { kind: 'deny_all', reason: 'the batch was cancelled' };
    const timeout = new Promise<ApprovalDecision>((resolve) => {
      timer = setTimeout(() => {
        resolve({ kind: 'deny_all', reason: 'no answer to the confirmation in time' });
        controller.abort(); // tells the approver (e.g. a prompt) to stop asking
      }, options.timeoutMs);
    });
    const aborted = new Promise<ApprovalDecision>((resolve) => {
      controller.signal.addEventListener(
        'abort',
        () => resolve({ kind: 'deny_all', reason: 'the batch was cancelled' }),
        {
          once: true,
        },
      );
    });
    const answer = approver(requests, controller.signal, options.context).then(
      (decision) => decision ?? { kind: 'deny_all', reason: 'the approver gave no answer' },
      () => ({ kind: 'deny_all' as const, reason: 'the approval prompt failed' }),
    );
    return await Promise.race([answer, timeout, aborted]);
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
