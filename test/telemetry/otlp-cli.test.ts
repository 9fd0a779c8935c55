import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, trustProject } from '../cli/run-cli.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { requestBody, startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

type KeyValue = { key: string; value: Record<string, unknown> };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: KeyValue[];
}

/**
 * A collector of our own on 127.0.0.1: OTLP/HTTP with JSON bodies (what the CLI's exporter sends),
 * decoded into spans and metric names, so the test sees exactly what a real collector would get.
 */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const metricNames = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = JSON.parse(body.toString('utf8') || '{}');
      if (req.url === '/v1/traces')
        for (const rs of json.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      if (req.url === '/v1/metrics')
        for (const rm of json.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metricNames.add(m.name);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metricNames,
    close: () => server.close(),
  };
}

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE}-${PARENT_SPAN}-01`;
const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };
const attr = (s: OtlpSpan | undefined, key: string) => s?.attributes?.find((a) => a.key === key)?.value;

describe('--otlp: one trace from the model turn through every call into a child process (issue #16 §1-2)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const root = makeTempDir('toolgate-otlp-');
  beforeAll(async () => {
    collector = await startCollector();
    writeFileSync(path.join(root, 'notes.txt'), 'tide at six\n');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["printenv"]\n',
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
  });
  afterAll(() => collector.close());

  it('toolgate run under TRACEPARENT: invoke_agent → chat and toolgate.batch → execute_tool; the command sees its call span as TRACEPARENT; the log lines carry the same trace and spans; metrics arrive', async () => {
    const logFile = path.join(makeTempDir('toolgate-otlp-log-'), 'run.log');
    const model = await startReplayServer([
      {
        body: chatStream({
          calls: [
            { id: 'c1', name: 'read_file', args: '{"path":"notes.txt"}' },
            { id: 'c2', name: 'run_command', args: '{"command":"printenv TRACEPARENT"}' },
          ],
        }),
      },
      { body: textAnswer('openai', 'Done.') },
    ]);
    try {
      const run = await runCliAsync(
        [
          'run',
          'look',
          ...replayModelArgs(model.url),
          '--otlp',
          collector.url,
          '--no-journal',
          '--log-level',
          'info',
          '--log-file',
          logFile,
        ],
        { cwd: root, env: { ...noKeys, TRACEPARENT } },
      );
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('Done.');
      const spans = collector.spans;
      expect(spans.length).toBeGreaterThanOrEqual(7);
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([TRACE])); // one trace
      const named = (n: string) => spans.filter((s) => s.name === n);
      const [agent] = named('invoke_agent toolgate');
      expect(agent?.parentSpanId).toBe(PARENT_SPAN);
      expect(named('chat m').map((s) => s.parentSpanId)).toEqual([agent?.spanId, agent?.spanId]);
      const [batch] = named('toolgate.batch');
      expect(batch?.parentSpanId).toBe(agent?.spanId);
      const [command] = named('execute_tool run_command');
      expect(command?.parentSpanId).toBe(batch?.spanId);
      expect(attr(command, 'gen_ai.tool.call.id')).toEqual({ stringValue: 'c2' });
      expect(named('execute_tool read_file')[0]?.parentSpanId).toBe(batch?.spanId);
      // what the command printed, as the model received it
      const sent = JSON.stringify(requestBody(model, 1));
      expect(sent).toContain(`00-${TRACE}-${command?.spanId}-01`);
      expect(collector.metricNames).toContain('toolgate.tool.calls');
      expect(collector.metricNames).toContain('toolgate.tool.duration');
      // The logs of the same run: every line in that trace; a call's lines on its execute_tool span.
      const lines = readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const callLines = lines.filter((l) => String(l.event).startsWith('tool_call_'));
      expect(callLines.map((l) => l.event)).toEqual(
        expect.arrayContaining(['tool_call_started', 'tool_call_completed']),
      );
      for (const line of callLines) expect(line.trace_id).toBe(TRACE);
      const completed = callLines.find((l) => l.event === 'tool_call_completed' && l.call_id === 'c2');
      expect(completed?.span_id).toBe(command?.spanId);
    } finally {
      await model.close();
    }
  });

  it('toolgate mcp --otlp: a call carrying _meta.traceparent joins that trace', async () => {
    const before = collector.spans.length;
    const client = new Client({ name: 't', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          path.join(REPO, 'bin', 'toolgate.js'),
          'mcp',
          '--no-journal',
          '--otlp',
          collector.url,
          '--config',
          path.join(root, 'toolgate.toml'),
        ],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    const parent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    const r = await client.callTool({
      name: 'read_file',
      arguments: { path: 'notes.txt' },
      _meta: { traceparent: parent },
    });
    expect(r.isError).toBe(false);
    await client.close(); // the server flushes its spans as it exits
    for (let i = 0; i < 100 && !collector.spans.slice(before).some((s) => s.name === 'toolgate.batch'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const batch = collector.spans.slice(before).find((s) => s.name === 'toolgate.batch');
    expect(batch?.traceId).toBe('1'.repeat(32));
    expect(batch?.parentSpanId).toBe('2'.repeat(16));
  });

  it('a bad --otlp URL is a usage error (exit 2), nothing runs', async () => {
    const run = await runCliAsync(['exec', '--otlp', 'not a url', '--no-journal'], {
      cwd: root,
      input: '[]',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--otlp expects the collector's URL/);
  });
});
