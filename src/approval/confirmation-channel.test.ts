import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../core/confirmation.js';
import {
  ConfirmationCancelledError,
  ConfirmationChannel,
  ConfirmationTimeoutError,
  type PendingConfirmation,
} from './confirmation-channel.js';

const request = (callId: string): ConfirmationRequest => ({
  callId,
  toolName: 'write_file',
  summary: `Create ${callId}`,
  risk: 'medium',
  locations: [{ path: callId, access: 'write' }],
  reason: 'side effects',
  rule: 'tools.approval.prompt_side_effects',
});

describe('ConfirmationChannel', () => {
  it('Property 38: every request gets a unique correlation id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (n) => {
        const channel = new ConfirmationChannel();
        const seen: string[] = [];
        channel.onRequest((p) => {
          seen.push(p.correlationId);
          channel.respond(p.correlationId, true);
        });
        await Promise.all(Array.from({ length: n }, (_, i) => channel.request(request(String(i)))));
        expect(new Set(seen).size).toBe(n);
      }),
    );
  });

  it('Property 39 and 41: each response reaches exactly its requester, concurrently', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }), async (answers) => {
        const channel = new ConfirmationChannel();
        const pending: PendingConfirmation[] = [];
        channel.onRequest((p) => pending.push(p));
        const results = answers.map((_, i) => channel.request(request(String(i))));
        // Answer in reverse order: correlation, not order, decides who gets what.
        for (const p of [...pending].reverse())
          channel.respond(p.correlationId, answers[Number(p.request.callId)] as boolean);
        expect(await Promise.all(results)).toEqual(answers);
        expect(channel.pendingCount).toBe(0);
      }),
    );
  });

  it('Property 40: no answer within the timeout rejects with a timeout error', async () => {
    const channel = new ConfirmationChannel({ timeoutMs: 20 });
    await expect(channel.request(request('a'))).rejects.toBeInstanceOf(ConfirmationTimeoutError);
    expect(channel.pendingCount).toBe(0);
  });

  it('a late answer after the timeout is ignored', async () => {
    const channel = new ConfirmationChannel({ timeoutMs: 10 });
    let id = '';
    channel.onRequest((p) => {
      id = p.correlationId;
    });
    await expect(channel.request(request('a'))).rejects.toBeInstanceOf(ConfirmationTimeoutError);
    expect(channel.respond(id, true)).toBe(false);
  });

  it('Property 42: aborting cancels the request with a cancellation error', async () => {
    const channel = new ConfirmationChannel();
    const controller = new AbortController();
    const pending = channel.request(request('a'), { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ConfirmationCancelledError);
    expect(channel.pendingCount).toBe(0);
    const already = new AbortController();
    already.abort();
    await expect(channel.request(request('b'), { signal: already.signal })).rejects.toBeInstanceOf(
      ConfirmationCancelledError,
    );
  });

  it('the channel approver turns timeouts into denials, never approvals', async () => {
    const channel = new ConfirmationChannel({ timeoutMs: 20 });
    channel.onRequest((p) => {
      if (p.request.callId === 'yes') channel.respond(p.correlationId, true);
    });
    const decision = await channel.approver()(
      [request('yes'), request('silent')],
      new AbortController().signal,
    );
    expect(decision).toEqual({ kind: 'approve_selected', ids: ['yes'] });
  });
});
