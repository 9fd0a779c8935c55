import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ConversationMessage, ProviderKind } from '../../src/core/conversation.js';
import { defineTool } from '../../src/core/define-tool.js';
import { runTurn } from '../../src/loop/run-turn.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { anthropicMessages } from '../../src/providers/anthropic.js';
import { createToolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { decodeStream, jsonlToSse } from '../helpers/decode-stream.js';
import {
  anthropicStream,
  chatStream,
  geminiStream,
  responsesStream,
  textAnswer,
} from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Every recorded stream of shared/provider-fixtures replayed byte for byte from 127.0.0.1: decoded
 * to the accumulation its README expects, then end to end through `toolgate run` (IT-E2E-01), with
 * the follow-up requests checked against the recorded ones. Runs where ../shared exists (always in
 * CI); the own streams in test/helpers/provider-streams.ts cover the same behaviour elsewhere.
 */
const CORPUS = path.resolve(REPO, '../shared/provider-fixtures');
const present = existsSync(CORPUS);
if (!present) {
  console.warn(
    `provider fixture corpus not found at ${CORPUS}: the recorded streams are not replayed here (they are in CI); own streams of the same wire formats are checked instead`,
  );
}
const read = (file: string) => readFileSync(path.join(CORPUS, file), 'utf8');
const jsonLines = (file: string) =>
  read(file)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

interface Fixture {
  kind: ProviderKind;
  /** Response bodies in order; `.jsonl` files are framed as SSE (`[DONE]` added for chat streams). */
  turns: string[];
  requests?: string;
  expected: { id?: string; name: string; args: unknown }[];
}

const FIXTURES: Record<string, Fixture> = {
  'openai-chat-parallel-tool-calls': {
    kind: 'openai',
    turns: ['openai-chat-parallel-tool-calls.sse'],
    expected: [
      {
        id: 'call_JMW1whyEaYG438VE1OIflxA2',
        name: 'GetWeatherArgs',
        args: { city: 'Edinburgh', country: 'GB', units: 'c' },
      },
      {
        id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
        name: 'get_stock_price',
        args: { ticker: 'AAPL', exchange: 'NASDAQ' },
      },
    ],
  },
  'openai-chat-single-tool-call-strict': {
    kind: 'openai',
    turns: ['openai-chat-single-tool-call-strict.sse'],
    expected: [
      {
        id: 'call_CTf1nWJLqSeRgDqaCG27xZ74',
        name: 'get_weather',
        args: { city: 'San Francisco', state: 'CA' },
      },
    ],
  },
  'openai-responses-function-call': {
    kind: 'openai-responses',
    turns: ['openai-responses-function-call.turn1.sse', 'openai-responses-function-call.turn2.sse'],
    requests: 'openai-responses-function-call.requests.jsonl',
    expected: [{ id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', args: { country: 'France' } }],
  },
  'openai-responses-reasoning-then-function-call': {
    kind: 'openai-responses',
    turns: ['openai-responses-reasoning-then-function-call.sse'],
    expected: [{ id: 'call_CWXgs68YprAjp6t0371hiPOI', name: 'final_result', args: { result: 6666 } }],
  },
  'anthropic-two-tool-use': {
    kind: 'anthropic',
    turns: ['anthropic-two-tool-use.turn1.sse', 'anthropic-two-tool-use.turn2.sse'],
    requests: 'anthropic-two-tool-use.requests.jsonl',
    expected: [
      { id: 'toolu_017ngBid8gmdReTeroVSZf7r', name: 'pelican_name_generator', args: {} },
      { id: 'toolu_01FJrHJrmnfEqR6NxkQ3yhpu', name: 'pelican_name_generator', args: {} },
    ],
  },
  'anthropic-two-tool-use-haiku45': {
    kind: 'anthropic',
    turns: ['anthropic-two-tool-use-haiku45.turn1.sse', 'anthropic-two-tool-use-haiku45.turn2.sse'],
    requests: 'anthropic-two-tool-use-haiku45.requests.jsonl',
    expected: [
      { id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', args: {} },
      { id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', args: {} },
    ],
  },
  'anthropic-tool-use-input-json-delta': {
    kind: 'anthropic',
    turns: ['anthropic-tool-use-input-json-delta.sse'],
    expected: [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }],
  },
  'gemini-function-call': {
    kind: 'gemini',
    turns: [
      'gemini-function-call.turn1.sse',
      'gemini-function-call.turn2.sse',
      'gemini-function-call.turn3.sse',
    ],
    requests: 'gemini-function-call.requests.jsonl',
    expected: [{ name: 'get_capital', args: { country: 'France' } }],
  },
  'gemini3-function-call-thought-signature': {
    kind: 'gemini',
    turns: [
      'gemini3-function-call-thought-signature.turn1.sse',
      'gemini3-function-call-thought-signature.turn2.sse',
    ],
    requests: 'gemini3-function-call-thought-signature.requests.jsonl',
    expected: [{ name: 'get_country', args: {} }],
  },
  'vertex-gemini3-parallel-streamed-args': {
    kind: 'gemini',
    turns: ['vertex-gemini3-parallel-streamed-args.jsonl'],
    expected: [
      { name: 'read_theme', args: {} },
      { name: 'read_screen', args: { id: 'A' } },
      { name: 'read_screen', args: { id: 'B' } },
      { name: 'read_screen', args: { id: 'C' } },
    ],
  },
  'lmstudio-responses-tool-call': {
    kind: 'openai-responses',
    turns: ['lmstudio-responses-tool-call.jsonl'],
    expected: [{ id: 'call_2025306790300011', name: 'weather', args: { location: 'San Francisco' } }],
  },
  'mistral-chat-tool-call': {
    kind: 'openai-compatible',
    turns: ['mistral-chat-tool-call.jsonl'],
    expected: [{ id: 'gSIMJiOkT', name: 'weather', args: { location: 'San Francisco' } }],
  },
  'groq-chat-tool-call': {
    kind: 'openai-compatible',
    turns: ['groq-chat-tool-call.jsonl'],
    expected: [{ id: 'tk85n1k4m', name: 'weather', args: {} }],
  },
  'ollama-v1-tool-call-2024-11': {
    kind: 'openai-compatible',
    turns: ['ollama-v1-tool-call-2024-11.sse'],
    expected: [{ id: 'call_28sm5ma0', name: 'return_list_of_int', args: { value: '[1, 2, 3, 4, 5]' } }],
  },
  'ollama-v1-two-tool-calls-2025-04': {
    kind: 'openai-compatible',
    turns: ['ollama-v1-two-tool-calls-2025-04.sse'],
    expected: [
      { id: 'call_809l7n8f', name: 'run_command', args: { command: 'ls -la' } },
      { id: 'call_oqp1e2a1', name: 'run_command', args: { command: 'ls -la', cwd: '/path/to/directory' } },
    ],
  },
  'vllm-v1-tool-call-2025-04': {
    kind: 'openai-compatible',
    turns: ['vllm-v1-tool-call-2025-04.sse'],
    expected: [
      { id: 'chatcmpl-tool-ca99dda515524c6abe47d1ea22813507', name: 'run_command', args: { command: 'ls' } },
    ],
  },
};

/** The bytes as recorded; `.jsonl` recordings get SSE framing, per the corpus README. */
function body(kind: ProviderKind, file: string): string {
  if (!file.endsWith('.jsonl')) return read(file);
  return jsonlToSse(read(file), kind === 'openai' || kind === 'openai-compatible');
}

/** README: "derive a variant of the 2025 Ollama fixture with both indices set to 0" (ollama#15457). */
const reusedIndexZero = () =>
  read('ollama-v1-two-tool-calls-2025-04.sse').replaceAll('"index":1', '"index":0');

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Decoded whole and in small pieces, a stream gives exactly the fixture's calls, none flawed. */
function expectAccumulation(fixture: Fixture, stream: string): void {
  for (const chunkSize of [0, 1, 17]) {
    const d = decodeStream(fixture.kind, stream, chunkSize);
    expect(d.complete).toBe(true);
    expect(
      d.calls.map((c) => ({
        ...(c.id.startsWith('made_') ? {} : { id: c.id }),
        name: c.name,
        args: JSON.parse(c.arguments || '{}'),
      })),
    ).toEqual(fixture.expected);
    expect(d.calls.every((c) => c.problem === undefined)).toBe(true);
  }
}

if (present) {
  describe('shared provider fixtures: decoding gives the README accumulation', () => {
    it.each(Object.entries(FIXTURES))('%s', (_name, fixture) => {
      expectAccumulation(fixture, body(fixture.kind, fixture.turns[0] as string));
    });

    it('Ollama reusing index 0 for parallel calls (derived): two calls, not one merged', () => {
      const d = decodeStream('openai-compatible', reusedIndexZero());
      expect(d.calls.map((c) => c.id)).toEqual(['call_809l7n8f', 'call_oqp1e2a1']);
    });

    it('a recorded stream cut anywhere before its terminator is never complete', () => {
      for (const [name, fixture] of Object.entries(FIXTURES)) {
        const full = body(fixture.kind, fixture.turns[0] as string);
        const cut = full.slice(0, Math.floor(full.length * 0.6));
        let complete = true;
        try {
          complete = decodeStream(fixture.kind, cut).complete;
        } catch {
          complete = false; // a torn JSON payload is a damaged stream
        }
        expect(complete, name).toBe(false);
      }
    });
  });

  describe('IT-E2E-01: every fixture through `toolgate run`, follow-ups checked against the recorded ones', () => {
    it.each(Object.entries(FIXTURES))('%s', async (name, fixture) => {
      const responses = fixture.turns.map((t) => ({ body: body(fixture.kind, t), chunkSize: 64 }));
      // Fixtures without a recorded answer get a plain text answer in the same wire format.
      if (fixture.turns.length === 1)
        responses.push({ body: textAnswer(fixture.kind, 'all done'), chunkSize: 64 });
      server = await startReplayServer(responses);
      const recorded = fixture.requests ? jsonLines(fixture.requests) : undefined;
      const prompt = recorded ? firstUserText(fixture.kind, recorded[0] as Record<string, unknown>) : 'go';
      const root = makeTempDir('toolgate-fixture-');
      const run = await runCliAsync([
        'run',
        prompt,
        '--provider',
        fixture.kind,
        '--base-url',
        `${server.url}/v1`,
        '--model',
        'recorded-model',
        '--json',
        '--no-journal',
        '--approve',
        'none',
        '--root',
        root,
      ]);
      // Nothing on stderr but the log lines of calls policy refused (warn, JSON, issue #16).
      const other = run.stderr.split('\n').filter((l) => l && !l.includes('"event":"tool_call_blocked"'));
      expect(other, name).toEqual([]);
      expect(run.status).toBe(0);
      const messages = JSON.parse(run.stdout) as {
        role: string;
        tool_calls?: { id: string; name: string }[];
        tool_call_id?: string;
      }[];
      const firstAssistant = messages.find((m) => m.role === 'assistant');
      const ids = firstAssistant?.tool_calls?.map((c) => c.id) ?? [];
      expect(firstAssistant?.tool_calls?.map((c) => c.name)).toEqual(fixture.expected.map((e) => e.name));
      // Exactly one result per call, in call order, right after the calls.
      const results = messages.filter((m) => m.role === 'tool').slice(0, ids.length);
      expect(results.map((r) => r.tool_call_id)).toEqual(ids);
      expect(server.requests.length).toBe(responses.length);
      const follow = server.requests[1]?.body as Record<string, unknown>;
      checkFollowUp(fixture.kind, follow, ids, recorded?.[1]);
    });
  });

  describe('follow-up requests equal the recorded ones when the tools return the recorded results', () => {
    const answering = (name: string, schema: z.ZodObject, answers: string[]) => {
      let n = 0;
      return defineTool({
        name,
        description: '',
        args: schema,
        tier: 'read_only',
        summary: () => name,
        locations: () => [],
        execute: async () => answers[n++] ?? 'none',
      });
    };
    const gateWith = (tools: ReturnType<typeof answering>[]) =>
      createToolgate({
        config: validateConfig({}),
        roots: [makeTempDir()],
        approver: approveAll,
        tools,
        builtins: false,
      });

    it('Anthropic two tool_use (claude-3-5-haiku): the messages equal the recording (its client added a space to the text)', async () => {
      const fixture = FIXTURES['anthropic-two-tool-use'] as Fixture;
      server = await startReplayServer(fixture.turns.map((t) => ({ body: read(t) })));
      const recorded = jsonLines(fixture.requests as string);
      const gate = gateWith([answering('pelican_name_generator', z.strictObject({}), ['Charles', 'Sammy'])]);
      const outcome = await runTurn({
        gate,
        adapter: adapterFor('anthropic'),
        connection: { baseUrl: server.url },
        model: 'claude-3-5-haiku-latest',
        prompt: 'Two names for a pet pelican',
      });
      expect(outcome.status).toBe('done');
      // The stream's text ends "tool."; the recording client sent "tool. ". We echo what was streamed.
      const expected = (
        (recorded[1] as Record<string, unknown>).messages as {
          role: string;
          content: { type: string; text?: string }[];
        }[]
      ).map((m) => ({
        ...m,
        content: m.content.map((b) => (b.type === 'text' && b.text ? { ...b, text: b.text.trimEnd() } : b)),
      }));
      expect((requestBody(server, 1) as { messages: unknown }).messages).toEqual(expected);
      expect(JSON.stringify(server.requests[1]?.body)).toContain(
        '"text":"I\'ll help you generate two names for a pet pelican using the pelican name generator tool."',
      );
    });

    it('Anthropic haiku-4.5: identical except the " " text block the recording client added', async () => {
      const fixture = FIXTURES['anthropic-two-tool-use-haiku45'] as Fixture;
      server = await startReplayServer(fixture.turns.map((t) => ({ body: read(t) })));
      const recorded = jsonLines(fixture.requests as string)[1] as {
        messages: { role: string; content: { type: string; text?: string }[] }[];
      };
      const gate = gateWith([answering('pelican_name_generator', z.strictObject({}), ['Charles', 'Sammy'])]);
      await runTurn({
        gate,
        adapter: adapterFor('anthropic'),
        connection: { baseUrl: server.url },
        model: 'm',
        prompt: 'Two names for a pet pelican',
      });
      const expected = recorded.messages.map((m) => ({
        ...m,
        content: m.content.filter((b) => !(b.type === 'text' && b.text === ' ')),
      }));
      expect((requestBody(server, 1) as { messages: unknown }).messages).toEqual(expected);
    });

    it('Anthropic non-streaming round trip (ToolRunner): the follow-up messages are rebuilt exactly', () => {
      const [first, second] = jsonLines('anthropic-parallel-tool-roundtrip.nonstream.jsonl') as {
        request: { messages: { role: string; content: unknown }[] };
        response: { content: { type: string; id?: string; name?: string; input?: unknown }[] };
      }[];
      const uses = (first?.response.content ?? []).filter((b) => b.type === 'tool_use');
      const conversation: ConversationMessage[] = [
        { role: 'user', text: String(first?.request.messages[0]?.content) },
        {
          role: 'assistant',
          text: '',
          toolCalls: uses.map((u) => ({
            id: String(u.id),
            name: String(u.name),
            arguments: JSON.stringify(u.input),
          })),
          provider: 'anthropic',
          raw: first?.response.content,
        },
        {
          role: 'tool_results',
          results: uses.map((u, i) => ({
            id: String(u.id),
            name: String(u.name),
            ok: true,
            content: `Called with ${i + 1}`,
            error: null,
            latencyMs: 0,
          })),
        },
      ];
      // The recording sends the first user message as a plain string; we always send blocks.
      const expected = (second?.request.messages ?? []).map((m, i) =>
        i === 0 ? { role: m.role, content: [{ type: 'text', text: m.content }] } : m,
      );
      expect(anthropicMessages(conversation)).toEqual(expected);
    });

    it('Gemini 3-turn chain: the same contents, except our functionResponse shape and no made-up ids sent', async () => {
      const fixture = FIXTURES['gemini-function-call'] as Fixture;
      server = await startReplayServer(fixture.turns.map((t) => ({ body: read(t) })));
      const recorded = jsonLines(fixture.requests as string);
      const gate = gateWith([
        answering('get_capital', z.strictObject({ country: z.string() }), ['Paris']),
        answering('get_temperature', z.strictObject({ city: z.string() }), ['30°C']),
      ]);
      const outcome = await runTurn({
        gate,
        adapter: adapterFor('gemini'),
        connection: { baseUrl: server.url },
        model: 'gemini-2.0-flash',
        prompt: 'What is the temperature of the capital of France?',
      });
      expect(outcome.status).toBe('done');
      for (const turn of [1, 2]) {
        expect((requestBody(server, turn) as { contents: unknown }).contents).toEqual(
          normalizeGemini(recorded[turn]?.contents),
        );
      }
    });

    it('Gemini 3 thoughtSignature: echoed on its functionCall part byte for byte', async () => {
      const fixture = FIXTURES['gemini3-function-call-thought-signature'] as Fixture;
      server = await startReplayServer(fixture.turns.map((t) => ({ body: read(t) })));
      const recorded = jsonLines(fixture.requests as string);
      const gate = gateWith([answering('get_country', z.strictObject({}), ['Mexico'])]);
      await runTurn({
        gate,
        adapter: adapterFor('gemini'),
        connection: { baseUrl: server.url },
        model: 'gemini-3-pro-preview',
        prompt: 'What is the capital of the user country? Call the tool',
      });
      const ours = (requestBody(server, 1) as { contents: { parts: { thoughtSignature?: string }[] }[] })
        .contents;
      // Byte for byte what the stream sent (standard base64)…
      const streamed = /"thoughtSignature":\s*"([^"]+)"/.exec(read(fixture.turns[0] as string))?.[1];
      expect(ours[1]?.parts[0]?.thoughtSignature).toBe(streamed);
      // …while the recording client re-encoded the same bytes as base64url; otherwise the contents match.
      const theirs = normalizeGemini(recorded[1]?.contents) as { parts: { thoughtSignature?: string }[] }[];
      expect(ours.slice(0, 2)).toEqual(theirs.slice(0, 2));
    });

    it('OpenAI Responses: the same input items, with the documented call_… id as call_id', async () => {
      const fixture = FIXTURES['openai-responses-function-call'] as Fixture;
      server = await startReplayServer(fixture.turns.map((t) => ({ body: read(t) })));
      const recorded = jsonLines(fixture.requests as string)[1] as { input: Record<string, unknown>[] };
      const gate = gateWith([answering('get_capital', z.strictObject({ country: z.string() }), ['Paris'])]);
      await runTurn({
        gate,
        adapter: adapterFor('openai-responses'),
        connection: { baseUrl: server.url },
        model: 'gpt-4o',
        prompt: 'What is the capital of France?',
      });
      // The recording used the item id fc_… as call_id (accepted); the documented practice is call_….
      const expected = recorded.input.map((item) =>
        'call_id' in item ? { ...item, call_id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL' } : item,
      );
      expect((requestBody(server, 1) as { input: unknown }).input).toEqual(expected);
    });

    it('Ollama 2024 request: the first request sends the user message as recorded', async () => {
      const recorded = JSON.parse(read('ollama-v1-tool-call-2024-11.request.json')) as { messages: unknown };
      server = await startReplayServer([
        { body: read('ollama-v1-tool-call-2024-11.sse') },
        { body: textAnswer('openai-compatible', 'ok') },
      ]);
      const gate = gateWith([
        answering('return_list_of_int', z.strictObject({ value: z.unknown() }), ['[1,2,3,4,5]']),
      ]);
      const outcome = await runTurn({
        gate,
        adapter: adapterFor('openai-compatible'),
        connection: { baseUrl: server.url },
        model: 'llama3.1',
        prompt: 'Return [1, 2, 3, 4, 5]',
      });
      expect(outcome.status).toBe('done');
      expect((requestBody(server, 0) as { messages: unknown }).messages).toEqual(recorded.messages);
    });
  });
}

/**
 * The recorded Gemini requests differ from ours in three documented ways: the client's made-up ids,
 * its `return_value` response key, and signatures re-encoded as base64url (we echo the stream's bytes).
 */
function normalizeGemini(contents: unknown): unknown {
  return (contents as { role: string; parts: Record<string, unknown>[] }[]).map((c) => ({
    role: c.role,
    parts: c.parts.map((p) => {
      if (p.functionCall) {
        const { id: _id, ...call } = p.functionCall as Record<string, unknown>;
        const signature =
          typeof p.thoughtSignature === 'string'
            ? { thoughtSignature: p.thoughtSignature.replaceAll('-', '+').replaceAll('_', '/') }
            : {};
        return { ...p, functionCall: call, ...signature };
      }
      if (p.functionResponse) {
        const {
          id: _id,
          response,
          ...rest
        } = p.functionResponse as { id?: string; response: { return_value: unknown } };
        return { functionResponse: { ...rest, response: { result: response.return_value } } };
      }
      return p;
    }),
  }));
}

function firstUserText(kind: ProviderKind, request: Record<string, unknown>): string {
  if (kind === 'gemini') {
    return String(
      ((request.contents as { parts: { text: string }[] }[])[0] as { parts: { text: string }[] }).parts[0]
        ?.text,
    );
  }
  if (kind === 'openai-responses') return String((request.input as { content: string }[])[0]?.content);
  const content = (request.messages as { content: unknown }[])[0]?.content;
  return typeof content === 'string' ? content : String((content as { text: string }[])[0]?.text);
}

/** The follow-up request answers every call, in call order, keyed the way the provider requires. */
function checkFollowUp(
  kind: ProviderKind,
  follow: Record<string, unknown>,
  ids: string[],
  recorded?: Record<string, unknown>,
) {
  if (kind === 'openai' || kind === 'openai-compatible') {
    const messages = follow.messages as {
      role: string;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
    }[];
    const at = messages.findIndex((m) => m.role === 'assistant');
    expect(messages[at]?.tool_calls?.map((c) => c.id)).toEqual(ids);
    expect(messages.slice(at + 1, at + 1 + ids.length).map((m) => m.tool_call_id)).toEqual(ids);
  } else if (kind === 'openai-responses') {
    const input = follow.input as { type?: string; call_id?: string }[];
    expect(input.filter((i) => i.type === 'function_call').map((i) => i.call_id)).toEqual(ids);
    expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(ids);
  } else if (kind === 'anthropic') {
    const messages = follow.messages as {
      role: string;
      content: { type: string; id?: string; tool_use_id?: string }[];
    }[];
    expect(messages[1]?.content.filter((b) => b.type === 'tool_use').map((b) => b.id)).toEqual(ids);
    expect(messages[2]?.content.map((b) => b.tool_use_id)).toEqual(ids);
    if (recorded) {
      const theirs = (recorded.messages as typeof messages)[1]?.content.filter((b) => b.type === 'tool_use');
      expect(messages[1]?.content.filter((b) => b.type === 'tool_use')).toEqual(theirs);
    }
  } else {
    const contents = follow.contents as {
      role: string;
      parts: { functionCall?: unknown; functionResponse?: { name: string } }[];
    }[];
    const calls = contents[1]?.parts.filter((p) => p.functionCall) ?? [];
    expect(calls).toHaveLength(ids.length);
    expect(contents[2]?.parts.map((p) => p.functionResponse?.name)).toEqual(
      calls.map((p) => (p.functionCall as { name: string }).name),
    );
    if (recorded) {
      const theirs = (normalizeGemini(recorded.contents) as typeof contents)[1]?.parts;
      expect(contents[1]?.parts).toEqual(theirs);
    }
  }
}

/** The fixture's expected calls written as toolgate's own stream in the same wire format. */
function ownStream(fixture: Fixture): string {
  const calls = fixture.expected.map((e) => ({
    ...(e.id ? { id: e.id } : {}),
    name: e.name,
    args: JSON.stringify(e.args),
  }));
  switch (fixture.kind) {
    case 'openai':
    case 'openai-compatible':
      return chatStream({ calls });
    case 'openai-responses':
      return responsesStream({ calls });
    case 'anthropic':
      return anthropicStream({ calls });
    case 'gemini':
      return geminiStream({
        calls: fixture.expected.map((e) => ({ name: e.name, args: e.args as Record<string, unknown> })),
      });
  }
}

if (!present) {
  // Without the corpus, the same expectations are checked against toolgate's own streams of each
  // fixture's wire format (test/helpers/provider-streams.ts), so this file still proves something.
  describe('provider fixtures (shared corpus absent): own streams with the same calls', () => {
    it.each(Object.entries(FIXTURES))('%s', (_name, fixture) => {
      expectAccumulation(fixture, ownStream(fixture));
    });

    it('an own stream cut before its terminator is never complete', () => {
      for (const [name, fixture] of Object.entries(FIXTURES)) {
        const full = ownStream(fixture);
        let complete = true;
        try {
          complete = decodeStream(fixture.kind, full.slice(0, Math.floor(full.length * 0.6))).complete;
        } catch {
          complete = false;
        }
        expect(complete, name).toBe(false);
      }
    });
  });
}
