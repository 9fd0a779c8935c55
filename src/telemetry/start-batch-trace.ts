import { type Context, context } from '@opentelemetry/api';
import { BatchTrace } from './batch-trace.js';
import { contextWithTraceparent } from './traceparent.js';

/** Where a batch's trace hangs: its W3C traceparent, else the context given, else the active one. */
export interface TraceParent {
  traceContext?: Context;
  traceparent?: string;
}

/**
 * A batch's trace, or undefined when neither an SDK nor a log line wants one (nothing per call
 * then). `logs`: a logger listens, so its lines carry trace and span ids even without an SDK.
 */
export function startBatchTrace(
  parentOf: TraceParent,
  session: string,
  size: number,
  logs: boolean,
): BatchTrace | undefined {
  const parent = parentOf.traceparent
    ? contextWithTraceparent(parentOf.traceparent, parentOf.traceContext)
    : (parentOf.traceContext ?? context.active());
  return BatchTrace.start(
    parent,
    { 'toolgate.session': session, 'toolgate.batch.size': size },
    logs, // log lines carry trace and span ids even without an SDK (seed 002 §4.2)
  );
}
