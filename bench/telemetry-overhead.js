// Telemetry's price per call (issue #16 §4): the pipeline with no SDK registered (what the library
// adds then: one no-op span per batch, no-op metric calls per call, measured on their own), and with
// an SDK recording every span and metric in memory, against the same batches with no SDK.

import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { createToolgate, defineTool, validateConfig } from '../dist/index.js';
import { recordCallMetrics } from '../dist/telemetry/batch-trace.js';
import { resetToolMetrics } from '../dist/telemetry/tool-metrics.js';

const noop = defineTool({
  name: 'noop',
  description: 'does nothing',
  args: z.strictObject({ n: z.number() }),
  tier: 'read_only',
  category: 'bench',
  summary: () => 'nothing',
  execute: () => 'ok',
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** µs per call over `batches` batches of 8 no-op calls. */
async function perCall(gate, batches) {
  const calls = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, name: 'noop', arguments: { n: i } }));
  const t = performance.now();
  for (let b = 0; b < batches; b++) await gate.execute(calls);
  return ((performance.now() - t) * 1000) / (batches * 8);
}

export async function telemetryOverhead({ rounds = 15, batches = 500 } = {}) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-otel-')));
  const gate = createToolgate({ config: validateConfig({}), roots: [root], tools: [noop] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
        exportIntervalMillis: 3_600_000,
      }),
    ],
  });
  await perCall(gate, batches); // warm
  const plain = [];
  const recorded = [];
  for (let r = 0; r < rounds; r++) {
    plain.push(await perCall(gate, batches));
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
    resetToolMetrics();
    recorded.push(await perCall(gate, batches));
    spans.reset();
    trace.disable();
    metrics.disable();
    resetToolMetrics();
  }
  // What the no-SDK path adds, on its own: per batch a no-op span (start, isRecording, end), per
  // call the no-op metric calls.
  const n = 200_000;
  const result = { id: 'c', name: 'noop', ok: true, content: 'ok', error: null, latencyMs: 0 };
  let t = performance.now();
  for (let i = 0; i < n; i++) {
    const span = trace.getTracer('toolgate').startSpan('toolgate.batch', { attributes: { a: 1 } });
    if (!span.isRecording()) span.end();
  }
  const perBatchSpan = ((performance.now() - t) * 1000) / n;
  t = performance.now();
  for (let i = 0; i < n; i++) recordCallMetrics(result);
  const perCallMetrics = ((performance.now() - t) * 1000) / n;
  const added = perBatchSpan / 8 + perCallMetrics;
  return [
    [
      'telemetry, no SDK: what the pipeline adds per call (a no-op span per batch of 8, no-op metrics per call)',
      `${added.toFixed(3)} µs`,
      `a no-op call through the pipeline ${median(plain).toFixed(1)} µs`,
      `${added.toFixed(3)} µs`,
      '≤ 1 µs',
    ],
    [
      `telemetry, in-memory SDK: spans (batch, plan, execute_tool × 8) and metrics recorded, batches of 8, median of ${rounds}`,
      `${median(recorded).toFixed(1)} µs/call`,
      `no SDK ${median(plain).toFixed(1)} µs/call`,
      `+${(median(recorded) - median(plain)).toFixed(1)} µs`,
      '≤ 25 µs',
    ],
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await telemetryOverhead()) console.log(`| ${row.join(' | ')} |`);
}
