import { type Counter, type Histogram, metrics } from '@opentelemetry/api';

interface Instruments {
  calls: Counter;
  duration: Histogram;
  approvals: Counter;
  truncated: Counter;
}

let instruments: Instruments | undefined;

/**
 * toolgate's metrics, through the global meter: no-ops until the application (or the CLI's
 * `--otlp`) registers a MeterProvider. Made on first use, after any SDK had its chance to register.
 */
export function toolMetrics(): Instruments {
  if (instruments) return instruments;
  const meter = metrics.getMeter('toolgate');
  instruments = {
    calls: meter.createCounter('toolgate.tool.calls', {
      description: 'Tool calls by tool and outcome (ok, or the error type)',
    }),
    duration: meter.createHistogram('toolgate.tool.duration', {
      description: 'How long a tool call ran',
      unit: 'ms',
    }),
    approvals: meter.createCounter('toolgate.approvals', {
      description: 'Calls put to a person, and what they answered (asked, granted, denied)',
    }),
    truncated: meter.createCounter('toolgate.output.truncated_bytes', {
      description: 'Bytes of tool output cut to fit the output limits',
      unit: 'By',
    }),
  };
  return instruments;
}

/** Forgets the instruments (tests that register a new MeterProvider between cases). */
export function resetToolMetrics(): void {
  instruments = undefined;
}
