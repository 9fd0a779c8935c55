import { performance } from 'node:perf_hooks';
import type { PlannedCall } from '../core/planned-call.js';
import { isRepeatable, type Tier } from '../core/tier.js';
import type { Clearance, ToolOutput } from '../core/tool-definition.js';
import { ToolError } from '../core/tool-error.js';
import type { ToolEventSink } from '../core/tool-event.js';
import type { ToolResult } from '../core/tool-result.js';
import { failureResult, successResult } from '../output/finalize-result.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { cutToBytes, type OutputLimits } from '../output/truncate-output.js';
import type { RateCounter } from '../policy/rate-limiter.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { recordCallMetrics } from '../telemetry/batch-trace.js';
import { CallContext } from './call-context.js';

/** Hooks the journal uses: a call is recorded before it runs, its result before the next starts. */
export interface BatchObserver {
  onCallStart?(planned: PlannedCall): void | Promise<void>;
  onCallResult?(result: ToolResult, planned: PlannedCall): void | Promise<void>;
}

export interface ExecuteOptions {
  sandbox: Sandbox;
  defaultTimeoutMs: number;
  /** Bytes per result, marker included (`[tools.output] max_bytes`, or tighter); also the tools' own cap. */
  outputLimit: number;
  /** Lines per result, marker included (`[tools.output] max_lines`); unset: no line limit. */
  outputMaxLines?: number | undefined;
  allowParallel: boolean;
  signal?: AbortSignal;
  emit?: ToolEventSink;
  observer?: BatchObserver;
  rates?: RateCounter;
  /** Trace and log per call, when anyone listens; callStarted gives the traceparent for the tool. */
  events?: {
    callStarted(p: PlannedCall): string | undefined;
    callEnded(result: ToolResult, p: PlannedCall): void;
  };
}

const CALL_FINISHED = Object.freeze(new ToolError('Cancelled', 'the call already finished'));

type Stop = { kind: 'timeout'; ms: number } | { kind: 'cancel' };

/**
 * Runs planned calls in call order (seed 000 FR-EXE-01..05); with `allowParallel`, consecutive
 * read-only calls run together (seed 003), results still delivered in call order. Exactly one
 * result per call, whatever a tool does: throws, hangs (timeout), or the batch is cancelled.
 */
export async function executeBatch(
  planned: readonly PlannedCall[],
  options: ExecuteOptions,
): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  // Set when the journal cannot record: nothing more may run, since its outcome could be lost.
  const halt: { reason?: string } = {};
  const cannotRecord = (error: unknown) => {
    halt.reason = `the journal could not record a result (${(error as Error).message})`;
  };
  // A promise only when the observer gives one to wait for: otherwise no extra turn of the loop.
  const deliver = (result: ToolResult, p: PlannedCall): Promise<void> | undefined => {
    results.push(result);
    recordCallMetrics(result, p.tool !== undefined);
    options.events?.callEnded(result, p);
    if (halt.reason) return undefined;
    try {
      return options.observer?.onCallResult?.(result, p)?.then(undefined, cannotRecord);
    } catch (error) {
      cannotRecord(error);
      return undefined;
    }
  };
  let i = 0;
  while (i < planned.length) {
    if (halt.reason) {
      const p = planned[i] as PlannedCall;
      results.push(
        failureResult(
          p.call.id,
          p.call.name,
          'Internal',
          `not executed: ${halt.reason}`,
          limitsOf(options),
          0,
        ),
      );
      i++;
      continue;
    }
    let end = i + 1;
    if (options.allowParallel && isParallelSafe(planned[i] as PlannedCall)) {
      while (end < planned.length && isParallelSafe(planned[end] as PlannedCall)) end++;
    }
    const group = planned.slice(i, end);
    if (group.length === 1) {
      const only = group[0] as PlannedCall;
      const delivered = deliver(await runOne(only, options, halt), only);
      if (delivered) await delivered;
    } else {
      const groupResults = await Promise.all(group.map((p) => runOne(p, options, halt)));
      for (const [k, result] of groupResults.entries()) {
        const delivered = deliver(result, group[k] as PlannedCall);
        if (delivered) await delivered;
      }
    }
    i = end;
  }
  return results;
}

