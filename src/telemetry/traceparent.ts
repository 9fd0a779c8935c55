import { type Context, context, type SpanContext, TraceFlags, trace } from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * A W3C `traceparent` header (`00-<trace id>-<span id>-<flags>`) as a span context, or undefined
 * for anything malformed, all-zero ids or version ff (the spec says to ignore those). Parsed here
 * so that trace context flows with the API alone, whether or not an SDK registered a propagator.
 */
export function parseTraceparent(text: string | undefined): SpanContext | undefined {
  if (typeof text !== 'string') return undefined;
  const m = TRACEPARENT.exec(text.trim().toLowerCase());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags] = m as unknown as [string, string, string, string, string];
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  if (version === '00' && text.trim().length !== 55) return undefined; // version 00 has nothing after the flags
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
}

/** The `traceparent` that names `span` as the parent of what comes next (a child process, a request). */
export function formatTraceparent(span: SpanContext): string {
  const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/** `base` (default: the active context) with the remote parent `traceparent` names, if it is valid. */
export function contextWithTraceparent(
  traceparent: string | undefined,
  base: Context = context.active(),
): Context {
  const parent = parseTraceparent(traceparent);
  return parent ? trace.setSpanContext(base, parent) : base;
}
