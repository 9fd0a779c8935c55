import { randomUUID } from 'node:crypto';
import { type Context, context, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import type { Approver } from '../core/confirmation.js';
import type { AssistantToolCall, ConversationMessage } from '../core/conversation.js';
import type { LoopEvent } from '../core/loop-event.js';
import { errorResult } from '../core/make-result.js';
import type { ToolErrorType } from '../core/tool-error.js';
import type { ToolResult } from '../core/tool-result.js';
import { JournalError } from '../journal/journal.js';
import { keepLease } from '../journal/keep-lease.js';
import type { AdvertisedTool, Connection, ProviderAdapter } from '../providers/provider.js';
import { ProviderError } from '../providers/provider.js';
import { type StreamedTurn, streamTurn } from '../providers/stream-turn.js';
import { randomSpanId, randomTraceId } from '../telemetry/random-trace-ids.js';
import { contextWithTraceparent } from '../telemetry/traceparent.js';
import type { Toolgate } from '../toolgate.js';
import { RepeatGuard } from './repeat-guard.js';
import { availableCapacityBytes, perCallLimit } from './tool-output-budget.js';

type AssistantMessage = Extract<ConversationMessage, { role: 'assistant' }>;

export type TurnStatus =
  | 'done'
  | 'cancelled'
  | 'awaiting_results'
  | 'max_iterations'
  | 'repeated_failure'
  | 'incomplete'
  | 'error';

export interface TurnOutcome {
  status: TurnStatus;
  /** The messages this turn added, in order (the user's prompt first when there was one). */
  messages: ConversationMessage[];
  /** The last assistant text. */
  text: string;
  /** Why the turn stopped early, for the person. */
  error?: string;
  /** parse_only: calls still waiting for results. */
  pending?: AssistantToolCall[];
}

export interface TurnOptions {
  gate: Toolgate;
  adapter: ProviderAdapter;
  connection: Connection;
  model: string;
  system?: string;
  maxTokens?: number;
  /** The model's context window (tokens), for the tool-output budget (FR-REG-04b). */
  contextTokens?: number;
  /** The conversation so far. */
  history?: readonly ConversationMessage[];
  /** The person's new message; absent when continuing (e.g. after parse-only results). */
  prompt?: string;
  signal?: AbortSignal;
  approver?: Approver;
  onEvent?: (event: LoopEvent) => void;
  /** Overrides `tools.max_tool_iterations_per_user_turn`. */
  maxIterations?: number;
  /** parse_only: a person supplies the results (`/tool <id> <result>`); undefined leaves them pending. */
  supplyResults?: (calls: readonly AssistantToolCall[]) => Promise<ToolResult[] | undefined>;
  fetch?: typeof fetch;
  retries?: number;
  backoffMs?: number;
  /** The trace the turn belongs to (default: the active context). */
  traceContext?: Context;
  /** A W3C traceparent naming the turn's parent span (the CLI passes TRACEPARENT). */
  traceparent?: string;
}

const TRUNCATED = new Set(['length', 'max_tokens', 'MAX_TOKENS', 'max_output_tokens']);
const NORMAL_FINISH = new Set([
  'stop',
  'end_turn',
  'completed',
  'STOP',
  'tool_calls',
  'tool_use',
  'stop_sequence',
]);

/** What a provider is told about: nothing when disabled; config-defined tools in parse_only. */
export function advertisedTools(gate: Toolgate): AdvertisedTool[] {
  const tools = gate.config.tools;
  if (tools.mode === 'disabled') return [];
  const registry: AdvertisedTool[] = gate.registry.definitions().map((d) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.inputSchema,
  }));
  const configured = tools.definitions.map((d) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.parameters,
  }));
  if (tools.mode === 'enabled' && !tools.advertise_definitions) return registry;
  const byName = new Map<string, AdvertisedTool>();
  for (const t of [...registry, ...configured]) byName.set(t.name, t);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * One user turn of the agent loop (seed 000 §2.1, §3.8, §8.2): Streaming → ToolLoop (plan,
 * approve, execute, persist) → Streaming again, until the model answers without tools. Calls are
 * journaled as they stream in; results go back in call order; a denied-only batch still
 * resumes; a cancel stops without resuming; a cut-off stream never runs or resumes.
 */
