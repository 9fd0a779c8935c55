import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantToolCall } from '../core/conversation.js';
import { ToolCallAccumulator } from './tool-call-accumulator.js';

describe('ToolCallAccumulator (providers.md §0, §6)', () => {
  it('concatenates fragments per key and parses only at close; an empty argument string is {}', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'call_a', name: 'read_file', arguments: '' });
    acc.apply({ type: 'tool_call_start', key: 'i1', id: 'call_b', name: 'glob' });
    acc.apply({ type: 'tool_call_delta', key: 'i0', arguments: '{"pa' });
    acc.apply({ type: 'tool_call_delta', key: 'i0', arguments: 'th":"a"}' });
    expect(acc.finish()).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a"}' },
      { id: 'call_b', name: 'glob', arguments: '' },
    ]);
  });

  it('never concatenates names repeated on every delta (old llama.cpp) and ignores empty ids', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'x1', name: 'add', arguments: '{"a":' });
    acc.apply({ type: 'tool_call_start', key: 'i0', name: 'add', arguments: '1}' });
    acc.apply({ type: 'tool_call_start', key: 'i0', id: '', name: 'add', arguments: '' });
    expect(acc.finish()).toEqual([{ id: 'x1', name: 'add', arguments: '{"a":1}' }]);
  });

  it('a new id at an occupied key opens a new call once the old JSON is complete (Ollama 2026, vLLM)', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'a', name: 'f', arguments: '{"x":1}' });
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'b', name: 'f', arguments: '{"x":2}' });
    expect(acc.finish().map((c) => [c.id, c.arguments])).toEqual([
      ['a', '{"x":1}'],
      ['b', '{"x":2}'],
    ]);
  });

  it('a server rotating ids per fragment stays one call while its JSON is open (LM Studio report)', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'r1', name: 'f', arguments: '{"x":' });
    acc.apply({ type: 'tool_call_start', key: 'i0', id: 'r2', arguments: '"y"}' });
    expect(acc.finish()).toEqual([{ id: 'r1', name: 'f', arguments: '{"x":"y"}' }]);
  });

  it('makes up ids where the provider sent none, unique per call, and reports each call as it closes', () => {
    const closed: [AssistantToolCall, number][] = [];
    const acc = new ToolCallAccumulator({ idPrefix: 'tg_', onClosed: (c, i) => closed.push([c, i]) });
    acc.apply({ type: 'tool_call_start', key: 'p0', name: 'a', arguments: '{}' });
    acc.apply({ type: 'tool_call_end', key: 'p0' });
    expect(closed).toEqual([[{ id: 'tg_0', name: 'a', arguments: '{}' }, 0]]);
    acc.apply({ type: 'tool_call_start', key: 'p1', name: 'b', arguments: '{}' });
    const calls = acc.finish();
    expect(calls.map((c) => c.id)).toEqual(['tg_0', 'tg_1']);
    expect(closed).toHaveLength(2);
  });

  it('a restated full argument string at close wins over the fragments (Responses .done, LM Studio)', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({ type: 'tool_call_start', key: 'fc_1', id: 'call_1', name: 'weather' });
    acc.apply({ type: 'tool_call_end', key: 'fc_1', arguments: '{"location":"SF"}' });
    expect(acc.finish()).toEqual([{ id: 'call_1', name: 'weather', arguments: '{"location":"SF"}' }]);
  });

  it('truncated JSON is marked as a problem and keeps its exact text; a nameless call too', () => {
    const acc = new ToolCallAccumulator();
    acc.apply({
      type: 'tool_call_start',
      key: 'i0',
      id: 'a',
      name: 'write_file',
      arguments: '{"path":"x","content":"hal',
    });
    acc.apply({ type: 'tool_call_delta', key: 'i9', arguments: '{}' });
    const [cut, nameless] = acc.finish();
    expect(cut?.arguments).toBe('{"path":"x","content":"hal');
    expect(cut?.problem).toMatch(/not complete JSON/);
    expect(nameless?.problem).toMatch(/without a tool name/);
  });

  it('Property: however the argument text is fragmented, the accumulated text is byte-identical', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 6 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (specs) => {
          const acc = new ToolCallAccumulator();
          const expected = specs.map(([value], i) => ({
            id: `c${i}`,
            name: `t${i}`,
            arguments: JSON.stringify({ v: value }),
          }));
          expected.forEach((call, i) => {
            const text = call.arguments;
            const cuts = [...new Set((specs[i]?.[1] ?? []).map((c) => c % (text.length + 1)))].sort(
              (a, b) => a - b,
            );
            acc.apply({ type: 'tool_call_start', key: `i${i}`, id: call.id, name: call.name, arguments: '' });
            let last = 0;
            for (const c of [...cuts, text.length]) {
              acc.apply({ type: 'tool_call_delta', key: `i${i}`, arguments: text.slice(last, c) });
              last = c;
            }
          });
          expect(acc.finish()).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
