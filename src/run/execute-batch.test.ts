import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sleep, testTool } from '../../test/helpers/tools.js';
import { useWorkspace } from '../../test/helpers/workspace.js';
import { validateConfig } from '../config/load-config.js';
import { approveAll } from '../core/confirmation.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import { ToolError } from '../core/tool-error.js';
import type { ToolEvent } from '../core/tool-event.js';
import { createToolgate } from '../toolgate.js';

describe('executeBatch', () => {
  const ws = useWorkspace();
  const gate = (tools: AnyToolDefinition[], config: Record<string, unknown> = {}) =>
    createToolgate({
      config: validateConfig({ tools: config }),
      roots: [ws.dir()],
      builtins: false,
      tools,
      approver: approveAll,
    });

  it('FR-EXE-01/02: runs in call order and continues after a failure', async () => {
    const order: string[] = [];
    const rec = testTool('rec', async (a) => {
      order.push(a.value ?? '');
      if (a.value === 'bad') throw new ToolError('ExecutionFailed', 'it broke');
      return a.value ?? '';
    });
    const results = await gate([rec]).execute(
      ['1', 'bad', '3'].map((v, i) => ({ id: String(i), name: 'rec', arguments: { value: v } })),
    );
    expect(order).toEqual(['1', 'bad', '3']);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1]).toMatchObject({
      content: 'rec failed: it broke',
      error: { type: 'ExecutionFailed', message: 'it broke' },
    });
  });

  it('T-TMO-01: a timeout yields Timeout, aborts the tool, and the batch continues', async () => {
    let sawAbort = false;
    const slow = testTool(
      'slow',
      async (_a, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          sawAbort = true;
        });
        await new Promise(() => {}); // never settles on its own
        return '';
      },
      { timeoutMs: 50 },
    );
    const results = await gate([slow, testTool('echo')]).execute([
      { id: '1', name: 'slow', arguments: {} },
      { id: '2', name: 'echo', arguments: { value: 'after' } },
    ]);
    expect(results[0]?.error?.type).toBe('Timeout');
    expect(results[0]?.content).toMatch(/timed out after 50ms/);
    expect(sawAbort).toBe(true);
    expect(results[1]).toMatchObject({ ok: true, content: 'echo:after' });
  });

  it('the default timeout applies when the tool has none', async () => {
    const slow = testTool('slow', (_a, ctx) => sleep(5_000, ctx.signal).then(() => 'late'));
    const [r] = await gate([slow], { timeouts: { default_seconds: 0.05 } }).execute([
      { id: '1', name: 'slow', arguments: {} },
    ]);
    expect(r?.error?.type).toBe('Timeout');
  });

  it('T-CAN-01: cancel mid-execution marks the current and remaining calls Cancelled', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const tool = testTool('t', async (a, ctx) => {
      ran.push(a.value ?? '');
      if (a.value === '2') {
        setTimeout(() => controller.abort(), 20);
        await sleep(10_000, ctx.signal);
      }
      return 'done';
    });
    const results = await gate([tool]).execute(
      ['1', '2', '3', '4'].map((v) => ({ id: v, name: 't', arguments: { value: v } })),
      { signal: controller.signal },
    );
    expect(results.map((r) => r.error?.type ?? 'ok')).toEqual(['ok', 'Cancelled', 'Cancelled', 'Cancelled']);
    expect(ran).toEqual(['1', '2']);
    expect(results[2]?.content).toBe('t failed: Cancelled by user');
  });

  it('a tool may finish in the call itself: its output, or a synchronous throw, is one result in call order', async () => {
    const now = testTool('now', (a) => {
      if (a.value === 'refuse') throw new ToolError('BadArgs', 'not that one');
      if (a.value === 'crash') throw new TypeError('boom');
      return { content: `now:${a.value}`, metadata: { sync: true } };
    });
    const later = testTool('later', async (a) => {
      await sleep(5);
      return `later:${a.value}`;
    });
    for (const parallel of [false, true]) {
      const events: ToolEvent[] = [];
      const calls = [
        ['now', 'a'],
        ['now', 'refuse'],
        ['now', 'b'],
        ['now', 'crash'],
        ['now', 'c'],
        ['later', 'd'],
      ].map(([name, value], i) => ({ id: String(i), name: name as string, arguments: { value } }));
      const results = await gate([now, later], { allow_parallel: parallel }).execute(calls, {
        onEvent: (e) => events.push(e),
      });
      expect(results.map((r) => [r.id, r.ok, r.error?.type ?? r.content])).toEqual([
        ['0', true, 'now:a'],
        ['1', false, 'BadArgs'],
        ['2', true, 'now:b'],
        ['3', false, 'ExecutionFailed'],
        ['4', true, 'now:c'],
        ['5', true, 'later:d'],
      ]);
      expect(results[0]?.metadata).toEqual({ sync: true });
      expect(results[3]?.content).toMatch(/the tool crashed \(TypeError: boom\)/);
      const seen = events.map((e) => `${e.type}:${e.callId}`);
      for (const r of results)
        expect(seen.indexOf(`started:${r.id}`)).toBeLessThan(seen.indexOf(`completed:${r.id}`));
    }
  });

  it('FR-EXE-04b: a thrown non-ToolError becomes a sanitized ExecutionFailed result', async () => {
    const crash = testTool('crash', async () => {
      throw new TypeError('bad \u001b[31mthing\u001b]52;c;AAAA\u0007 happened');
    });
    const weird = testTool('weird', async () => {
      throw 42;
    });
    const nothing = testTool('nothing', async () => undefined as unknown as string);
    const results = await gate([crash, weird, nothing]).execute([
      { id: '1', name: 'crash', arguments: {} },
      { id: '2', name: 'weird', arguments: {} },
      { id: '3', name: 'nothing', arguments: {} },
    ]);
    expect(results[0]?.error?.type).toBe('ExecutionFailed');
    expect(results[0]?.content).toContain('TypeError: bad thing happened');
    expect(results[0]?.content).not.toContain('\u001b');
    expect(results[1]?.error?.type).toBe('ExecutionFailed');
    expect(results[2]?.error?.type).toBe('Internal');
  });

  it('FR-ERR-JSON-TOOL-01/02: a JSON object error passes through verbatim, never truncated or prefixed', async () => {
    const json = JSON.stringify({ error: 'conflict', detail: 'x'.repeat(300) });
    const tool = testTool('j', async (a) => {
      throw new ToolError('ExecutionFailed', a.value === 'json' ? json : 'not { json');
    });
    const results = await gate([tool], { output: { max_bytes: 100 } }).execute([
      { id: '1', name: 'j', arguments: { value: 'json' } },
      { id: '2', name: 'j', arguments: { value: 'text' } },
    ]);
    expect(results[0]?.content).toBe(json);
    expect(results[0]?.error?.message).toBe(json);
    expect(results[1]?.content).toBe('j failed: not { json');
  });

  it('FR-OUT-04: output over the limit is truncated inside the limit, pre-resolved errors too', async () => {
    const big = testTool('big', async () => 'y'.repeat(5000));
    const results = await gate([big], { output: { max_bytes: 300 } }).execute([
      { id: '1', name: 'big', arguments: {} },
      { id: '2', name: `nope${'n'.repeat(400)}`, arguments: {} },
    ]);
    expect(Buffer.byteLength(results[0]?.content ?? '')).toBeLessThanOrEqual(300);
    expect(results[0]?.content).toMatch(/output truncated: \d+ bytes omitted/);
    expect(results[0]?.metadata).toMatchObject({ truncated: true });
    expect(results[1]?.error?.type).toBe('UnknownTool');
    expect(Buffer.byteLength(results[1]?.content ?? '')).toBeLessThanOrEqual(300);
    expect(results[1]?.content).toMatch(/output truncated/);
  });

  it('allow_parallel: consecutive read-only calls overlap, results stay in call order', async () => {
    let running = 0;
    let peak = 0;
    const r = testTool('r', async (a) => {
      running++;
      peak = Math.max(peak, running);
      await sleep(Number(a.value));
      running--;
      return a.value ?? '';
    });
    const w = testTool(
      'w',
      async () => {
        expect(running).toBe(0); // a side-effecting call never overlaps
        return 'w';
      },
      { tier: 'side_effecting' },
    );
    const calls = [
      { id: '1', name: 'r', arguments: { value: '60' } },
      { id: '2', name: 'r', arguments: { value: '10' } },
      { id: '3', name: 'w', arguments: {} },
      { id: '4', name: 'r', arguments: { value: '30' } },
      { id: '5', name: 'r', arguments: { value: '5' } },
    ];
    const results = await gate([r, w], { allow_parallel: true }).execute(calls);
    expect(results.map((x) => x.content)).toEqual(['60', '10', 'w', '30', '5']);
    expect(peak).toBe(2);
    peak = 0;
    await gate([r, w]).execute(calls);
    expect(peak).toBe(1);
  });

  it('events: started before chunks, completed after the last chunk, chunks sanitized', async () => {
    const streamer = testTool('s', async (_a, ctx) => {
      ctx.emit('stdout', 'a\u001b[2J');
      ctx.emit('stderr', 'b');
      return 'ok';
    });
    const events: ToolEvent[] = [];
    await gate([streamer]).execute([{ id: '1', name: 's', arguments: {} }], {
      onEvent: (e) => events.push(e),
    });
    expect(events).toEqual([
      { type: 'started', callId: '1', toolName: 's' },
      { type: 'stdout', callId: '1', chunk: 'a' },
      { type: 'stderr', callId: '1', chunk: 'b' },
      { type: 'completed', callId: '1', ok: true },
    ]);
  });

  it('observer: each call recorded before it runs, its result before the next starts', async () => {
    const log: string[] = [];
    const tool = testTool('t', async (a) => {
      log.push(`run ${a.value}`);
      return a.value ?? '';
    });
    await gate([tool]).execute(
      ['1', '2'].map((v) => ({ id: v, name: 't', arguments: { value: v } })),
      {
        observer: {
          onCallStart: (p) => {
            log.push(`start ${p.call.id}`);
          },
          onCallResult: (r) => {
            log.push(`result ${r.id}`);
          },
        },
      },
    );
    expect(log).toEqual(['start 1', 'run 1', 'result 1', 'start 2', 'run 2', 'result 2']);
  });

  it('Property 48: aborting stops the running call with a Cancelled result; later calls never start; earlier results stand', async () => {
    // Seed 001 says the execution "throws a cancellation error"; DESIGN §1 (exactly one ToolResult
    // per call, whatever happens) makes that a result with error type `Cancelled`, never a throw.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 1))),
        fc.constantFrom('listens', 'ignores', 'throws'),
        fc.constantFrom('sync', 'microtask', 'timer', 'before'),
        async ([n, k], behaviour, when) => {
          const controller = new AbortController();
          const started: number[] = [];
          let sawAbort = false;
          let leftover: NodeJS.Timeout | undefined;
          const tool = testTool('t', async (a, ctx) => {
            const i = Number(a.value);
            started.push(i);
            if (i < k) return `done ${i}`;
            // Call k triggers the abort, then waits the way this tool does.
            if (when === 'sync') controller.abort();
            else if (when === 'microtask') queueMicrotask(() => controller.abort());
            else if (when === 'timer') setTimeout(() => controller.abort(), 1);
            return new Promise<string>((resolve, reject) => {
              ctx.signal.addEventListener('abort', () => {
                sawAbort = true;
                if (behaviour === 'listens') resolve('stopped');
                if (behaviour === 'throws') reject(new Error('aborted'));
              });
              // A tool that ignores the signal finishes much later, if at all.
              if (behaviour === 'ignores') leftover = setTimeout(() => resolve('late'), 5_000);
            });
          });
          if (when === 'before') controller.abort();
          const calls = Array.from({ length: n }, (_, i) => ({
            id: `c${i}`,
            name: 't',
            arguments: { value: `${i}` },
          }));
          const started0 = Date.now();
          const results = await gate([tool], { allow_parallel: false }).execute(calls, {
            signal: controller.signal,
          });
          if (leftover) clearTimeout(leftover);
          expect(Date.now() - started0).toBeLessThan(2_000); // the batch did not wait for the tool
          expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
          const first = when === 'before' ? 0 : k; // the first call that cannot finish
          expect(started).toEqual(Array.from({ length: when === 'before' ? 0 : k + 1 }, (_, i) => i));
          for (const [i, r] of results.entries()) {
            if (i < first) expect(r).toMatchObject({ ok: true, content: `done ${i}` });
            else expect(r).toMatchObject({ ok: false, error: { type: 'Cancelled' } });
          }
          // The running call learned of the abort through its signal.
          expect(sawAbort).toBe(when !== 'before');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 48 (example): an aborted signal reaches the running tool', async () => {
    const controller = new AbortController();
    let aborted = false;
    const tool = testTool('t', async (_a, ctx) => {
      setTimeout(() => controller.abort(), 5);
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve();
        }),
      );
      return 'x';
    });
    const [r] = await gate([tool]).execute([{ id: '1', name: 't', arguments: {} }], {
      signal: controller.signal,
    });
    expect(aborted).toBe(true);
    expect(r?.error?.type).toBe('Cancelled');
  });

  it('Property 49 and Property 57: any batch gives one well-formed result per call, in order; every error has a type and a message', async () => {
    const tools = [
      testTool('ok'),
      testTool('fail', async () => {
        throw new Error('x');
      }),
      testTool('w', undefined, { tier: 'side_effecting' }),
    ];
    const g = createToolgate({ config: validateConfig({}), roots: [ws.dir()], builtins: false, tools });
    const arbCall = fc.record({
      id: fc.string({ maxLength: 3 }),
      name: fc.constantFrom('ok', 'fail', 'w', 'missing'),
      arguments: fc.oneof(
        fc.constant({}),
        fc.string({ maxLength: 5 }),
        fc.record({ value: fc.oneof(fc.string(), fc.integer()) }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(arbCall, { maxLength: 10 }), async (calls) => {
        const results = await g.execute(calls);
        expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
        for (const r of results) {
          expect(typeof r.content).toBe('string');
          expect(typeof r.display).toBe('string'); // Property 49: content for the model, display for a person
          expect(typeof r.latencyMs).toBe('number');
          if (r.ok) expect(r.error).toBeNull();
          else {
            expect(r.error).toEqual({ type: expect.any(String), message: expect.any(String) });
            expect(r.content.startsWith(`${r.name} failed: `)).toBe(true);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
