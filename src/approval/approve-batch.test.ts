import { describe, expect, it } from 'vitest';
import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import { approveBatch } from './approve-batch.js';

function planned(id: string, kind: 'execute' | 'ask' | 'resolved'): PlannedCall {
  const call = { id, name: 't', arguments: {} };
  if (kind === 'execute') return { call, index: 0, disposition: { kind: 'execute' } };
  if (kind === 'resolved')
    return {
      call,
      index: 0,
      disposition: { kind: 'resolved', result: errorResult(id, 't', 'BadArgs', 'x') },
    };
  return {
    call,
    index: 0,
    disposition: {
      kind: 'needs_approval',
      request: {
        callId: id,
        toolName: 't',
        summary: id,
        risk: 'medium',
        locations: [],
        reason: 'r',
        rule: 'r',
      },
    },
  };
}

const kinds = (list: PlannedCall[]) => list.map((p) => p.disposition.kind);

describe('approveBatch', () => {
  it('T-APR-01: asks all confirmations of the batch in one go, before anything runs', async () => {
    const asked: string[][] = [];
    const out = await approveBatch(
      [planned('1', 'ask'), planned('2', 'execute'), planned('3', 'ask')],
      async (requests) => {
        asked.push(requests.map((r) => r.callId));
        return { kind: 'approve_all' };
      },
      { timeoutMs: 1000 },
    );
    expect(asked).toEqual([['1', '3']]);
    expect(kinds(out)).toEqual(['execute', 'execute', 'execute']);
  });

  it('T-APR-02: ApproveSelected runs only the selected calls', async () => {
    const out = await approveBatch(
      [planned('1', 'ask'), planned('2', 'ask'), planned('3', 'ask')],
      async () => ({
        kind: 'approve_selected',
        ids: ['2', 'not-asked'],
      }),
      { timeoutMs: 1000 },
    );
    expect(kinds(out)).toEqual(['resolved', 'execute', 'resolved']);
    const denied = out[0]?.disposition;
    expect(denied?.kind === 'resolved' && denied.result.error?.type).toBe('Denied');
  });

  it('DenyAll denies every asked call and leaves the others alone', async () => {
    const out = await approveBatch(
      [planned('1', 'ask'), planned('2', 'execute'), planned('3', 'resolved')],
      async () => ({
        kind: 'deny_all',
      }),
      { timeoutMs: 1000 },
    );
    expect(kinds(out)).toEqual(['resolved', 'execute', 'resolved']);
  });

  it('issue #31 §1: a denial starts with the config line that would allow it, then says why nobody approved and why it was asked', async () => {
    const [out] = await approveBatch(
      [planned('1', 'ask')],
      async () => ({ kind: 'deny_all', reason: 'nobody was asked: --approve none' }),
      { timeoutMs: 1000, allowHint: (r) => `add "${r.toolName}" to [tools.approval] allowlist in x.toml` },
    );
    const result = out?.disposition.kind === 'resolved' ? out.disposition.result : undefined;
    expect(result?.error).toEqual({
      type: 'Denied',
      message:
        'denied. To let it run without asking: add "t" to [tools.approval] allowlist in x.toml. Why: nobody was asked: --approve none; it needed approval because r (r). Do not retry it unchanged',
    });
    expect(result?.metadata).toEqual({
      denial: {
        kind: 'not_approved',
        reason: 'nobody was asked: --approve none',
        rule: 'r',
        allow: 'add "t" to [tools.approval] allowlist in x.toml',
      },
    });
  });

  it('issue #31 §1: where no config line can help (a deletion), that comes first', async () => {
    const [out] = await approveBatch(
      [planned('1', 'ask')],
      async () => ({ kind: 'deny_all', reason: 'no' }),
      {
        timeoutMs: 1000,
        allowHint: () => 'none: a deletion can only be approved when asked (at a terminal)',
      },
    );
    const result = out?.disposition.kind === 'resolved' ? out.disposition.result : undefined;
    expect(result?.error?.message).toBe(
      'denied. A deletion can only be approved when asked (at a terminal). Why: no; it needed approval because r (r). Do not retry it unchanged',
    );
  });

  it('no answer in time is a denial', async () => {
    const out = await approveBatch([planned('1', 'ask')], () => new Promise(() => {}), { timeoutMs: 20 });
    const d = out[0]?.disposition;
    expect(d?.kind === 'resolved' && d.result.error).toMatchObject({
      type: 'Denied',
      message: expect.stringMatching(/in time/),
    });
  });

  it('a failing or malformed approver is a denial (fail closed)', async () => {
    const thrown = await approveBatch(
      [planned('1', 'ask')],
      async () => {
        throw new Error('ui crashed');
      },
      { timeoutMs: 1000 },
    );
    expect(kinds(thrown)).toEqual(['resolved']);
    const weird = await approveBatch([planned('1', 'ask')], async () => ({ kind: 'maybe' }) as never, {
      timeoutMs: 1000,
    });
    expect(kinds(weird)).toEqual(['resolved']);
    const nothing = await approveBatch([planned('1', 'ask')], async () => undefined as never, {
      timeoutMs: 1000,
    });
    expect(kinds(nothing)).toEqual(['resolved']);
  });

  it('an aborted batch denies without waiting', async () => {
    const controller = new AbortController();
    const pending = approveBatch([planned('1', 'ask')], () => new Promise(() => {}), {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    controller.abort();
    expect(kinds(await pending)).toEqual(['resolved']);
  });

  it('does not call the approver when nothing needs approval', async () => {
    let called = false;
    await approveBatch(
      [planned('1', 'execute')],
      async () => {
        called = true;
        return { kind: 'approve_all' };
      },
      { timeoutMs: 1000 },
    );
    expect(called).toBe(false);
  });

  it('issue #30 §5: "always" is read as data: a scope, or a scope with a directory; anything else remembers nothing and the approval stands', async () => {
    const remembered: [string, unknown][] = [];
    const answers: unknown[] = [
      { kind: 'approve_all', remember: 'session' },
      { kind: 'approve_all', remember: { scope: 'project', directory: 'src' } },
      { kind: 'approve_all', remember: { scope: 'project' } },
      { kind: 'approve_all', remember: 'forever' },
      { kind: 'approve_all', remember: { scope: 'everyone', directory: 'src' } },
      { kind: 'approve_all', remember: { scope: 'session', directory: 7 } },
      { kind: 'approve_selected', ids: ['1'], remember: { 1: { scope: 'session', directory: 'lib' } } },
      { kind: 'approve_selected', ids: ['1'], remember: Object.create({ 1: 'project' }) },
    ];
    for (const [n, answer] of answers.entries()) {
      const out = await approveBatch([planned('1', 'ask')], async () => answer as never, {
        timeoutMs: 1000,
        remember: (_p, choice) => remembered.push([String(n), choice]),
      });
      expect(kinds(out)).toEqual(['execute']);
    }
    expect(remembered).toEqual([
      ['0', 'session'],
      ['1', { scope: 'project', directory: 'src' }],
      ['2', 'project'],
      ['6', { scope: 'session', directory: 'lib' }],
    ]);
  });
});
