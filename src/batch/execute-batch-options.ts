import type { Context } from '@opentelemetry/api';
import type { Approver } from '../core/confirmation.js';
import type { ToolEventSink } from '../core/tool-event.js';
import type { BatchObserver } from '../run/execute-batch.js';

/** How one batch is run by `Toolgate.execute` (and resumed or taken over). */
export interface ExecuteBatchOptions {
  signal?: AbortSignal;
  /** The assistant text that came with the calls (journaled with them, FR-RES-01). */
  assistantText?: string;
  /** More of the assistant message for the journal (provider, model, raw turn). */
  assistant?: Record<string, unknown>;
  /** A tighter cap on each result than `tools.output.max_bytes` (the model's free context, FR-REG-04b). */
  outputLimit?: number;
  /** The batch id under which calls were already journaled while streaming (recordStreamedCall). */
  batchId?: string;
  /** Events while the batch runs; return a promise from an output event to slow the tool down. */
  onEvent?: ToolEventSink;
  observer?: BatchObserver;
  approver?: Approver;
  /** The trace this batch belongs to (default: the active context, when a context manager keeps one). */
  traceContext?: Context;
  /** A W3C traceparent naming the batch's parent span (from TRACEPARENT or an MCP request's _meta). */
  traceparent?: string;
}