/** The limits every result is finalized within (truncation marker included). */
function limitsOf(options: ExecuteOptions): OutputLimits {
  return { maxBytes: options.outputLimit, maxLines: options.outputMaxLines };
}

function isParallelSafe(p: PlannedCall): boolean {
  return p.disposition.kind === 'execute' && p.tool !== undefined && isRepeatable(p.tool.tier);
}

async function runOne(
  p: PlannedCall,
  options: ExecuteOptions,
  halt: { reason?: string },
): Promise<ToolResult> {
  const { call } = p;
  if (p.disposition.kind === 'resolved') {
    // Pre-resolved errors get the same output treatment as any other result (FR-OUT-04 scope).
    const r = p.disposition.result;
    if (!r.error) return r;
    return failureResult(
      r.id,
      r.name,
      r.error.type,
      r.error.message,
      limitsOf(options),
      r.latencyMs,
      r.metadata,
    );
  }
  if (p.disposition.kind === 'needs_approval' || !p.tool) {
    // Approval must have happened before execution; running without it would be an allow by default.
    return failureResult(
      call.id,
      call.name,
      'Denied',
      'denied: the call was never approved',
      limitsOf(options),
      0,
    );
  }
  if (options.signal?.aborted) {
    return failureResult(call.id, call.name, 'Cancelled', 'Cancelled by user', limitsOf(options), 0);
  }
  const tool = p.tool;
  const started = performance.now();
  const pending = options.sandbox.pendingSyncs;
  if (!isRepeatable(tool.tier) && !pending.idle) {
    // Files written before are on disk before this effect starts, and before the journal's commit
    // below makes their results durable (docs/DURABILITY.md, "Writes").
    try {
      await pending.settle(options.sandbox); // its own failures only: another session's are not its to hear
    } catch (error) {
      return failureResult(
        call.id,
        call.name,
        'ExecutionFailed',
        `not executed: ${(error as Error).message}`,
        limitsOf(options),
        0,
      );
    }
  }
  try {
    // Durably `running` before the tool starts: a crash from here on is "outcome unknown", never a re-run.
    const recorded = options.observer?.onCallStart?.(p);
    if (recorded) await recorded;
  } catch (error) {
    halt.reason ??= `the journal could not record the call before running it (${(error as Error).message})`;
    return failureResult(
      call.id,
      call.name,
      'Internal',
      `not executed: ${halt.reason}`,
      limitsOf(options),
      0,
    );
  }
  options.rates?.record(tool.name, Date.now());
  options.emit?.({ type: 'started', callId: call.id, toolName: tool.name });

  const traceparent = options.events?.callStarted(p);
  let result = await attempt(p, tool, options, traceparent, started);
  const transient = retryable(result, tool.tier, options.signal);
  if (transient) {
    // Once, for a read-only call only (seed 002 §6.2): it changes nothing, so running it again is safe.
    const first = result.error?.type;
    const again = await attempt(p, tool, options, traceparent, started);
    result = { ...again, metadata: { ...again.metadata, retried: { after: first, cause: transient } } };
  }
  options.emit?.({ type: 'completed', callId: call.id, ok: result.ok });
  return result;
}

/** Errors worth one more try: the OS said "not now", not "no". */
const TRANSIENT = new Set([
  'EAGAIN',
  'EBUSY',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EMFILE',
  'ENFILE',
  'EINTR',
]);

/**
 * The transient cause, when a failed read-only call may be run once more: the system's errno as
 * the tool recorded it (`metadata.code`), never a word in the message, which can hold a path or
 * text a model chose.
 */
function retryable(result: ToolResult, tier: Tier, signal: AbortSignal | undefined): string | undefined {
  if (result.ok || tier !== 'read_only' || signal?.aborted) return undefined;
  if (result.error?.type !== 'ExecutionFailed' && result.error?.type !== 'Internal') return undefined;
  const code = result.metadata?.code;
  return typeof code === 'string' && TRANSIENT.has(code) ? code : undefined;
}

