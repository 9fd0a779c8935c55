import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/core/tool-result.js';
import type { Journal } from '../../src/journal/journal.js';
import { thisProcess } from '../../src/journal/process-identity.js';
import { endedProcessId } from '../helpers/ended-process.js';

const ok = (id: string, name = 't'): ToolResult => ({
  id,
  name,
  ok: true,
  content: `done ${id}`,
  error: null,
  latencyMs: 1,
});
const calls = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    name: i % 2 ? 'write_file' : 'read_file',
    arguments: { path: `f${i}` },
  }));

/**
 * The behaviour every Journal implementation must have (SQLite now, PostgreSQL later): run it with
 * a factory that makes a fresh journal, and `reopen` to prove durability across a new connection.
 */
export function journalConformance(
  name: string,
  make: () => { journal: Journal; reopen: () => Journal },
): void {
  describe(`Journal conformance: ${name}`, () => {
    it('retention: prune removes complete batches older than the cut with their calls; open and awaiting batches stay; export gives every call since a time', () => {
      const { journal } = make();
      const done = journal.beginBatch('S', calls(2));
      journal.markRunning(done, 0);
      journal.recordResult(done, 0, ok('c0'));
      journal.markRunning(done, 1);
      journal.recordResult(done, 1, ok('c1'));
      journal.finishBatch(done);
      const open = journal.beginBatch('S', calls(1));
      const exported = [...journal.exportCalls(0)];
      expect(exported.map((c) => [c.batch, c.index, c.tool])).toEqual([
        [done, 0, 'read_file'],
        [done, 1, 'write_file'],
        [open, 0, 'read_file'],
      ]);
      expect(exported[0]).toMatchObject({
        session: 'S',
        arguments: { path: 'f0' },
        result: { ok: true, content: 'done c0' },
      });
      expect([...journal.exportCalls(Date.now() + 60_000)]).toEqual([]);
      expect(journal.prune(0)).toMatchObject({ batches: 0, calls: 0 }); // nothing is that old
      const pruned = journal.prune(Date.now() + 60_000);
      expect(pruned).toMatchObject({ batches: 1, calls: 2 });
      expect(journal.batch(done)).toBeUndefined();
      expect(journal.batch(open)?.calls).toHaveLength(1); // an open batch is never pruned
    });

    it('leases (issue #17 §2): the holder renews and starts calls; once it expires another worker claims the batch, and the first can start nothing more', async () => {
      const { journal, reopen } = make();
      // Long leases while the steps run (a loaded machine may take seconds between them); a's
      // lease runs out by its own last renewal (1 ms), below.
      const a = { worker: 'worker-a', ttlMs: 60_000 };
      const b = { worker: 'worker-b', ttlMs: 60_000 };
      const other = reopen();
      const id = journal.beginBatch('S', calls(3), { lease: a });
      expect(journal.batch(id)?.lease?.worker).toBe('worker-a');
      expect(journal.renewLease(id, a)).toBe(true);
      expect(other.renewLease(id, b)).toBe(false); // not b's to renew
      expect(other.claimExpiredBatch(b)).toBeUndefined(); // still held
      journal.markRunning(id, 0, a);
      journal.recordResult(id, 0, ok('c0'));
      expect(journal.renewLease(id, { worker: 'worker-a', ttlMs: 1 })).toBe(true);
      await new Promise((r) => setTimeout(r, 20)); // a stops renewing: its lease runs out
      const taken = other.claimExpiredBatch(b);
      expect(taken?.id).toBe(id);
      expect(taken?.lease?.worker).toBe('worker-b');
      expect(taken?.calls.map((c) => c.status)).toEqual(['done', 'planned', 'planned']);
      expect(journal.claimExpiredBatch(a)).toBeUndefined(); // claimed once
      expect(() => journal.markRunning(id, 1, a)).toThrow(/no longer holds the lease/);
      expect(journal.renewLease(id, a)).toBe(false);
      expect(journal.batch(id)?.calls[1]?.status).toBe('planned'); // a started nothing
      other.markRunning(id, 1, b);
      other.recordResult(id, 1, ok('c1'));
      other.markRunning(id, 2, b);
      other.recordResult(id, 2, ok('c2'));
      journal.finishBatch(id, a); // not a's to finish any more: nothing happens
      expect(journal.batch(id)?.status).toBe('open');
      other.finishBatch(id, b);
      expect(journal.batch(id)?.status).toBe('complete');
      expect(journal.batch(id)?.lease).toBeUndefined();
      expect(other.claimExpiredBatch(b)).toBeUndefined();
    });

    it('the last result completes its batch in the same commit, as finishBatch would: not a batch another worker took over', () => {
      const { journal, reopen } = make();
      const a = { worker: 'worker-a', ttlMs: 60_000 };
      const id = journal.beginBatch('S', calls(2), { lease: a });
      journal.markRunning(id, 0, a);
      journal.recordResult(id, 0, ok('c0'));
      expect(journal.batch(id)?.status).toBe('open');
      journal.markRunning(id, 1, a);
      journal.recordResult(id, 1, ok('c1'), 'done', { lease: a });
      const after = reopen().batch(id);
      expect(after?.status).toBe('complete');
      expect(after?.lease).toBeUndefined();
      expect(after?.calls.map((c) => [c.status, c.result?.content])).toEqual([
        ['done', 'done c0'],
        ['done', 'done c1'],
      ]);
      // Held by another worker now: the result is kept, the batch is not completed from here.
      // The lease runs out by b's own last renewal (1 ms), not by a race between a short lease and
      // the steps before it (a loaded machine took longer than 300 ms between them).
      const b = { worker: 'worker-b', ttlMs: 60_000 };
      const mine = journal.beginBatch('S', calls(1), { lease: b });
      const other = reopen();
      const c = { worker: 'worker-c', ttlMs: 60_000 };
      journal.markRunning(mine, 0, b);
      expect(journal.renewLease(mine, { worker: 'worker-b', ttlMs: 1 })).toBe(true);
      return new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => {
        expect(other.claimExpiredBatch(c, mine)?.lease?.worker).toBe('worker-c');
        journal.recordResult(mine, 0, ok('late'), 'done', { lease: b });
        const taken = reopen().batch(mine);
        expect(taken?.status).toBe('open');
        expect(taken?.lease?.worker).toBe('worker-c');
        expect(taken?.calls[0]?.result?.content).toBe('done late');
      });
    });

    it('a call marked running that did not start after all goes back to unstarted: recovery settles it as never run', () => {
      const { journal, reopen } = make();
      const id = journal.beginBatch('S', calls(2), {});
      journal.markRunning(id, 0);
      journal.markNotStarted?.(id, 0);
      expect(
        reopen()
          .batch(id)
          ?.calls.map((c) => c.status),
      ).toEqual(['planned', 'planned']);
      journal.resumeBatch(id);
      expect(
        reopen()
          .batch(id)
          ?.calls.map((c) => c.status),
      ).toEqual(['not_run', 'not_run']);
      // Only a call still running: one with a result keeps it.
      const done = journal.beginBatch('S', calls(1), {});
      journal.markRunning(done, 0);
      journal.recordResult(done, 0, ok('c0'));
      journal.markNotStarted?.(done, 0);
      expect(reopen().batch(done)?.calls[0]?.status).toBe('done');
    });

    it('a batch still streaming is held by its worker: nobody else claims, settles or begins it; a settled call cannot be started', () => {
      const { journal, reopen } = make();
      const other = reopen();
      const a = { worker: 'streamer', ttlMs: 60_000 };
      journal.recordStreamedCall('S', 'streaming-1', 0, { id: 'c0', name: 'write_file', arguments: {} }, a);
      expect(other.claimExpiredBatch({ worker: 'thief', ttlMs: 1000 }, 'streaming-1')).toBeUndefined();
      expect(() => other.resumeBatch('streaming-1', 'thief')).toThrow(
        /held by worker streamer|another worker holds it/,
      );
      expect(() =>
        other.beginBatch('S', calls(1), { batchId: 'streaming-1', lease: { worker: 'thief', ttlMs: 1000 } }),
      ).toThrow(/settled or taken over by another process/);
      // Its own worker goes on; once settled (here by that worker), no call of it starts.
      journal.beginBatch('S', [{ id: 'c0', name: 'write_file', arguments: {} }], {
        batchId: 'streaming-1',
        lease: a,
      });
      journal.resumeBatch('streaming-1', 'streamer');
      expect(() => journal.markRunning('streaming-1', 0, a)).toThrow(/no longer holds the lease/);
      expect(() => journal.markRunning('streaming-1', 0)).toThrow(/not waiting to start/);
    });

    it('a batch begun without a lease is never claimed as expired; one batch is claimed by id only when free, expired or already ours', () => {
      const { journal } = make();
      const bare = journal.beginBatch('S', calls(1));
      const w = { worker: 'w', ttlMs: 60_000 };
      expect(journal.claimExpiredBatch(w)).toBeUndefined();
      expect(journal.claimExpiredBatch(w, bare)?.lease?.worker).toBe('w'); // named: taken
      expect(journal.claimExpiredBatch(w, bare)?.id).toBe(bare); // already ours
      expect(journal.claimExpiredBatch({ worker: 'v', ttlMs: 1000 }, bare)).toBeUndefined(); // w holds it
      journal.finishBatch(bare, w);
      expect(journal.claimExpiredBatch(w, bare)).toBeUndefined(); // complete
    });

    it("issue #31 §3: a lease whose worker is known to have ended on this machine holds nothing: claimed at once, by id or by a worker looking, and settled; a live worker's and another host's hold until they run out", () => {
      const { journal, reopen } = make();
      const hour = 3_600_000;
      const dead = { worker: endedProcessId(), ttlMs: hour };
      const live = { worker: thisProcess(), ttlMs: hour }; // this test's own process
      const far = { worker: 'build-box-7:4242:123:0b1c2d3e-0000-4000-8000-000000000000:1', ttlMs: hour };
      const taker = { worker: 'taker', ttlMs: 60_000 };
      const byDead = journal.beginBatch('S', calls(1), { lease: dead });
      const byDeadToo = journal.beginBatch('S', calls(1), { lease: dead });
      const settled = journal.beginBatch('S', calls(1), { lease: dead });
      const byLive = journal.beginBatch('S', calls(1), { lease: live });
      const byFar = journal.beginBatch('S', calls(1), { lease: far });
      const other = reopen();
      expect(other.claimExpiredBatch(taker, byLive)).toBeUndefined();
      expect(other.claimExpiredBatch(taker, byFar)).toBeUndefined();
      expect(() => other.resumeBatch(byLive)).toThrow(/held by worker/);
      expect(() => other.discardBatch(byFar)).toThrow(/held by worker/);
      expect(other.claimExpiredBatch(taker, byDead)?.lease?.worker).toBe('taker');
      expect(other.claimExpiredBatch(taker)?.id).toBe(byDeadToo);
      expect(other.claimExpiredBatch(taker, settled)?.id).toBe(settled);
      expect(other.claimExpiredBatch({ worker: 'another', ttlMs: 1000 })).toBeUndefined(); // the rest is held
      const lateSettle = journal.beginBatch('S', calls(1), { lease: dead });
      expect(other.resumeBatch(lateSettle).map((r) => r.ok)).toEqual([false]);
      expect(other.batch(lateSettle)?.status).toBe('resumed');
    });

    it('approvals from anywhere (issue #17 §3): a waiting call is listed with its preview; the first answer from any connection wins; answers are kept with who and which preview', async () => {
      const { journal, reopen } = make();
      const other = reopen();
      const request = {
        callId: 'c1',
        toolName: 'write_file',
        summary: 'Create f1',
        risk: 'medium' as const,
        locations: [{ path: 'f1', access: 'write' as const }],
        reason: 'side effects',
        rule: 'tools.approval',
      };
      const id = journal.beginBatch('S', calls(2), { plan: [{ index: 1, approval: request }] });
      const [pending] = other.pendingApprovals();
      expect(pending).toMatchObject({ batchId: id, index: 1, session: 'S', request });
      const answer = {
        batchId: id,
        index: 1,
        approved: true,
        scope: 'session' as const,
        preview: 'h1',
        by: 'ana@host',
      };
      expect(other.answerApproval({ ...answer, index: 0 })).toBe(false); // call 0 is not waiting
      const waiting = journal.approvalsChanged(new AbortController().signal, 300);
      expect(other.answerApproval(answer)).toBe(true);
      await waiting;
      expect(journal.answerApproval({ ...answer, approved: false, by: 'bob@host' })).toBe(false); // first wins
      expect(journal.pendingApprovals()).toEqual([]);
      expect(journal.approvalAnswers(id)).toEqual([
        {
          batchId: id,
          index: 1,
          approved: true,
          scope: 'session',
          preview: 'h1',
          by: 'ana@host',
          at: expect.any(Number),
        },
      ]);
      const aborted = new AbortController();
      aborted.abort();
      await journal.approvalsChanged(aborted.signal, 60_000); // at once
    });

    it('refusals are counted by time, for every connection; entries older than a day go', () => {
      const { journal, reopen } = make();
      const now = Date.now();
      expect(journal.refusalsSince(0)).toBe(0);
      journal.noteRefusals([now - 2 * 24 * 60 * 60 * 1000]); // forgotten at once
      journal.noteRefusals([now - 5000, now - 10, now]);
      expect(journal.refusalsSince(now - 60_000)).toBe(3);
      expect(reopen().refusalsSince(now - 1000)).toBe(2);
      expect(journal.refusalsSince(0)).toBe(3);
    });

    it('governance modes: none until set; the last one set is in force, for another connection too; history newest first', () => {
      const { journal, reopen } = make();
      expect(journal.governanceMode()).toBeUndefined();
      journal.recordMode('ALERT', 'odd calls', 'ops:a');
      const second = journal.recordMode('LOCKDOWN', 'probing', 'ops:b');
      expect(second).toMatchObject({ mode: 'LOCKDOWN', reason: 'probing', actor: 'ops:b' });
      expect(journal.governanceMode()).toMatchObject({ mode: 'LOCKDOWN' });
      const other = reopen();
      expect(other.governanceMode()).toMatchObject({ mode: 'LOCKDOWN', actor: 'ops:b' });
      other.recordMode('NORMAL', 'cleared', 'ops:a');
      expect(journal.governanceMode()).toMatchObject({ mode: 'NORMAL' }); // seen through the first connection
      expect(journal.modeHistory(2).map((m) => m.mode)).toEqual(['NORMAL', 'LOCKDOWN']);
    });

    it('FR-RES-01/01a: a batch keeps its calls in call order, with the assistant message', () => {
      const { journal } = make();
      const id = journal.beginBatch('s', calls(3), { assistantText: 'let me look' });
      const batch = journal.batch(id);
      expect(batch?.calls.map((c) => [c.index, c.id, c.status])).toEqual([
        [0, 'c0', 'planned'],
        [1, 'c1', 'planned'],
        [2, 'c2', 'planned'],
      ]);
      expect(batch?.assistantText).toBe('let me look');
      const [message] = journal.messages('s');
      expect(message?.role).toBe('assistant');
      const content = message?.content as { toolUses: { id: string }[] };
      expect(content.toolUses.map((u) => u.id)).toEqual(['c0', 'c1', 'c2']);
    });

    it('records decisions and approvals with the batch, then running, then one result per call', () => {
      const { journal, reopen } = make();
      const id = journal.beginBatch('s', calls(2), {
        plan: [
          {
            index: 0,
            decision: { action: 'allow', reason: 'read-only', rule: 'r0', file: 'f', risk: 'low' },
          },
          {
            index: 1,
            decision: { action: 'ask', reason: 'side effects', rule: 'r1', file: 'f', risk: 'medium' },
            approval: {
              callId: 'c1',
              toolName: 'write_file',
              summary: 'Create f1',
              risk: 'medium',
              locations: [],
              reason: 'x',
              rule: 'r1',
            },
          },
        ],
      });
      expect(journal.batch(id)?.status).toBe('awaiting_approval');
      expect(journal.batch(id)?.calls[1]?.status).toBe('awaiting_approval');
      journal.markApproved(id, [1]);
      journal.markRunning(id, 0);
      expect(reopen().batch(id)?.calls[0]?.status).toBe('running');
      journal.recordResult(id, 0, ok('c0'));
      journal.markRunning(id, 1);
      journal.recordResult(id, 1, ok('c1'));
      journal.finishBatch(id);
      const again = reopen().batch(id);
      expect(again?.status).toBe('complete');
      expect(again?.calls.map((c) => c.status)).toEqual(['done', 'done']);
      expect(again?.calls[0]?.decision).toEqual({
        action: 'allow',
        rule: 'r0',
        file: 'f',
        reason: 'read-only',
      });
      expect(again?.calls[1]?.result?.content).toBe('done c1');
      expect(
        journal
          .messages('s')
          .filter((m) => m.role === 'tool')
          .map((m) => m.callId),
      ).toEqual(['c0', 'c1']);
    });

    it('FR-RES-04c: recovery never re-runs — running becomes unknown, unstarted "not executed", results kept', () => {
      const { journal, reopen } = make();
      const id = journal.beginBatch('s', calls(3));
      journal.markRunning(id, 0);
      journal.recordResult(id, 0, ok('c0'));
      journal.markRunning(id, 1);
      const after = reopen();
      expect(after.incompleteBatches().map((b) => b.id)).toEqual([id]);
      const results = after.resumeBatch(id);
      expect(results.map((r) => [r.id, r.ok, r.error?.message.split(' (')[0]])).toEqual([
        ['c0', true, undefined],
        ['c1', false, 'outcome unknown: interrupted'],
        ['c2', false, 'not executed: toolgate stopped before this call started'],
      ]);
      expect(after.batch(id)?.calls.map((c) => c.status)).toEqual(['done', 'unknown', 'not_run']);
      expect(after.incompleteBatches()).toEqual([]);
      expect(() => after.resumeBatch(id)).toThrow(/already resumed/);
    });

    it('FR-RES-05: discard keeps the calls visible and marks every result failed', () => {
      const { journal } = make();
      const id = journal.beginBatch('s', calls(2));
      journal.markRunning(id, 0);
      journal.recordResult(id, 0, ok('c0'));
      const results = journal.discardBatch(id);
      expect(results.every((r) => !r.ok)).toBe(true);
      const batch = journal.batch(id);
      expect(batch?.status).toBe('discarded');
      expect(batch?.calls.map((c) => c.id)).toEqual(['c0', 'c1']);
      expect(batch?.calls.every((c) => c.result?.ok === false)).toBe(true);
      // The one that ran is done (its result discarded); the one that never started did not run.
      expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'not_run']);
    });

    it('finds batches by the start of their id (ids are shown shortened)', () => {
      const { journal } = make();
      const a = journal.beginBatch('s', calls(1), { batchId: 'abc-1' });
      const b = journal.beginBatch('s', calls(1), { batchId: 'abd-2' });
      journal.beginBatch('s', calls(1), { batchId: 'a%_-3' });
      expect(journal.batchIdsStartingWith('abc', 5)).toEqual([a]);
      expect(journal.batchIdsStartingWith('ab', 5).sort()).toEqual([a, b]);
      expect(journal.batchIdsStartingWith('a%', 5)).toEqual(['a%_-3']); // no LIKE wildcards
      expect(journal.batchIdsStartingWith('ab', 1)).toHaveLength(1);
      expect(journal.batchIdsStartingWith('', 5)).toEqual([]);
      expect(journal.batchIdsStartingWith('zzz', 5)).toEqual([]);
    });

    it('persists the read cache per session, with the next commit (the result of the call that read)', () => {
      const { journal, reopen } = make();
      journal.putReadRecord('a', '/x', { sha256: 'h1', readAt: 5 });
      journal.putReadRecord('b', '/x', { sha256: 'h2', readAt: 6 });
      journal.putReadRecord('a', '/x', { sha256: 'h3', readAt: 7 });
      expect(journal.getReadRecord('a', '/x')).toEqual({ sha256: 'h3', readAt: 7 }); // seen at once
      journal.appendMessage('a', 'user', { text: 'next commit' });
      const again = reopen();
      expect(again.getReadRecord('a', '/x')).toEqual({ sha256: 'h3', readAt: 7 });
      expect(again.getReadRecord('b', '/x')).toEqual({ sha256: 'h2', readAt: 6 });
      again.deleteReadRecord('a', '/x');
      expect(again.getReadRecord('a', '/x')).toBeUndefined();
    });

    it('grants: session ones for their session, project ones for all; one added by another connection is seen at once', () => {
      const { journal, reopen } = make();
      const file = { kind: 'paths' as const, paths: ['/w/a.txt'], shown: ['a.txt'] };
      journal.addGrant({ tool: 'write_file', covers: file, scope: 'session', session: 's1', createdAt: 1 });
      expect(journal.listGrants('s1').map((g) => g.tool)).toEqual(['write_file']);
      expect(journal.listGrants('s2')).toEqual([]);
      const other = reopen();
      const gitStatus = { kind: 'command' as const, prefix: ['git', 'status'] };
      other.addGrant({ tool: 'run_command', covers: gitStatus, scope: 'project', createdAt: 2 });
      expect(journal.listGrants('s2')).toEqual([
        { id: expect.any(Number), tool: 'run_command', covers: gitStatus, scope: 'project', createdAt: 2 },
      ]);
      expect(journal.listGrants('s1').map((g) => g.tool)).toEqual(['write_file', 'run_command']);
      journal.addGrant({ tool: 'edit_file', covers: file, scope: 'project', createdAt: 3 });
      expect(other.listGrants('s9').map((g) => g.tool)).toEqual(['run_command', 'edit_file']);
    });

    it('a read record made just before close is kept', () => {
      const { journal, reopen } = make();
      journal.putReadRecord('c', '/y', { sha256: 'h9', readAt: 9 });
      journal.close();
      expect(reopen().getReadRecord('c', '/y')).toEqual({ sha256: 'h9', readAt: 9 });
    });

    it('counts started calls per tool for rate limits, and lists recent batches newest first', () => {
      const { journal } = make();
      const first = journal.beginBatch('s', calls(2));
      journal.markRunning(first, 0);
      journal.markRunning(first, 1);
      const second = journal.beginBatch('s', calls(1));
      journal.markRunning(second, 0);
      expect(journal.countCallsSince('read_file', 0)).toBe(2);
      expect(journal.countCallsSince('write_file', 0)).toBe(1);
      expect(journal.countCallsSince('read_file', Date.now() + 1000)).toBe(0);
      expect(journal.recentBatches(10).map((b) => b.id)).toEqual([second, first]);
    });

    it('keeps messages in order per session', () => {
      const { journal } = make();
      journal.appendMessage('m', 'user', 'hello');
      const id = journal.beginBatch('m', calls(1));
      journal.recordResult(id, 0, ok('c0'));
      journal.appendMessage('m', 'assistant', 'done');
      expect(journal.messages('m').map((m) => [m.seq, m.role])).toEqual([
        [1, 'user'],
        [2, 'assistant'],
        [3, 'tool'],
        [4, 'assistant'],
      ]);
    });
  });
}

