import { metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { validateConfig } from '../../src/config/load-config.js';
import type { Approver } from '../../src/core/confirmation.js';
import { defineTool } from '../../src/core/define-tool.js';
import { resetToolMetrics } from '../../src/telemetry/tool-metrics.js';
import { formatTraceparent, parseTraceparent } from '../../src/telemetry/traceparent.js';
import { createToolgate } from '../../src/toolgate.js';
import { useWorkspace } from '../helpers/workspace.js';

const ws = useWorkspace();
const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
const SECRET = 'sk-live-TRACE-SECRET-0123456789';

beforeAll(() => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  resetToolMetrics();
});
afterAll(() => {
  trace.disable();
  metrics.disable();
});
beforeEach(() => spans.reset());

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('OpenTelemetry spans and metrics (issue #16 §1)', () => {
  it('a batch is one span under the caller’s traceparent, with plan, approval and one execute_tool span per call; the command inherits its call’s traceparent', async () => {
    ws.file('notes.txt', 'tide at six\n');
    const asked: Approver = async () => ({ kind: 'deny_all', reason: 'no' });
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] }, run_command: { allow: ['printenv'] } } }),
      roots: [ws.dir()],
      approver: asked,
    });
    const results = await gate.execute(
      [
        { id: 'r1', name: 'read_file', arguments: { path: 'notes.txt' } },
        { id: 'w1', name: 'write_file', arguments: { path: `${SECRET}.txt`, content: SECRET } },
        { id: 'c1', name: 'run_command', arguments: { command: 'printenv TRACEPARENT' } },
      ],
      { traceparent: PARENT },
    );
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    const finished = spans.getFinishedSpans();
    const byName = (n: string) => finished.filter((s) => s.name === n);
    const [batch] = byName('toolgate.batch');
    expect(batch?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(batch?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(batch?.attributes).toMatchObject({ 'toolgate.batch.size': 3, 'toolgate.batch.failed': 1 });
    for (const name of [
      'toolgate.plan',
      'toolgate.approval',
      'execute_tool read_file',
      'execute_tool write_file',
      'execute_tool run_command',
    ]) {
      const [s] = byName(name);
      expect(s, name).toBeDefined();
      expect(s?.parentSpanContext?.spanId, name).toBe(batch?.spanContext().spanId);
      expect(s?.spanContext().traceId, name).toBe(batch?.spanContext().traceId);
    }
    const [write] = byName('execute_tool write_file');
    expect(write?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_file',
      'gen_ai.tool.call.id': 'w1',
      'error.type': 'Denied',
    });
    expect(write?.status.code).toBe(2); // ERROR
    expect(byName('toolgate.approval')[0]?.attributes).toMatchObject({
      'toolgate.approval.asked': 1,
      'toolgate.approval.granted': 0,
    });
    // the command ran under its call's span
    const [command] = byName('execute_tool run_command');
    const inherited = parseTraceparent(results[2]?.content.split('\n')[0]);
    expect(inherited?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(inherited?.spanId).toBe(command?.spanContext().spanId);
    // no argument value anywhere: not the path, not the content
    expect(JSON.stringify(finished.map((s) => [s.name, s.attributes, s.events]))).not.toContain(
      'TRACE-SECRET',
    );
  });

  it('metrics: calls by tool and outcome, durations, approvals asked and denied, truncated bytes', async () => {
    // A tool whose answer is bigger than the output limit: the pipeline cuts it.
    const chatty = defineTool({
      name: 'chatty',
      description: 'says a lot',
      args: z.strictObject({}),
      tier: 'read_only',
      category: 'test',
      summary: () => 'say a lot',
      execute: () => 'x'.repeat(50_000),
    });
    const gate = createToolgate({
      config: validateConfig({ tools: { output: { max_bytes: 4096 } } }),
      tools: [chatty],
      roots: [ws.dir()],
      approver: async () => ({ kind: 'deny_all', reason: 'no' }),
    });
    await gate.execute([
      { id: '1', name: 'chatty', arguments: {} },
      { id: '2', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    ]);
    await reader.forceFlush();
    const points = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
    for (const rm of metricExporter.getMetrics())
      for (const sm of rm.scopeMetrics)
        for (const m of sm.metrics) points.set(m.descriptor.name, m.dataPoints as never);
    const calls = points.get('toolgate.tool.calls') ?? [];
    expect(calls).toContainEqual(
      expect.objectContaining({ attributes: { 'gen_ai.tool.name': 'chatty', outcome: 'ok' } }),
    );
    expect(calls).toContainEqual(
      expect.objectContaining({ attributes: { 'gen_ai.tool.name': 'write_file', outcome: 'Denied' } }),
    );
    expect(points.get('toolgate.tool.duration')?.length).toBeGreaterThan(0);
    const approvals = points.get('toolgate.approvals') ?? [];
    expect(approvals).toContainEqual(expect.objectContaining({ attributes: { decision: 'asked' } }));
    expect(approvals).toContainEqual(expect.objectContaining({ attributes: { decision: 'denied' } }));
    const cut = points.get('toolgate.output.truncated_bytes')?.[0]?.value as number;
    expect(cut).toBeGreaterThan(45_000); // what did not fit in the 4 KiB result
  });

  it('the caller’s active context is the parent when no traceparent is given (a host application’s own span)', async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    const { context } = await import('@opentelemetry/api');
    context.setGlobalContextManager(manager);
    try {
      ws.file('a.txt', 'a');
      const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()] });
      const outer = trace.getTracer('host-app').startSpan('host request');
      await context.with(trace.setSpan(context.active(), outer), () =>
        gate.execute([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]),
      );
      outer.end();
      const batch = spans.getFinishedSpans().find((s) => s.name === 'toolgate.batch');
      expect(batch?.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    } finally {
      context.disable();
    }
  });

  it('traceparent: valid headers round-trip; malformed, all-zero and version ff are ignored', () => {
    const parsed = parseTraceparent(PARENT);
    expect(parsed && formatTraceparent(parsed)).toBe(PARENT);
    for (const bad of [
      '',
      'garbage',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ])
      expect(parseTraceparent(bad), bad).toBeUndefined();
  });
});