/** One run of a call's tool: its own context, timeout and cancellation; always a result. */
async function attempt(
  p: PlannedCall,
  tool: NonNullable<PlannedCall['tool']>,
  options: ExecuteOptions,
  traceparent: string | undefined,
  started: number,
): Promise<ToolResult> {
  const { call } = p;
  const ctx = new CallContext(
    call.id,
    options.sandbox,
    options.outputLimit,
    p.paths,
    options.emit,
    traceparent,
    clearanceOf(p),
  );
  const latency = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  let onBatchAbort: (() => void) | undefined;
  let result: ToolResult;
  try {
    const running = performance.now();
    const returned = tool.execute(p.args, ctx);
    if (!isPromiseLike(returned)) {
      // Done in the call itself (a small read): no timer or cancel listener was ever needed.
      result = toSuccess(call.id, tool.name, returned, limitsOf(options), latency());
    } else {
      const work = Promise.resolve(returned);
      work.catch(() => {}); // a tool that fails after its timeout must not become an unhandled rejection
      const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
      const stopped = new Promise<Stop>((resolve) => {
        const left = Math.max(0, timeoutMs - (performance.now() - running));
        timer = setTimeout(() => resolve({ kind: 'timeout', ms: timeoutMs }), left);
        onBatchAbort = () => resolve({ kind: 'cancel' });
        options.signal?.addEventListener('abort', onBatchAbort, { once: true });
        if (options.signal?.aborted) onBatchAbort();
      });
      const outcome = await Promise.race([work.then((value) => ({ value })), stopped]);
      if ('value' in outcome) {
        result = toSuccess(call.id, tool.name, outcome.value, limitsOf(options), latency());
      } else if (outcome.kind === 'timeout') {
        ctx.stop(new ToolError('Timeout', 'timed out'));
        result = failureResult(
          call.id,
          tool.name,
          'Timeout',
          `timed out after ${formatMs(outcome.ms)} and was stopped; narrow the request or raise the timeout`,
          limitsOf(options),
          latency(),
        );
      } else {
        ctx.stop(new ToolError('Cancelled', 'cancelled'));
        result = failureResult(
          call.id,
          tool.name,
          'Cancelled',
          'Cancelled by user',
          limitsOf(options),
          latency(),
        );
      }
    }
  } catch (error) {
    result = fromThrown(call.id, tool.name, error, limitsOf(options), latency());
  } finally {
    if (timer) clearTimeout(timer);
    if (onBatchAbort) options.signal?.removeEventListener('abort', onBatchAbort);
    // Anything the tool left running learns the call is over.
    ctx.stop(CALL_FINISHED);
  }
  return result;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function toSuccess(
  id: string,
  name: string,
  value: unknown,
  limit: OutputLimits,
  latencyMs: number,
): ToolResult {
  if (typeof value === 'string') return successResult(id, name, { content: value }, limit, latencyMs);
  if (typeof value === 'object' && value !== null && typeof (value as ToolOutput).content === 'string') {
    return successResult(id, name, value as ToolOutput, limit, latencyMs);
  }
  return failureResult(
    id,
    name,
    'Internal',
    'the tool returned no content (internal error in the tool)',
    limit,
    latencyMs,
  );
}

/** A thrown error becomes a result; a non-ToolError's text is cleaned and capped (seed 000 FR-EXE-04b-3). */
function fromThrown(
  id: string,
  name: string,
  error: unknown,
  limit: OutputLimits,
  latencyMs: number,
): ToolResult {
  if (ToolError.isInstance(error)) {
    return failureResult(id, name, error.type, error.message, limit, latencyMs, error.metadata);
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : 'a non-error value was thrown';
  const clean = cutToBytes(sanitizeForTerminal(text).replace(/\s+/g, ' '), 500);
  // The system's own errno (ENOMEM, ENOSPC, …), kept apart from the text a model could have chosen.
  const code = (error as { code?: unknown } | null)?.code;
  const meta = typeof code === 'string' && /^E[A-Z0-9]{2,15}$/.test(code) ? { code } : undefined;
  return failureResult(id, name, 'ExecutionFailed', `the tool crashed (${clean})`, limit, latencyMs, meta);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** How a call was cleared: a person's approval, or a rule's (then a command runs as it was rebuilt). */
function clearanceOf(p: PlannedCall): Clearance {
  if (p.disposition.kind === 'execute' && p.disposition.approvedBy === 'person') return { by: 'person' };
  const rebuilt = p.commandFacts?.rebuilt;
  return rebuilt === undefined ? { by: 'policy' } : { by: 'policy', rebuilt };
}