export function streamingConformance(
  name: string,
  make: () => { journal: Journal; reopen: () => Journal },
): void {
  describe(`Journal conformance (streaming): ${name}`, () => {
    it('FR-RES-04a: calls journaled while streaming survive a crash before the batch completes', () => {
      const { journal, reopen } = make();
      journal.recordStreamedCall('s', 'b1', 0, { id: 'c0', name: 'read_file', arguments: '{"path":"a"' });
      journal.recordStreamedCall('s', 'b1', 1, { id: 'c1', name: 'write_file', arguments: {} });
      const after = reopen();
      const [pending] = after.incompleteBatches();
      expect(pending?.id).toBe('b1');
      expect(pending?.calls.map((c) => [c.id, c.status])).toEqual([
        ['c0', 'planned'],
        ['c1', 'planned'],
      ]);
      expect(after.resumeBatch('b1').map((r) => r.error?.message)).toEqual([
        'not executed: toolgate stopped before this call started (it never ran)',
        'not executed: toolgate stopped before this call started (it never ran)',
      ]);
    });

    it('the batch then begins under the same id, keeping the streamed calls', () => {
      const { journal } = make();
      journal.recordStreamedCall('s', 'b2', 0, { id: 'c0', name: 't', arguments: {} });
      journal.beginBatch(
        's',
        [
          { id: 'c0', name: 't', arguments: {} },
          { id: 'c1', name: 't', arguments: {} },
        ],
        {
          batchId: 'b2',
          assistantText: 'two calls',
        },
      );
      const batch = journal.batch('b2');
      expect(batch?.calls.map((c) => c.id)).toEqual(['c0', 'c1']);
      expect(batch?.assistantText).toBe('two calls');
    });
  });
}
