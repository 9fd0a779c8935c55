import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll, denyAll } from '../../src/core/confirmation.js';
import type { LoopEvent } from '../../src/core/loop-event.js';
import { JournalError } from '../../src/journal/journal.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { loadConversation } from '../../src/loop/load-conversation.js';
import { runTurn, type TurnOptions } from '../../src/loop/run-turn.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import {
  anthropicStream,
  chatStream,
  geminiStream,
  responsesStream,
  textAnswer,
} from '../helpers/provider-streams.js';
import {
  type RecordedResponse,
  type ReplayServer,
  requestBody,
  startReplayServer,
} from '../helpers/replay-server.js';
import { useWorkspace } from '../helpers/workspace.js';

const ws = useWorkspace();
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function setup(responses: RecordedResponse[], tools: Record<string, unknown> = {}, journal = true) {
  ws.file('a.txt', 'alpha\n');
  ws.file('b.txt', 'beta\n');
  const j = journal ? SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db')) : undefined;
  const gate = createToolgate({
    config: validateConfig({ tools }),
    roots: [ws.dir()],
    approver: approveAll,
    session: 'S1',
    ...(j ? { journal: j } : {}),
  });
  return { gate, journal: j, start: async () => (server = await startReplayServer(responses)) };
}

async function turn(
  gate: ReturnType<typeof setup>['gate'],
  kind: Parameters<typeof adapterFor>[0],
  extra: Partial<TurnOptions> = {},
) {
  const events: LoopEvent[] = [];
  const outcome = await runTurn({
    gate,
    adapter: adapterFor(kind),
    connection: { baseUrl: (server as ReplayServer).url },
    model: 'test-model',
    prompt: 'read the files',
    onEvent: (e) => events.push(e),
    backoffMs: 1,
    ...extra,
  });
  return { outcome, events };
}

const two = [
  { id: 'call_1', name: 'read_file', args: '{"path":"a.txt"}' },
  { id: 'call_2', name: 'read_file', args: '{"path":"b.txt"}' },
];