export async function runTurn(options: TurnOptions): Promise<TurnOutcome> {
  // One trace for the turn: its span, a `chat {model}` span per model request, and every batch under it.
  const parent = options.traceparent
    ? contextWithTraceparent(options.traceparent, options.traceContext)
    : (options.traceContext ?? context.active());
  const span = trace.getTracer('toolgate').startSpan(
    'invoke_agent toolgate',
    {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'toolgate',
        'gen_ai.request.model': options.model,
        'gen_ai.provider.name': options.adapter.kind,
        'toolgate.session': options.gate.session,
      },
    },
    parent,
  );
  // No SDK and no parent: the span has no ids; the turn's log lines still share one trace (seed 002 §4.2).
  const turnSpan = trace.isSpanContextValid(span.spanContext())
    ? span
    : trace.wrapSpanContext({
        traceId: randomTraceId(),
        spanId: randomSpanId(),
        traceFlags: TraceFlags.NONE,
      });
  try {
    const outcome = await turnWithin(options, trace.setSpan(parent, turnSpan));
    span.setAttribute('toolgate.turn.status', outcome.status);
    if (outcome.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'error' });
    return outcome;
  } finally {
    span.end();
  }
}

async function turnWithin(options: TurnOptions, traceContext: Context): Promise<TurnOutcome> {
  const { gate } = options;
  const journal = gate.journal;
  const session = gate.session;
  const config = gate.config.tools;
  const mode = config.mode;
  const maxIterations = options.maxIterations ?? config.max_tool_iterations_per_user_turn;
  const maxTokens = options.maxTokens ?? 4096;
  const emit = options.onEvent ?? (() => {});
  const guard = new RepeatGuard(config.max_repeated_failures);
  const conversation: ConversationMessage[] = [...(options.history ?? [])];
  const added: ConversationMessage[] = [];
  const push = (m: ConversationMessage) => {
    conversation.push(m);
    added.push(m);
  };
  const outcome = (status: TurnStatus, extra: Partial<TurnOutcome> = {}): TurnOutcome => {
    const last = [...added].reverse().find((m) => m.role === 'assistant') as AssistantMessage | undefined;
    return { status, messages: added, text: last?.text ?? '', ...extra };
  };

  if (options.prompt !== undefined) {
    push({ role: 'user', text: options.prompt });
    journal?.appendMessage(session, 'user', { text: options.prompt });
  }
  const tools = advertisedTools(gate);
  let iterations = 0;
  let capped = false;

  for (let request = 1; ; request++) {
    emit({ type: 'request', iteration: request });
    const batchId = randomUUID();
    let streamed = false;
    let turn: StreamedTurn;
    const chat = trace.getTracer('toolgate').startSpan(
      `chat ${options.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': options.model,
          'gen_ai.provider.name': options.adapter.kind,
        },
      },
      traceContext,
    );
    try {
      turn = await streamTurn(
        options.adapter,
        {
          model: options.model,
          ...(options.system ? { system: options.system } : {}),
          messages: conversation,
          tools,
          maxTokens,
        },
        options.connection,
        {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.retries === undefined ? {} : { retries: options.retries }),
          ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
          onEvent: (event) => emit({ type: 'stream', event }),
          onRetry: (attempt, reason) => emit({ type: 'retry', attempt, reason }),
          // FR-RES-04a: a call is durable the moment it is whole, before the response ends.
          onCallClosed: (call, index) => {
            if (!journal) return;
            const lease = gate.lease;
            try {
              journal.recordStreamedCall(
                session,
                batchId,
                index,
                { id: call.id, name: call.name, arguments: call.arguments },
                lease,
              );
            } catch (error) {
              // A write the server never answered may land later and make the batch: nothing of
              // it runs (the turn fails here), so it is marked given up, never to be taken over.
              if (error instanceof JournalError && error.outcomeUnknown) {
                try {
                  journal.giveUp?.(batchId, lease?.worker);
                } catch {
                  // The server still does not answer: the turn's failure says the journal failed.
                }
              }
              throw error;
            }
            // Held while the model writes the rest; the renewal stops by itself once the batch is settled.
            if (!streamed && lease) keepLease(journal, batchId, lease);
            streamed = true;
          },
        },
      );
    } catch (error) {
      chat.setStatus({ code: SpanStatusCode.ERROR, message: 'the model request failed' });
      chat.end();
      const cancelled = options.signal?.aborted === true;
      if (streamed)
        settleUnrun(
          gate,
          batchId,
          [],
          cancelled ? 'Cancelled' : 'Internal',
          'not executed: the response did not finish',
        );
      if (cancelled) return outcome('cancelled');
      const message =
        error instanceof ProviderError
          ? error.message
          : error instanceof JournalError
            ? `the journal could not record a tool call as the model sent it (${error.message}); nothing from this response was run`
            : `provider request failed: ${(error as Error).message}`;
      return outcome('error', { error: message });
    }
    if (turn.finishReason) chat.setAttribute('gen_ai.response.finish_reasons', [turn.finishReason]);
    chat.end();

    const assistant: AssistantMessage = {
      role: 'assistant',
      text: turn.text,
      toolCalls: turn.toolCalls,
      provider: options.adapter.kind,
      ...(turn.raw === undefined ? {} : { raw: turn.raw }),
    };
    const journalAssistant = { provider: options.adapter.kind, model: options.model, raw: turn.raw ?? null };
    push(assistant);
    emit({ type: 'assistant', message: assistant });

    if (!turn.complete) {
      // A stream without its terminator: nothing from it runs, and the model is not resumed.
      if (turn.toolCalls.length > 0) {
        settleUnrun(
          gate,
          batchId,
          turn.toolCalls,
          'Internal',
          `not executed: ${turn.problem}`,
          turn.text,
          journalAssistant,
        );
      } else
        journal?.appendMessage(session, 'assistant', { ...journalAssistant, text: turn.text, toolUses: [] });
      return outcome('incomplete', {
        error: `${turn.problem}; nothing from it was run. Ask again to retry.`,
      });
    }
    if (turn.toolCalls.length === 0) {
      journal?.appendMessage(session, 'assistant', { ...journalAssistant, text: turn.text, toolUses: [] });
      const reason = turn.finishReason;
      if (turn.text.trim() === '' && reason !== undefined && !NORMAL_FINISH.has(reason)) {
        // e.g. Gemini MALFORMED_FUNCTION_CALL or SAFETY, OpenAI content_filter: no answer at all.
        return outcome('error', { error: `the model stopped without an answer (finish reason "${reason}")` });
      }
      return outcome('done');
    }

    // Tools were requested: decided from the calls themselves, not from the stop reason.
    const calls = turn.toolCalls;
    let results: ToolResult[];
    if (turn.finishReason !== undefined && TRUNCATED.has(turn.finishReason)) {
      results = settleUnrun(
        gate,
        batchId,
        calls,
        'BadArgs',
        `the model's output was cut off at its token limit (finish reason "${turn.finishReason}"), so this call was not run; send it again, shorter`,
        turn.text,
        journalAssistant,
      );
    } else if (capped || iterations >= maxIterations) {
      // FR-RES-03: pre-resolved errors, and the model is resumed once to answer with them.
      results = settleUnrun(
        gate,
        batchId,
        calls,
        'LimitExceeded',
        'Max tool iterations reached',
        turn.text,
        journalAssistant,
      );
      if (capped) {
        // The way to raise the cap first (issue #31 §3): the flag, or the config key and its file.
        const more = maxIterations * 2;
        return outcome('max_iterations', {
          error: `to allow more than ${maxIterations} round${maxIterations === 1 ? '' : 's'} of tool calls in one turn, pass --max-iterations ${more} (toolgate run and chat; maxIterations for runTurn) or set max_tool_iterations_per_user_turn = ${more} under [tools] in ${gate.configWhere}. Stopped: the model kept calling tools after max_tool_iterations_per_user_turn (${maxIterations}) was reached`,
        });
      }
      capped = true;
    } else if (mode === 'parse_only') {
      emit({ type: 'pending', calls });
      const supplied = options.supplyResults ? await options.supplyResults(calls) : undefined;
      if (!supplied) {
        // Nobody here to answer: the batch is settled (the journal never keeps a half-open one) and
        // the calls are handed back; the caller puts the person's results in the next turn's history.
        settleUnrun(
          gate,
          batchId,
          calls,
          'Denied',
          'tools.mode is "parse_only": no result was supplied for this call',
          turn.text,
          journalAssistant,
        );
        return outcome('awaiting_results', { pending: calls });
      }
      results = orderResults(calls, supplied);
      settleWith(gate, batchId, calls, results, turn.text, journalAssistant);
      iterations++;
    } else {
      iterations++;
      const capacity = availableCapacityBytes({
        contextTokens: options.contextTokens,
        messages: conversation,
        ...(options.system ? { system: options.system } : {}),
        responseReserveTokens: maxTokens,
      });
      results = await gate.execute(toToolCalls(calls), {
        batchId,
        assistantText: turn.text,
        assistant: journalAssistant,
        outputLimit: perCallLimit(capacity, calls.length),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.approver ? { approver: options.approver } : {}),
        onEvent: (event) => emit({ type: 'tool', event }),
        traceContext,
      });
    }
    const message: ConversationMessage = { role: 'tool_results', results };
    push(message);
    emit({ type: 'results', message });
    if (options.signal?.aborted) return outcome('cancelled');
    for (const [i, call] of calls.entries()) {
      const stop = guard.record(call, results[i] as ToolResult);
      if (stop) return outcome('repeated_failure', { error: stop });
    }
    // FR-RES-02: resume with the same provider and model (a denied-only batch too).
  }
}

