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

  it('Property 39 and Property 41: each response reaches exactly its requester, concurrently', async () => {
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

  it('Property 40: a request not answered within its timeout rejects with a timeout error; answered ones are unaffected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            timeoutMs: fc.integer({ min: 1, max: 15 }),
            answer: fc.constantFrom('none', 'yes', 'no'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 1, max: 15 }),
        async (requests, defaultTimeoutMs) => {
          const channel = new ConfirmationChannel({ timeoutMs: defaultTimeoutMs });
          const seen = new Map<string, string>(); // callId → correlation id
          channel.onRequest((p) => {
            seen.set(p.request.callId, p.correlationId);
            const answer = requests[Number(p.request.callId)]?.answer;
            if (answer !== 'none') channel.respond(p.correlationId, answer === 'yes');
          });
          const started = performance.now();
          const settled = await Promise.allSettled(
            requests.map((r, i) =>
              // Half use their own timeout, the rest the channel's default.
              channel.request(request(String(i)), i % 2 === 0 ? { timeoutMs: r.timeoutMs } : {}),
            ),
          );
          const elapsed = performance.now() - started;
          for (const [i, outcome] of settled.entries()) {
            const { answer, timeoutMs } = requests[i] as (typeof requests)[number];
            if (answer === 'none') {
              expect(outcome.status).toBe('rejected');
              const reason = (outcome as PromiseRejectedResult).reason;
              expect(reason).toBeInstanceOf(ConfirmationTimeoutError);
              expect(reason.correlationId).toBe(seen.get(String(i)));
              expect(elapsed).toBeGreaterThanOrEqual((i % 2 === 0 ? timeoutMs : defaultTimeoutMs) - 1);
            } else {
              expect(outcome).toEqual({ status: 'fulfilled', value: answer === 'yes' });
            }
          }
          expect(channel.pendingCount).toBe(0);
          // An answer after the timeout reaches no one.
          for (const [i, r] of requests.entries())
            if (r.answer === 'none') expect(channel.respond(seen.get(String(i)) as string, true)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 40 (example): no answer within the timeout rejects with a timeout error', async () => {
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

  it('Property 42: aborting a request, before or while it waits, rejects it with a cancellation error and only it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('answer', 'abort-before', 'abort-while-waiting', 'abort-after-answer'), {
          minLength: 1,
          maxLength: 10,
        }),
        async (fates) => {
          const channel = new ConfirmationChannel({ timeoutMs: 10_000 });
          const controllers = fates.map(() => new AbortController());
          const waiting: PendingConfirmation[] = [];
          channel.onRequest((p) => waiting.push(p));
          fates.forEach((fate, i) => {
            if (fate === 'abort-before') controllers[i]?.abort();
          });
          const results = fates.map((_, i) =>
            channel.request(request(String(i)), { signal: controllers[i]?.signal as AbortSignal }),
          );
          // Requests aborted beforehand are never shown to anyone.
          expect(waiting.map((p) => p.request.callId)).toEqual(
            fates.flatMap((f, i) => (f === 'abort-before' ? [] : [String(i)])),
          );
          for (const p of waiting) {
            const i = Number(p.request.callId);
            if (fates[i] === 'abort-while-waiting') controllers[i]?.abort();
            else {
              channel.respond(p.correlationId, i % 2 === 0);
              if (fates[i] === 'abort-after-answer') controllers[i]?.abort(); // too late to matter
            }
          }
          const settled = await Promise.allSettled(results);
          for (const [i, outcome] of settled.entries()) {
            if (fates[i] === 'abort-before' || fates[i] === 'abort-while-waiting') {
              expect(outcome.status).toBe('rejected');
              expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ConfirmationCancelledError);
            } else {
              expect(outcome).toEqual({ status: 'fulfilled', value: i % 2 === 0 });
            }
          }
          expect(channel.pendingCount).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 42 (example): aborting cancels the request with a cancellation error', async () => {
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