describe('runTurn: the loop of seed 000 §8.2 over a real HTTP server on 127.0.0.1', () => {
  it('IT-E2E-01: tool calls → execute → persist → auto-resume, results in call order (OpenAI Chat)', async () => {
    const t = setup([
      { body: chatStream({ text: 'Reading.', calls: two }), chunkSize: 9 },
      { body: textAnswer('openai', 'alpha and beta') },
    ]);
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect(outcome.status).toBe('done');
    expect(outcome.text).toBe('alpha and beta');
    const follow = server?.requests[1]?.body as {
      messages: { role: string; content?: string; tool_call_id?: string }[];
    };
    const toolMessages = follow.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
    expect(toolMessages[0]?.content).toContain('alpha');
    expect(toolMessages[1]?.content).toContain('beta');
    // Persisted: the conversation comes back from the journal in the same order.
    const again = loadConversation(t.journal as SqliteJournal, 'S1');
    expect(again.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_results', 'assistant']);
    t.journal?.close();
  });

  for (const kind of ['openai-responses', 'anthropic', 'gemini'] as const) {
    it(`IT-E2E-01 over ${kind}: the follow-up request carries the echo and the results in order`, async () => {
      const first =
        kind === 'anthropic'
          ? anthropicStream({
              thinking: { text: 'plan', signature: 'SIG' },
              calls: [
                { ...two[0]!, id: 'toolu_1' },
                { ...two[1]!, id: 'toolu_2' },
              ],
            })
          : kind === 'gemini'
            ? geminiStream({
                calls: [
                  { name: 'read_file', args: { path: 'a.txt' }, signature: 'TS' },
                  { name: 'read_file', args: { path: 'b.txt' } },
                ],
              })
            : responsesStream({ reasoning: { id: 'rs_1', encrypted: 'ENC' }, calls: two });
      const t = setup([{ body: first, chunkSize: 13 }, { body: textAnswer(kind, 'done') }], {}, false);
      await t.start();
      const { outcome } = await turn(t.gate, kind);
      expect(outcome.status).toBe('done');
      const body = JSON.stringify(server?.requests[1]?.body);
      if (kind === 'anthropic') {
        const messages = (
          requestBody(server, 1) as {
            messages: {
              role: string;
              content: { type: string; tool_use_id?: string; signature?: string }[];
            }[];
          }
        ).messages;
        expect(messages[1]?.content[0]).toMatchObject({ type: 'thinking', signature: 'SIG' });
        expect(messages[2]?.content.map((b) => b.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);
      } else if (kind === 'gemini') {
        expect(body).toContain('"thoughtSignature":"TS"');
        const contents = (
          requestBody(server, 1) as {
            contents: { parts: { functionResponse?: { response: { result: string } } }[] }[];
          }
        ).contents;
        expect(contents[2]?.parts.map((p) => p.functionResponse?.response.result.trim())).toEqual([
          'alpha',
          'beta',
        ]);
      } else {
        expect(body).toContain('"encrypted_content":"ENC"');
        const input = (requestBody(server, 1) as { input: { type?: string; call_id?: string }[] }).input;
        expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual([
          'call_1',
          'call_2',
        ]);
      }
    });
  }

  it('a denied-only batch still resumes, and the model sees why (FR-APR, §8.2)', async () => {
    const t = setup(
      [
        {
          body: chatStream({
            calls: [{ id: 'c1', name: 'write_file', args: '{"path":"x.txt","content":"x"}' }],
          }),
        },
        { body: textAnswer('openai', 'I could not write it.') },
      ],
      {},
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'openai', { approver: denyAll });
    expect(outcome.status).toBe('done');
    const tool = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'tool',
    );
    expect(tool?.content).toMatch(/denied/);
  });

  it('seed 003 self-correction: an unknown tool and bad arguments go back as errors that say what was wrong', async () => {
    const t = setup(
      [
        {
          body: chatStream({
            calls: [
              { id: 'c1', name: 'reed_file', args: '{}' },
              { id: 'c2', name: 'read_file', args: '{"pth":"a.txt"}' },
            ],
          }),
        },
        { body: textAnswer('openai', 'fixed') },
      ],
      {},
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect(outcome.status).toBe('done');
    const tools = (
      requestBody(server, 1) as { messages: { role: string; content: string }[] }
    ).messages.filter((m) => m.role === 'tool');
    expect(tools[0]?.content).toMatch(/unknown tool "reed_file"; available tools: .*read_file/);
    expect(tools[1]?.content).toMatch(/unknown parameter "pth"|missing required parameter "path"/);
  });

  it('the same failing call repeated max_repeated_failures times stops the turn with a clear message', async () => {
    const bad = {
      body: chatStream({ calls: [{ id: 'c', name: 'read_file', args: '{"path":"missing.txt"}' }] }),
    };
    const t = setup(
      [bad, bad, bad, { body: textAnswer('openai', 'never') }],
      { max_repeated_failures: 2 },
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect(outcome.status).toBe('repeated_failure');
    expect(outcome.error).toMatch(/same failing read_file call 2 times \(max_repeated_failures = 2\)/);
    expect(server?.requests).toHaveLength(2);
  });

  it('FR-RES-03: past max iterations new calls are pre-resolved "Max tool iterations reached", resumed once, then the turn stops', async () => {
    const call = (n: number) => ({
      body: chatStream({
        calls: [{ id: `c${n}`, name: 'read_file', args: `{"path":"${n % 2 ? 'a' : 'b'}.txt"}` }],
      }),
    });
    const t = setup([call(1), call(2), call(3), { body: textAnswer('openai', 'ok, stopping') }], {}, false);
    await t.start();
    const { outcome } = await turn(t.gate, 'openai', { maxIterations: 2 });
    expect(outcome.status).toBe('done');
    expect(outcome.text).toBe('ok, stopping');
    const last = (requestBody(server, 3) as { messages: { role: string; content: string }[] }).messages.at(
      -1,
    );
    expect(last?.content).toMatch(/Max tool iterations reached/);

    const t2 = setup([call(1), call(2), call(3), call(4)], {}, false);
    await server?.close();
    await t2.start();
    const stopped = await turn(t2.gate, 'openai', { maxIterations: 2 });
    expect(stopped.outcome.status).toBe('max_iterations');
    expect(stopped.outcome.error).toMatch(/max_tool_iterations_per_user_turn \(2\)/);
  });

  it('T-MODE-01: disabled mode advertises no tools; a call anyway is refused and the model resumed', async () => {
    const t = setup(
      [{ body: chatStream({ calls: [two[0]!] }) }, { body: textAnswer('openai', 'no tools then') }],
      { mode: 'disabled' },
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect((requestBody(server, 0) as { tools?: unknown }).tools).toBeUndefined();
    expect(outcome.status).toBe('done');
    const tool = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'tool',
    );
    expect(tool?.content).toMatch(/tools are disabled/);
  });

  it('T-MODE-02: parse_only surfaces the calls without running them; supplied results resume the model', async () => {
    const definitions = [
      {
        name: 'lookup',
        description: 'manual',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ];
    const t = setup(
      [
        { body: chatStream({ calls: [{ id: 'm1', name: 'lookup', args: '{"q":"x"}' }] }) },
        { body: textAnswer('openai', 'thanks') },
      ],
      { mode: 'parse_only', definitions },
      false,
    );
    await t.start();
    const pending = await turn(t.gate, 'openai');
    expect(pending.outcome.status).toBe('awaiting_results');
    expect(pending.outcome.pending?.map((c) => c.id)).toEqual(['m1']);
    const advertised = (requestBody(server, 0) as { tools: { function: { name: string } }[] }).tools.map(
      (x) => x.function.name,
    );
    expect(advertised).toContain('lookup');
    expect(advertised).toContain('read_file');

    await server?.close();
    const t2 = setup(
      [
        { body: chatStream({ calls: [{ id: 'm1', name: 'lookup', args: '{"q":"x"}' }] }) },
        { body: textAnswer('openai', 'thanks') },
      ],
      { mode: 'parse_only', definitions },
      false,
    );
    await t2.start();
    const answered = await turn(t2.gate, 'openai', {
      supplyResults: async (calls) =>
        calls.map((c) => ({
          id: c.id,
          name: c.name,
          ok: true,
          content: 'forty-two',
          error: null,
          latencyMs: 0,
        })),
    });
    expect(answered.outcome.status).toBe('done');
    const tool = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'tool',
    );
    expect(tool?.content).toBe('forty-two');
  });

  it('a stream cut off before its terminator runs nothing, is not resumed, and its journaled calls are settled', async () => {
    const cut = chatStream({
      calls: [{ id: 'c1', name: 'write_file', args: '{"path":"new.txt","content":"x"}' }],
      done: false,
    });
    const t = setup([{ body: cut }], { approval: { mode: 'auto' } });
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect(outcome.status).toBe('incomplete');
    expect(outcome.error).toMatch(/ended before its terminator/);
    expect(server?.requests).toHaveLength(1);
    const batches = t.journal?.recentBatches(5) ?? [];
    expect(batches[0]?.status).toBe('complete');
    expect(t.journal?.incompleteBatches()).toEqual([]);
    t.journal?.close();
  });

  it('a truncated finish ("length") runs none of the calls and tells the model why', async () => {
    const t = setup(
      [
        {
          body: chatStream({
            calls: [{ id: 'c1', name: 'read_file', args: '{"path":"a.t' }],
            finish: 'length',
          }),
        },
        { body: textAnswer('openai', 'retrying') },
      ],
      {},
      false,
    );
    await t.start();
    const { outcome, events } = await turn(t.gate, 'openai');
    expect(outcome.status).toBe('done');
    expect(events.some((e) => e.type === 'tool')).toBe(false);
    const tool = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'tool',
    );
    expect(tool?.content).toMatch(/cut off at its token limit/);
  });

  it('FR-RES-04a: each call is in the journal before the response has ended', async () => {
    const t = setup([{ body: chatStream({ calls: two, done: false }), hang: true }]);
    await t.start();
    const controller = new AbortController();
    const run = turn(t.gate, 'openai', { signal: controller.signal });
    // The stream is held open after the finish chunk: the calls must already be durable.
    const journal = t.journal as SqliteJournal;
    await server?.nthRequest(1);
    const reader = SqliteJournal.open(journal.location);
    let calls: string[] = [];
    for (let i = 0; i < 100 && calls.length < 2; i++) {
      calls = reader.incompleteBatches().flatMap((b) => b.calls.map((c) => c.id));
      if (calls.length < 2) await new Promise((r) => setTimeout(r, 20));
    }
    expect(calls).toEqual(['call_1', 'call_2']);
    controller.abort();
    const { outcome } = await run;
    expect(outcome.status).toBe('cancelled');
    // Cancel returns to idle without resuming; the streamed batch is settled, not left dangling.
    expect(server?.requests).toHaveLength(1);
    expect(reader.incompleteBatches()).toEqual([]);
    reader.close();
    journal.close();
  });

  for (const unknown of [true, false])
    it(
      unknown
        ? 'a streamed call whose journal write the server did not answer: the turn fails, and its batch is marked given up (that write may land later; the batch must then never run)'
        : 'a streamed call whose journal write was refused: the turn fails, nothing is marked given up (nothing can land)',
      async () => {
        ws.file('a.txt', 'alpha\n');
        ws.file('b.txt', 'beta\n');
        const sqlite = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
        const written: string[] = [];
        const given: string[] = [];
        const journal = journalWith(sqlite, {
          recordStreamedCall: (_session, batchId) => {
            written.push(batchId);
            throw new JournalError('PostgreSQL did not answer within 1500 ms (test)', {
              outcomeUnknown: unknown,
            });
          },
          giveUp: (batchId) => {
            given.push(batchId);
          },
        });
        const gate = createToolgate({ roots: [ws.dir()], approver: approveAll, session: 'S1', journal });
        // One call: it is closed by the stream's finish event, inside the read loop.
        server = await startReplayServer([{ body: chatStream({ calls: [two[0] as (typeof two)[number]] }) }]);
        const { outcome } = await turn(gate, 'openai');
        expect(outcome.status).toBe('error');
        // The journal's failure, said as such (not "the connection broke"), and the call not offered twice.
        expect(outcome.error).toMatch(
          /^the journal could not record a tool call as the model sent it \(PostgreSQL did not answer/,
        );
        expect(written).toHaveLength(1);
        expect(given).toEqual(unknown ? written : []);
        sqlite.close();
      },
    );

  it('retries 429/5xx before any output (honouring Retry-After), and gives up with a clear error on 4xx', async () => {
    const t = setup(
      [
        { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '0' } },
        { status: 503, body: 'busy' },
        { body: textAnswer('openai', 'third time') },
      ],
      {},
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'openai');
    expect(outcome.text).toBe('third time');
    expect(server?.requests).toHaveLength(3);

    await server?.close();
    const t2 = setup([{ status: 401, body: '{"error":{"message":"invalid api key"}}' }], {}, false);
    await t2.start();
    const failed = await turn(t2.gate, 'anthropic');
    expect(failed.outcome.status).toBe('error');
    expect(failed.outcome.error).toMatch(/HTTP 401 .*invalid api key/);
    expect(server?.requests).toHaveLength(1);
  });

  it('a mid-stream error event and an unreachable server become clear errors, never a crash', async () => {
    const t = setup(
      [
        {
          body: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        },
      ],
      {},
      false,
    );
    await t.start();
    const { outcome } = await turn(t.gate, 'anthropic');
    expect(outcome).toMatchObject({ status: 'error' });
    expect(outcome.error).toMatch(/overloaded_error/);
    const down = await runTurn({
      gate: t.gate,
      adapter: adapterFor('openai'),
      connection: { baseUrl: 'http://127.0.0.1:9/v1' },
      model: 'm',
      prompt: 'x',
    });
    expect(down.status).toBe('error');
    expect(down.error).toMatch(/could not reach http:\/\/127\.0\.0\.1:9/);
  });

  it('FR-REG-04b: tool output is capped by the free context the model has left', async () => {
    ws.file('big.txt', 'y'.repeat(50_000));
    const t = setup(
      [
        { body: chatStream({ calls: [{ id: 'c1', name: 'read_file', args: '{"path":"big.txt"}' }] }) },
        { body: textAnswer('openai', 'ok') },
      ],
      {},
      false,
    );
    await t.start();
    // 4096 context − (small history) − 1000 reserve − 1024 margin ≈ 2000 tokens ≈ 8 KB of output.
    await turn(t.gate, 'openai', { contextTokens: 4096, maxTokens: 1000 });
    const tool = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'tool',
    );
    // read_file limits itself to the budget it was given, and says how to read the rest.
    const limit = Number(/more than the (\d+) that can be read at once/.exec(tool?.content ?? '')?.[1]);
    expect(limit).toBeGreaterThan(6000);
    expect(limit).toBeLessThanOrEqual(8 * 1024 + 100);
  });
});

describe('runTurn: answers that are not answers', () => {
  it('a JSON body where a stream was asked for is a clear error', async () => {
    server = await startReplayServer([
      {
        body: '{"error":{"message":"stream not supported"}}',
        headers: { 'content-type': 'application/json' },
      },
    ]);
    ws.file('x', '');
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
    const { outcome } = await turn(gate, 'openai');
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatch(/answered with JSON instead of a stream: stream not supported/);
  });

  it('an empty answer with an abnormal finish (Gemini MALFORMED_FUNCTION_CALL) is an error, not a silent success', async () => {
    server = await startReplayServer([{ body: geminiStream({ finish: 'MALFORMED_FUNCTION_CALL' }) }]);
    ws.file('x', '');
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
    const { outcome } = await turn(gate, 'gemini');
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatch(/finish reason "MALFORMED_FUNCTION_CALL"/);
  });
});
