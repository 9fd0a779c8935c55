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

  /** Whether a line at `level` would be written: its fields are built only then (warn is the default). */
  #logs(level: 'info' | 'warn'): boolean {
    return this.log !== undefined && (this.log.isLevelEnabled?.(level) ?? true);
  }

  callStarted(p: PlannedCall): string | undefined {
    this.#started.add(p.index);
    const traceparent = this.tracing?.callStarted(p);
    if (this.log && this.#logs('info'))
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
    const started = this.#started.has(p.index);
    // A refusal (policy, sandbox, a person, a limit) is a warning; a malformed call is the model's
    // ordinary mistake, told to it in the result: info.
    const level = !started && REFUSALS.has(result.error?.type ?? '') ? 'warn' : 'info';
    if (this.log && this.#logs(level)) {
      const fields = { ...this.base, ...callFields(p), ...resultFields(result) };
      const event = !started ? 'tool_call_blocked' : result.ok ? 'tool_call_completed' : 'tool_call_failed';
      logEvent(this.log, level, event, fields, this.tracing?.callSpan(p));
    }
    this.tracing?.callEnded(result, p);
  }
}
