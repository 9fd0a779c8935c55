import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../src/core/conversation.js';
import { errorResult } from '../../src/core/make-result.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { adapterFor } from '../../src/providers/adapters.js';
import type { AdvertisedTool } from '../../src/providers/provider.js';
import { decodeStream } from '../helpers/decode-stream.js';
import { anthropicStream, chatStream, geminiStream, responsesStream } from '../helpers/provider-streams.js';

const ok = (id: string, name: string, content: string): ToolResult => ({
  id,
  name,
  ok: true,
  content,
  error: null,
  latencyMs: 1,
});
const tools: AdvertisedTool[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { path: { type: 'string' } },
    },
  },
];
const args1 = '{"path": "a.txt"}';
const args2 = '{"path":"b.txt"}';

describe('OpenAI Chat and compatible servers: decoding with every quirk (providers.md §6)', () => {
  const expectTwo = (body: string, kind: 'openai' | 'openai-compatible' = 'openai-compatible') => {
    for (const size of [0, 1, 7]) {
      const d = decodeStream(kind, body, size);
      expect(d.calls.map((c) => [c.name, c.arguments])).toEqual([
        ['read_file', args1],
        ['read_file', args2],
      ]);
      expect(d.complete).toBe(true);
    }
  };
  const calls = [
    { id: 'call_1', name: 'read_file', args: args1 },
    { id: 'call_2', name: 'read_file', args: args2 },
  ];
  it('fragmented parallel calls keyed by index', () => expectTwo(chatStream({ calls }), 'openai'));
  it('§6.1 missing index (old Ollama, Mistral): each fragment with an id opens a call', () =>
    expectTwo(chatStream({ calls, noIndex: true, wholeArgs: true })));
  it('§6.2 reused index 0 with a new id, then id:"" on continuation deltas (Ollama 2026, vLLM)', () =>
    expectTwo(chatStream({ calls, sameIndex: true })));
  it('§6.5 no arguments key on the first delta (vLLM)', () =>
    expectTwo(chatStream({ calls, noArgumentsKey: true })));
  it('§6.6 the name repeated on every delta (old llama.cpp) is set once', () =>
    expectTwo(chatStream({ calls, repeatName: true })));
  it('§6.8 missing ids are made up, unique', () => {
    const d = decodeStream('openai-compatible', chatStream({ calls: calls.map(({ id: _id, ...c }) => c) }));
    expect(new Set(d.calls.map((c) => c.id)).size).toBe(2);
    expect(d.calls.every((c) => c.id.startsWith('made_'))).toBe(true);
  });
  it('§6.7 finish "stop" despite calls still yields the calls (old Ollama); "length" is reported', () => {
    expect(decodeStream('openai-compatible', chatStream({ calls, finish: 'stop' })).calls).toHaveLength(2);
    expect(decodeStream('openai', chatStream({ calls, finish: 'length' })).finish).toBe('length');
  });
  it('§6.9 a missing [DONE] after a clean finish is complete for local servers, not for OpenAI', () => {
    const body = chatStream({ text: 'hi', done: false });
    expect(decodeStream('openai-compatible', body).complete).toBe(true);
    expect(decodeStream('openai', body).complete).toBe(false);
    expect(decodeStream('openai', chatStream({ text: 'hi', finish: null, done: false })).complete).toBe(
      false,
    );
  });
  it('a mid-stream error payload throws a ProviderError', () => {
    expect(() => decodeStream('openai', 'data: {"error":{"message":"overloaded"}}\n\n')).toThrow(
      /overloaded/,
    );
  });
  it('reasoning_content goes to the reasoning channel, not the text', () => {
    const body = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { reasoning_content: 'think' } }] })}\n\n${chatStream({ text: 'answer' })}`;
    const d = decodeStream('openai-compatible', body);
    expect([d.reasoning, d.text]).toEqual(['think', 'answer']);
  });
});

describe('OpenAI Responses', () => {
  it('keys fragments by item id, results by call_id; reasoning items are echoed with their encrypted content', () => {
    const d = decodeStream(
      'openai-responses',
      responsesStream({
        reasoning: { id: 'rs_1', encrypted: 'ENC' },
        calls: [{ id: 'call_9', itemId: 'fc_9', name: 'read_file', args: args1 }],
      }),
      5,
    );
    expect(d.calls).toEqual([{ id: 'call_9', name: 'read_file', arguments: args1 }]);
    expect(d.raw).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'ENC' },
      { type: 'function_call', call_id: 'call_9', name: 'read_file', arguments: args1 },
    ]);
  });
  it('LM Studio: no argument deltas, the arguments only at .done', () => {
    const d = decodeStream(
      'openai-responses',
      responsesStream({ noDeltas: true, calls: [{ id: 'call_1', name: 'read_file', args: args2 }] }),
    );
    expect(d.calls[0]?.arguments).toBe(args2);
  });
  it('no response.completed is incomplete; response.incomplete is a truncation; response.failed throws', () => {
    expect(decodeStream('openai-responses', responsesStream({ text: 'x', complete: false })).complete).toBe(
      false,
    );
    expect(decodeStream('openai-responses', responsesStream({ text: 'x', incomplete: true })).finish).toBe(
      'max_output_tokens',
    );
    expect(() =>
      decodeStream(
        'openai-responses',
        'data: {"type":"response.failed","response":{"error":{"message":"boom"}}}\n\n',
      ),
    ).toThrow(/boom/);
  });
});

describe('Anthropic Messages', () => {
  it('blocks by index; "" then fragments; thinking kept with its signature for the echo', () => {
    const d = decodeStream(
      'anthropic',
      anthropicStream({
        thinking: { text: 'hmm', signature: 'SIG' },
        text: 'Reading.',
        calls: [
          { id: 'toolu_1', name: 'read_file', args: args1 },
          { id: 'toolu_2', name: 'read_file', args: '' },
        ],
      }),
      3,
    );
    expect(d.calls).toEqual([
      { id: 'toolu_1', name: 'read_file', arguments: args1 },
      { id: 'toolu_2', name: 'read_file', arguments: '' },
    ]);
    expect(d.raw).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'SIG' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: {} },
    ]);
  });
  it('without message_stop the stream is incomplete; an error event throws', () => {
    expect(decodeStream('anthropic', anthropicStream({ text: 'x', terminated: true })).complete).toBe(false);
    expect(() =>
      decodeStream(
        'anthropic',
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ),
    ).toThrow(/overloaded_error: Overloaded/);
  });
});

describe('Gemini', () => {
  it('whole calls in part order with made-up ids; thoughtSignature stays beside its functionCall; CRLF', () => {
    const d = decodeStream(
      'gemini',
      geminiStream({
        text: 'Looking.',
        calls: [
          { name: 'read_file', args: { path: 'a.txt' }, signature: 'TS1' },
          { name: 'read_file', args: { path: 'b.txt' } },
        ],
      }),
      4,
    );
    expect(d.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['read_file', { path: 'b.txt' }],
    ]);
    expect(d.raw).toEqual([
      { text: 'Looking.' },
      { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'TS1' },
      { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
    ]);
  });
  it('Vertex streamed arguments: partialArgs by JSON path, string pieces joined, {} closes the call', () => {
    const chunk = (fc: unknown, extra = {}) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: fc, ...extra }] } }] })}\r\n\r\n`;
    const body =
      chunk({ name: 'edit', willContinue: true }, { thoughtSignature: 'S' }) +
      chunk({
        partialArgs: [{ jsonPath: '$.path', stringValue: 'a.', willContinue: true }],
        willContinue: true,
      }) +
      chunk({ partialArgs: [{ jsonPath: '$.path', stringValue: 'txt' }], willContinue: true }) +
      chunk({
        partialArgs: [
          { jsonPath: '$.opts.n', numberValue: 3 },
          { jsonPath: '$.opts.on', boolValue: true },
        ],
        willContinue: true,
      }) +
      chunk({}) +
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP' }] })}\r\n\r\n`;
    const d = decodeStream('gemini', body);
    expect(JSON.parse(d.calls[0]?.arguments ?? '')).toEqual({ path: 'a.txt', opts: { n: 3, on: true } });
    expect(d.raw).toEqual([
      {
        functionCall: { name: 'edit', args: { path: 'a.txt', opts: { n: 3, on: true } } },
        thoughtSignature: 'S',
      },
    ]);
    expect(d.complete).toBe(true);
  });
  it('a stream without a finishReason is incomplete; a blocked prompt throws', () => {
    expect(decodeStream('gemini', geminiStream({ text: 'x', finish: null })).complete).toBe(false);
    expect(() => decodeStream('gemini', 'data: {"promptFeedback":{"blockReason":"SAFETY"}}\r\n\r\n')).toThrow(
      /SAFETY/,
    );
  });
});

