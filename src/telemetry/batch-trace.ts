import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { redactSecrets } from '../output/redact-secrets.js';
import { boundedId } from './event-log.js';
import { randomSpanId, randomTraceId } from './random-trace-ids.js';
import { toolMetrics } from './tool-metrics.js';
import { formatTraceparent } from './traceparent.js';

const TRACER_NAME = 'toolgate';

/** Telemetry is redacted (issue #30 §1): a session name is free text and may quote a secret. */
function redacted(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    out[key] = typeof value === 'string' ? redactSecrets(value) : value;
  return out;
}

/**
 * The spans of one batch (GenAI semantic conventions for tool execution): `toolgate.batch`, with
 * children `toolgate.plan`, `toolgate.approval` (the wait for a person) and one `execute_tool
 * {name}` per call. Attributes name tools, ids, rules and outcomes, never an argument value (a
 * call's summary is redacted, but even it stays out). With no SDK registered the batch span is a
 * no-op and `start` returns undefined: the pipeline then does nothing more per call — unless log
 * lines are written: then it gives ids alone (see `start`).
 */
export class BatchTrace {
  readonly #batch: Span;
  readonly #context: Context;
  readonly #calls = new Map<number, Span>();
  /** Ids for log lines only: nothing records these spans (no SDK, or a trace not sampled). */
  readonly #idsOnly: boolean;

  private constructor(batch: Span, parent: Context, idsOnly: boolean) {
    this.#batch = batch;
    this.#context = trace.setSpan(parent, batch);
    this.#idsOnly = idsOnly;
  }

  /**
   * Starts a batch's span under `parent`; undefined when nothing records it, unless `logIds`: log
   * lines carry a trace and span id for every call whether or not an SDK is registered (seed 002
   * §4.2). Then the trace is the parent's (TRACEPARENT, a host's span) or a new one, and each call
   * gets a new span id; an SDK that is registered keeps its own ids.
   */
  static start(parent: Context, attributes: Attributes, logIds = false): BatchTrace | undefined {
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan('toolgate.batch', { attributes: redacted(attributes) }, parent);
    if (span.isRecording()) return new BatchTrace(span, parent, false);
    span.end();
    if (!logIds) return undefined;
    // Without an SDK the no-op span carries the parent's context (or none); a sampler's unsampled one its own.
    const known = span.spanContext();
    const inherited = trace.isSpanContextValid(known) ? known : undefined;
    const batch = trace.wrapSpanContext({
      traceId: inherited?.traceId ?? randomTraceId(),
      spanId: randomSpanId(),
      traceFlags: inherited?.traceFlags ?? TraceFlags.NONE,
    });
    return new BatchTrace(batch, parent, true);
  }

  /** The batch's span (its ids for the batch's own log lines). */
  get span(): Span {
    return this.#batch;
  }

  /** A child span around synchronous work (planning). */
  step<T>(name: string, work: () => T, describe?: (value: T) => Attributes): T {
    if (this.#idsOnly) return work();
    const span = trace.getTracer(TRACER_NAME).startSpan(name, {}, this.#context);
    try {
      const value = work();
      if (describe) span.setAttributes(describe(value));
      return value;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  }

  /** A child span around asynchronous work (the wait for a person's answer). */
  async stepAsync<T>(name: string, work: () => Promise<T>, describe?: (value: T) => Attributes): Promise<T> {
    if (this.#idsOnly) return await work();
    const span = trace.getTracer(TRACER_NAME).startSpan(name, {}, this.#context);
    try {
      const value = await work();
      if (describe) span.setAttributes(describe(value));
      return value;
    } finally {
      span.end();
    }
  }

  /**
   * A call starts running: its span opens; the traceparent its child processes inherit. None for
   * ids only: a made-up unsampled parent would make a child's own SDK drop its traces.
   */
  callStarted(p: PlannedCall): string | undefined {
    if (this.#idsOnly) return undefined;
    const span = this.callSpan(p);
    return formatTraceparent(span.spanContext());
  }

  /** A call's result, whether it ran or was settled before running (denied, invalid). */
  callEnded(result: ToolResult, p: PlannedCall): void {
    if (this.#idsOnly) {
      this.#calls.delete(p.index);
      return;
    }
    const span = this.callSpan(p);
    this.#calls.delete(p.index);
    if (result.error) {
      span.setAttribute('error.type', result.error.type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.type });
    }
    if (result.metadata?.truncated === true) span.setAttribute('toolgate.output.truncated', true);
    span.end();
  }

  end(results: readonly ToolResult[]): void {
    const failed = results.filter((r) => !r.ok).length;
    this.#batch.setAttribute('toolgate.batch.failed', failed);
    for (const span of this.#calls.values()) span.end(); // never left open, whatever happened
    this.#batch.end();
  }

  /** The call's span, opened now if it is not open yet (a call settled before it ran). */
  callSpan(p: PlannedCall): Span {
    let span = this.#calls.get(p.index);
    if (!span && this.#idsOnly) {
      const batch = this.#batch.spanContext();
      span = trace.wrapSpanContext({
        traceId: batch.traceId,
        spanId: randomSpanId(),
        traceFlags: batch.traceFlags,
      });
      this.#calls.set(p.index, span);
    }
    if (!span) {
      const name = p.tool ? p.call.name : '(unknown)'; // never the model's text for a tool that does not exist
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': boundedId(p.call.id),
        'gen_ai.tool.type': 'function',
      };
      if (p.tool) attributes['toolgate.tool.tier'] = p.tool.tier;
      if (p.decision) {
        attributes['toolgate.policy.action'] = p.decision.action;
        attributes['toolgate.policy.rule'] = p.decision.rule;
      }
      span = trace
        .getTracer(TRACER_NAME)
        .startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, this.#context);
      this.#calls.set(p.index, span);
    }
    return span;
  }
}

/** Calls, durations and outcomes as metrics (no-ops without a MeterProvider). */
export function recordCallMetrics(result: ToolResult, known = true): void {
  const m = toolMetrics();
  // Registered names only: an unknown tool's name is the model's text, and unbounded in number.
  const attributes = {
    'gen_ai.tool.name': known ? result.name : '(unknown)',
    outcome: result.error ? result.error.type : 'ok',
  };
  m.calls.add(1, attributes);
  m.duration.record(result.latencyMs, attributes);
}