function toToolCalls(calls: readonly AssistantToolCall[]) {
  return calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
}

/** Results a person supplied, put in call order; a call left without one says so. */
function orderResults(calls: readonly AssistantToolCall[], supplied: readonly ToolResult[]): ToolResult[] {
  const byId = new Map(supplied.map((r) => [r.id, r]));
  return calls.map(
    (c) =>
      byId.get(c.id) ??
      errorResult(c.id, c.name, 'Denied', 'no result was supplied for this call (parse_only mode)'),
  );
}

/** Pre-resolves calls that will not run, journals them with their results, returns the results. */
function settleUnrun(
  gate: Toolgate,
  batchId: string,
  calls: readonly AssistantToolCall[],
  type: ToolErrorType,
  message: string,
  text?: string,
  assistant?: Record<string, unknown>,
): ToolResult[] {
  const results = calls.map((c) => errorResult(c.id, c.name, type, message));
  settleWith(gate, batchId, calls, results, text, assistant);
  return results;
}

function settleWith(
  gate: Toolgate,
  batchId: string,
  calls: readonly AssistantToolCall[],
  results: readonly ToolResult[],
  text?: string,
  assistant?: Record<string, unknown>,
): void {
  const journal = gate.journal;
  if (!journal) return;
  const existing = journal.batch(batchId);
  if (!existing && calls.length === 0) return;
  journal.beginBatch(gate.session, toToolCalls(calls), {
    batchId,
    ...(text ? { assistantText: text } : {}),
    ...(assistant ? { assistant } : {}),
    ...(gate.lease ? { lease: gate.lease } : {}),
  });
  const record = journal.batch(batchId);
  for (const call of record?.calls ?? []) {
    if (call.result) continue;
    const result =
      results[call.index] ??
      errorResult(call.id, call.name, 'Internal', 'not executed: the response did not finish');
    journal.recordResult(batchId, call.index, result, result.ok ? 'done' : 'denied');
  }
  journal.finishBatch(batchId, gate.lease);
}
