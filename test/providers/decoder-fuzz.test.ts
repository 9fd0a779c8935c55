import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_KINDS } from '../../src/core/conversation.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { ProviderError } from '../../src/providers/provider.js';
import { SseParser } from '../../src/providers/sse-parser.js';
import { ToolCallAccumulator } from '../../src/providers/tool-call-accumulator.js';

/**
 * Bad input never crashes anything: whatever a server sends (garbage bytes, JSON of the wrong
 * shape, the right shape with wrong types), decoding yields events or a ProviderError, and the
 * accumulator still returns well-formed calls.
 */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.dictionary(
    fc.constantFrom(
      'type',
      'index',
      'id',
      'name',
      'delta',
      'choices',
      'tool_calls',
      'function',
      'arguments',
      'content',
      'content_block',
      'partial_json',
      'item',
      'item_id',
      'output_index',
      'candidates',
      'parts',
      'functionCall',
      'args',
      'partialArgs',
      'jsonPath',
      'stringValue',
      'willContinue',
      'finish_reason',
      'finishReason',
      'error',
      'message',
      'response',
      'usage',
      'text',
      'stop_reason',
      'call_id',
    ),
    tie('value'),
    { maxKeys: 5 },
  ),
}));
const eventName = fc.constantFrom(
  undefined,
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'response.output_item.added',
  'response.function_call_arguments.delta',
  'response.output_item.done',
  'error',
);
const sseEvent = fc.oneof(
  fc.tuple(eventName, json.object).map(([name, data]) => ({ name, data: JSON.stringify(data) })),
  fc.tuple(eventName, fc.string()).map(([name, data]) => ({ name, data })),
  fc.constant({ name: undefined, data: '[DONE]' }),
);

describe('decoders under arbitrary input', () => {
  it.each(PROVIDER_KINDS)('%s: events or a ProviderError, never a crash', (kind) => {
    fc.assert(
      fc.property(fc.array(sseEvent, { maxLength: 12 }), (events) => {
        const decoder = adapterFor(kind).createDecoder();
        const acc = new ToolCallAccumulator();
        try {
          for (const e of events) {
            for (const ev of decoder.push({ ...(e.name ? { event: e.name } : {}), data: e.data })) {
              if (ev.type.startsWith('tool_call'))
                acc.apply(ev as Parameters<ToolCallAccumulator['apply']>[0]);
            }
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ProviderError);
        }
        const end = decoder.end();
        expect(typeof end.complete).toBe('boolean');
        for (const call of acc.finish()) {
          expect(typeof call.id).toBe('string');
          expect(call.id.length).toBeGreaterThan(0);
          expect(typeof call.name).toBe('string');
          expect(typeof call.arguments).toBe('string');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('the SSE parser takes any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const p = new SseParser();
        const out = [...p.push(bytes), ...p.end()];
        for (const e of out) expect(typeof e.data).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
