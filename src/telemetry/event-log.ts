import { type Span, trace } from '@opentelemetry/api';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { redactSecrets } from '../output/redact-secrets.js';

/**
 * Where toolgate's structured log lines go: pino's logger fits as it is (the CLI makes one), and
 * so does any object with these methods. The library itself depends on no logging package.
 */
export interface EventLogger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  isLevelEnabled?(level: string): boolean;
}

export type ToolgateEvent =
  | 'tool_call_started'
  | 'tool_call_completed'
  | 'tool_call_failed'
  | 'tool_call_blocked'
  | 'approval_requested'
  | 'approval_decided'
  | 'mode_changed';

/** Ids, names, rules, outcomes and times only: never an argument, a message or any content. */
export function logEvent(
  logger: EventLogger,
  level: 'info' | 'warn',
  event: ToolgateEvent,
  fields: Record<string, unknown>,
  span?: Span,
): void {
  if (logger.isLevelEnabled && !logger.isLevelEnabled(level)) return;
  const context = (span ?? trace.getActiveSpan())?.spanContext();
  const ids =
    context && trace.isSpanContextValid(context)
      ? { trace_id: context.traceId, span_id: context.spanId }
      : {};
  logger[level]({ event, ...ids, ...redactedFields(fields) }, event);
}

/**
 * Redaction is for logs (issue #30 §1: never for what a person approves): a free-text field (a
 * mode change's reason, a session name) may quote a secret, so every string is redacted here.
 */
function redactedFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const redacted = redactSecrets(value);
    if (redacted === value) continue;
    out ??= { ...fields };
    out[key] = redacted;
  }
  return out ?? fields;
}

/** What a call's log lines have in common. */
export function callFields(p: PlannedCall): Record<string, unknown> {
  return {
    call_id: boundedId(p.call.id),
    // Only a registered tool's name: an unknown one is whatever the model wrote (a secret, 2 MB).
    tool: p.tool ? p.call.name : '(unknown)',
    ...(p.tool ? { tier: p.tool.tier } : {}),
    ...(p.decision ? { decision: p.decision.action, rule: p.decision.rule } : {}),
  };
}

/** The outcome of a call that ended, for its log line. */
export function resultFields(result: ToolResult): Record<string, unknown> {
  return {
    ok: result.ok,
    latency_ms: result.latencyMs,
    ...(result.error ? { error_type: result.error.type } : {}),
    ...(result.metadata?.truncated === true ? { truncated: true } : {}),
  };
}

/** A call id as logged and traced: ids come from the model or its provider; long ones are cut, secrets redacted. */
export function boundedId(id: unknown): string {
  const text = redactSecrets(typeof id === 'string' ? id : String(id));
  return text.length <= 64 ? text : `${text.slice(0, 61)}...`;
}
