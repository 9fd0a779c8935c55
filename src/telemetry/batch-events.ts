import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchTrace } from './batch-trace.js';
import { callFields, type EventLogger, logEvent, resultFields } from './event-log.js';

const REFUSALS = new Set(['Denied', 'SandboxViolation', 'LimitExceeded']);

/**
 * What a batch reports per call, to the trace and the log together: a call that starts opens its
 * span and logs `tool_call_started`; one that ends logs `tool_call_completed` or `_failed`; one
 * that never started (denied by policy, the sandbox, a person, or invalid) logs
 * `tool_call_blocked`. Made only when someone listens: otherwise the pipeline does nothing per call.
 */
export class BatchEvents {
  readonly #started = new Set<number>();

  private constructor(
    private readonly tracing: BatchTrace | undefined,
    private readonly log: EventLogger | undefined,
    private readonly base: Record<string, unknown>,
  ) {}

  static for(
    tracing: BatchTrace | undefined,
    log: EventLogger | undefined,
    base: Record<string, unknown>,
  ): BatchEvents | undefined {
    return tracing || log ? new BatchEvents(tracing, log, base) : undefined;
  }

  callStarted(p: PlannedCall): string | undefined {
    this.#started.add(p.index);
    const traceparent = this.tracing?.callStarted(p);
    if (this.log)
      logEvent(
        this.log,
        'info',
        'tool_call_started',
        { ...this.base, ...callFields(p) },
        this.tracing?.callSpan(p),
      );
    return traceparent;
  }

  callEnded(result: ToolResult, p: PlannedCall): void {
    if (this.log) {
      const span = this.tracing?.callSpan(p);
      const fields = { ...this.base, ...callFields(p), ...resultFields(result) };
      // A refusal (policy, sandbox, a person, a limit) is a warning; a malformed call is the model's
      // ordinary mistake, told to it in the result: info.
      if (!this.#started.has(p.index))
        logEvent(
          this.log,
          REFUSALS.has(result.error?.type ?? '') ? 'warn' : 'info',
          'tool_call_blocked',
          fields,
          span,
        );
      else logEvent(this.log, 'info', result.ok ? 'tool_call_completed' : 'tool_call_failed', fields, span);
    }
    this.tracing?.callEnded(result, p);
  }
}