describe("Request builders: tools advertised and results returned in each provider's order (§8.1)", () => {
  const history: ConversationMessage[] = [
    { role: 'user', text: 'read both' },
    {
      role: 'assistant',
      text: 'Sure.',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: args1 },
        { id: 'c2', name: 'read_file', arguments: args2 },
      ],
      provider: 'openai',
    },
    {
      role: 'tool_results',
      results: [ok('c1', 'read_file', 'A'), errorResult('c2', 'read_file', 'NotFound', 'no b.txt')],
    },
  ];
  const conn = { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' };
  const turn = { model: 'm', messages: history, tools, maxTokens: 100, system: 'be brief' };

  it('OpenAI Chat: assistant with exact argument strings, then one tool message per call, in order', () => {
    const req = adapterFor('openai').buildRequest(turn, conn);
    expect(req.url).toBe('http://127.0.0.1:1/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer k');
    const body = req.body as {
      messages: unknown[];
      tools: { function: { parameters: Record<string, unknown> } }[];
    };
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'read both' },
      {
        role: 'assistant',
        content: 'Sure.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: args1 } },
          { id: 'c2', type: 'function', function: { name: 'read_file', arguments: args2 } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'tool', tool_call_id: 'c2', content: 'read_file failed: no b.txt' },
    ]);
    expect(body.tools[0]?.function.parameters.$schema).toBeUndefined();
  });

  it('Anthropic: one user message beginning with every tool_result in call order; errors flagged', () => {
    const req = adapterFor('anthropic').buildRequest(
      { ...turn, messages: [...history, { role: 'user', text: 'and then?' }] },
      conn,
    );
    expect(req.headers['x-api-key']).toBe('k');
    const body = req.body as { messages: { role: string; content: unknown[] }[]; system: string };
    expect(body.system).toBe('be brief');
    expect(body.messages[1]?.content).toEqual([
      { type: 'text', text: 'Sure.' },
      { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'c2', name: 'read_file', input: { path: 'b.txt' } },
    ]);
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'A' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'read_file failed: no b.txt', is_error: true },
        { type: 'text', text: 'and then?' },
      ],
    });
  });

  it('Anthropic: its own turn is echoed verbatim from raw (thinking signature kept)', () => {
    const raw = [
      { type: 'thinking', thinking: 't', signature: 'SIG' },
      { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.txt' } },
    ];
    const req = adapterFor('anthropic').buildRequest(
      {
        ...turn,
        messages: [
          { role: 'user', text: 'x' },
          { role: 'assistant', text: '', toolCalls: [], provider: 'anthropic', raw },
        ],
      },
      conn,
    );
    expect((req.body as { messages: { content: unknown }[] }).messages[1]?.content).toEqual(raw);
  });

  it('Responses: function_call items then function_call_output per call_id, in order', () => {
    const req = adapterFor('openai-responses').buildRequest(turn, conn);
    const body = req.body as { input: unknown[]; instructions: string; store: boolean; tools: unknown[] };
    expect(req.url).toBe('http://127.0.0.1:1/v1/responses');
    expect(body.store).toBe(false);
    expect(body.instructions).toBe('be brief');
    expect(body.input).toEqual([
      { role: 'user', content: 'read both' },
      { role: 'assistant', content: 'Sure.' },
      { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: args1 },
      { type: 'function_call', call_id: 'c2', name: 'read_file', arguments: args2 },
      { type: 'function_call_output', call_id: 'c1', output: 'A' },
      { type: 'function_call_output', call_id: 'c2', output: 'read_file failed: no b.txt' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ]);
  });

  it('Gemini: functionResponse parts in call order, results under "result", failures under "error", ids only when the model sent them', () => {
    const raw = [
      { functionCall: { name: 'read_file', args: { path: 'a.txt' }, id: 'c1' }, thoughtSignature: 'TS' },
      { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
    ];
    const messages: ConversationMessage[] = [
      history[0] as ConversationMessage,
      { ...(history[1] as Extract<ConversationMessage, { role: 'assistant' }>), provider: 'gemini', raw },
      history[2] as ConversationMessage,
    ];
    const req = adapterFor('gemini').buildRequest({ ...turn, messages, model: 'gemini-2.5-flash' }, conn);
    expect(req.url).toBe('http://127.0.0.1:1/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(req.headers['x-goog-api-key']).toBe('k');
    const body = req.body as { contents: unknown[]; tools: { functionDeclarations: unknown[] }[] };
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'read both' }] },
      { role: 'model', parts: raw },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'read_file', id: 'c1', response: { result: 'A' } } },
          { functionResponse: { name: 'read_file', response: { error: 'read_file failed: no b.txt' } } },
        ],
      },
    ]);
    expect(body.tools[0]?.functionDeclarations).toHaveLength(1);
  });

  it('FR-MODE-01: with no tools (disabled), no provider request advertises any', () => {
    for (const kind of ['openai', 'openai-responses', 'anthropic', 'gemini'] as const) {
      const body = adapterFor(kind).buildRequest({ ...turn, tools: [] }, conn).body as Record<
        string,
        unknown
      >;
      expect(body.tools, kind).toBeUndefined();
      expect(body.tool_choice, kind).toBeUndefined();
    }
  });
});
