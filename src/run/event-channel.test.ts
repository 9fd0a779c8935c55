import { describe, expect, it } from 'vitest';
import type { ToolEvent } from '../core/tool-event.js';
import { EventChannel } from './event-channel.js';

async function drain(channel: EventChannel): Promise<ToolEvent[]> {
  const out: ToolEvent[] = [];
  for await (const e of channel) out.push(e);
  return out;
}

describe('EventChannel (FR-OUT-01 backpressure)', () => {
  it('coalesces chunks when full instead of dropping, keeping every byte and lifecycle order', async () => {
    const channel = new EventChannel({ capacity: 4 });
    channel.push({ type: 'started', callId: '1', toolName: 't' });
    let expected = '';
    for (let i = 0; i < 1000; i++) {
      channel.push({ type: 'stdout', callId: '1', chunk: `${i},` });
      expected += `${i},`;
    }
    channel.push({ type: 'completed', callId: '1', ok: true });
    channel.close();
    expect(channel.size).toBeLessThanOrEqual(5);
    const events = await drain(channel);
    expect(events[0]?.type).toBe('started');
    expect(events.at(-1)?.type).toBe('completed');
    expect(
      events
        .filter((e) => e.type === 'stdout')
        .map((e) => (e as { chunk: string }).chunk)
        .join(''),
    ).toBe(expected);
    expect(channel.coalesced).toBeGreaterThan(900);
  });

  it('a merged chunk is marked plain ASCII only when every part was (review finding)', async () => {
    const channel = new EventChannel({ capacity: 1 });
    channel.push({ type: 'started', callId: '1', toolName: 't' });
    channel.push({ type: 'stdout', callId: '1', chunk: 'a', ascii: true });
    channel.push({ type: 'stdout', callId: '1', chunk: 'b', ascii: true });
    channel.push({ type: 'stdout', callId: '2', chunk: 'x', ascii: true });
    channel.push({ type: 'stdout', callId: '2', chunk: ' café •' });
    channel.close();
    const chunks = (await drain(channel)).filter((e) => e.type === 'stdout');
    expect(chunks).toEqual([
      { type: 'stdout', callId: '1', chunk: 'ab', ascii: true },
      { type: 'stdout', callId: '2', chunk: 'x café •' },
    ]);
  });

  it('never merges a chunk across a lifecycle event', async () => {
    const channel = new EventChannel({ capacity: 2 });
    channel.push({ type: 'stdout', callId: '1', chunk: 'a' });
    channel.push({ type: 'completed', callId: '1', ok: true });
    channel.push({ type: 'stdout', callId: '1', chunk: 'late' });
    channel.close();
    expect((await drain(channel)).map((e) => e.type)).toEqual(['stdout', 'completed', 'stdout']);
  });

  it('a waiting consumer wakes on push and ends on close', async () => {
    const channel = new EventChannel();
    const done = drain(channel);
    setTimeout(() => {
      channel.push({ type: 'started', callId: '1', toolName: 't' });
      channel.close();
    }, 5);
    expect(await done).toHaveLength(1);
  });
});
