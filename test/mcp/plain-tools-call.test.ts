import {
  CallToolRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainToolsCall } from '../../src/mcp/plain-tools-call.js';

/** Values a host could put anywhere: the right type, the wrong one, or nothing at all. */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 6 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);

/** A key that is usually there, sometimes with a value of the wrong kind, sometimes absent. */
const maybe = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: anyValue });

/** A key that is usually absent (undefined vanishes in JSON), sometimes there. */
const rarely = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

/** tools/call requests near the plain shape: every key right, wrong, missing or extra. */
const nearPlain = fc
  .record({
    jsonrpc: maybe(fc.constant('2.0')),
    id: maybe(fc.oneof(fc.string({ maxLength: 5 }), fc.integer())),
    method: maybe(fc.constantFrom('tools/call', 'tools/call', 'tools/list', 'ping')),
    params: maybe(
      fc.record({
        name: maybe(fc.string({ maxLength: 8 })),
        arguments: maybe(
          fc.dictionary(
            // Now and then the key JSON.parse makes an own property of and the SDK's copy drops.
            fc.oneof(
              { weight: 8, arbitrary: fc.string({ maxLength: 4 }) },
              { weight: 1, arbitrary: fc.constant('__proto__') },
            ),
            fc.jsonValue({ maxDepth: 2 }),
            { maxKeys: 3 },
          ),
        ),
        _meta: rarely(
          fc.record({
            progressToken: maybe(fc.oneof(fc.string({ maxLength: 4 }), fc.integer())),
            traceparent: rarely(fc.string({ maxLength: 8 })),
            'io.modelcontextprotocol/related-task': rarely(
              fc.record({ taskId: fc.string({ maxLength: 4 }) }),
            ),
            ['__proto__']: rarely(fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 1 })),
          }),
        ),
        task: rarely(fc.record({ ttl: fc.integer({ min: 0 }) })),
        extra: rarely(anyValue),
      }),
    ),
    extra: rarely(anyValue),
  })
  // JSON on the wire: undefined values vanish, as they would in the line the host sent.
  .map((m) => JSON.parse(JSON.stringify(m)) as unknown);

describe('plain tools/call requests, recognised without the SDK (the stdio fast lane)', () => {
  it('Property: whatever the lane takes, the SDK accepts too, as the same request (id, name, arguments, _meta)', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(nearPlain, fc.jsonValue()), (message) => {
        const call = plainToolsCall(message);
        if (!call) return;
        taken++;
        expect(JSONRPCMessageSchema.safeParse(message).success).toBe(true);
        expect(isJSONRPCRequest(message)).toBe(true);
        const sdk = CallToolRequestSchema.parse(message);
        expect(call.id).toBe((message as { id: unknown }).id);
        expect(call.params).toEqual(sdk.params);
      }),
      { numRuns: 3000, seed: 14 },
    );
    // Not vacuous: a good share of the generated requests are plain ones the lane takes.
    expect(taken).toBeGreaterThan(150);
  });

  it('the requests the hosts send take the lane: with and without arguments, progress token, trace context', () => {
    const calls = [
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'a' } },
      },
      { jsonrpc: '2.0', id: 'x-1', method: 'tools/call', params: { name: 'git_status' } },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'grep', arguments: {}, _meta: { progressToken: 7, traceparent: '00-ab-cd-01' } },
      },
    ];
    for (const message of calls) {
      expect(plainToolsCall(message)).toEqual({ id: message.id, params: message.params });
    }
  });

  it('anything else is left to the SDK: tasks, extra keys, fractional ids, odd arguments or tokens', () => {
    const base = { jsonrpc: '2.0', id: 1, method: 'tools/call' };
    const params = { name: 'read_file', arguments: { path: 'a' } };
    const others: unknown[] = [
      { ...base, params: { ...params, task: { ttl: 1000 } } },
      { ...base, params: { ...params, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } },
      { ...base, params: { ...params, extra: 1 } },
      { ...base, params, extra: 1 },
      { ...base, id: 1.5, params },
      { ...base, id: null, params },
      { ...base, params: { name: 'read_file', arguments: ['a'] } },
      { ...base, params: { ...params, _meta: { progressToken: { a: 1 } } } },
      { ...base, params: { ...params, _meta: { progressToken: 0.5 } } },
      { ...base, jsonrpc: '1.0', params },
      { ...base, method: 'tools/list', params },
      { ...base, params: { arguments: {} } },
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","__proto__":{}}}'),
      JSON.parse(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"__proto__":{"x":1}}}}',
      ),
      JSON.parse(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"__proto__":{}}}}',
      ),
      null,
      [base],
    ];
    for (const message of others) expect(plainToolsCall(message), JSON.stringify(message)).toBeUndefined();
  });
});
