import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { holderOf } from '../../src/journal/batch-holder.js';
import { describeProcess, liveness, thisProcess, workerId } from '../../src/journal/process-identity.js';
import { endedProcessId } from '../helpers/ended-process.js';
import { waitFor } from '../helpers/process-group.js';

const parents: number[] = [];
afterEach(() => {
  for (const pid of parents.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const fields = (pid: number) => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
};
const [host, , , boot, ns] = thisProcess().split(':') as [string, string, string, string, string];
const idOf = (pid: number, start: string) => [host, pid, start, boot, ns].join(':');

describe('issue #31 §3: who is alive, as recovery judges it (process-identity.ts)', () => {
  it('this process is alive; one that ended and was reaped is gone; a pid now another process is gone', () => {
    expect(liveness(thisProcess())).toBe('alive');
    expect(liveness(endedProcessId())).toBe('gone');
    const mine = fields(process.pid)[19] as string;
    expect(liveness(idOf(process.pid, String(Number(mine) + 1)))).toBe('gone'); // reused pid
    expect(liveness(`${host}:${process.pid}:${mine}`)).toBe('alive'); // the older form, no boot id
  });

  it("a `toolgate worker`'s lease name is judged like its process: alive while it runs, gone once it ended", () => {
    expect(liveness(workerId('abcd1234'))).toBe('alive');
    expect(liveness(`${endedProcessId()}:worker-abcd1234`)).toBe('gone');
  });

  it('a worker id from the journal is described on one visible line: a host name cannot forge lines of recover (hostile review F7)', () => {
    const text = describeProcess('evil\nbatch 0000 FORGED\u001b[31m:4242:1');
    expect(text).not.toMatch(/[\n\u001b]/);
    expect(text).toContain('pid 4242 on host evil');
  });

  it('an id without boot and PID namespace (an old journal, a library lease name, the old worker form) is never judged gone: its lease decides (hostile review F6)', () => {
    const [h, pid, start] = endedProcessId().split(':') as [string, string, string];
    expect(liveness(`${h}:${pid}:${start}`)).toBe('unknown');
    expect(liveness(`${h}:${pid}:worker-1a2b3c4d`)).toBe('unknown');
    expect(liveness(`${h}:${process.pid}:${fields(process.pid)[19]}`)).toBe('alive');
  });

  it('a process that ended but whose parent has not reaped it (a zombie) is gone: it can do nothing more', async () => {
    // The child ends when told (a byte on fd 3), after its parent has become `sleep`, which never
    // waits for it; a shell still running could reap it first.
    const parent = spawn('sh', ['-c', 'head -c1 <&3 >/dev/null & echo $!; exec sleep 600'], {
      stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
    });
    parents.push(parent.pid as number);
    const [line] = (await once(parent.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    const comm = () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim();
    expect(await waitFor(() => comm() === 'sleep', 30_000)).toBe(true);
    (parent.stdio[3] as NodeJS.WritableStream).end('x');
    expect(await waitFor(() => fields(pid)[0] === 'Z', 30_000)).toBe(true);
    const start = fields(pid)[19] as string;
    expect(liveness(idOf(pid, start))).toBe('gone');
    // Without boot and PID namespace it may be another container's of the same host name: only
    // its lease tells (hostile review F6).
    expect(liveness(`${host}:${pid}:${start}`)).toBe('unknown');
    expect(fields(pid)[0]).toBe('Z'); // still there, unreaped, while judged
  });

  it('what this machine cannot see is unknown, never gone: another host, another boot or PID namespace, a tag for a start time', () => {
    const start = fields(process.pid)[19] as string;
    expect(liveness(`elsewhere:${process.pid}:${start}:${boot}:${ns}`)).toBe('unknown');
    expect(liveness(`${host}:${process.pid}:${start}:00000000-0000-4000-8000-000000000000:${ns}`)).toBe(
      'unknown',
    );
    expect(liveness(`${host}:${process.pid}:${start}:${boot}:1`)).toBe('unknown');
    expect(liveness(`${host}:${process.pid}:worker-1a2b`)).toBe('unknown');
    expect(liveness('worker-a')).toBe('unknown');
    expect(liveness(undefined)).toBe('unknown');
    expect(describeProcess(thisProcess())).toBe(`pid ${process.pid} on this machine`);
    expect(describeProcess(`elsewhere:7:1:${boot}:${ns}`)).toBe('pid 7 on host elsewhere');
    expect(describeProcess(`${host}:7:1:${boot}:1`)).toBe(
      `pid 7 on host ${host} (another boot or container)`,
    );
    expect(describeProcess('worker-a')).toBe('worker worker-a');
  });

  it('a batch is free when its lease holder is gone, or its lease ran out and its own process is not running; a live process holds it', () => {
    const now = Date.now();
    const dead = endedProcessId();
    const live = thisProcess();
    const self = 'recovery-itself';
    const far = `elsewhere:7:1:${boot}:${ns}`;
    const at = (worker: string, expiresAt: number) => ({ lease: { worker, expiresAt } });
    expect(holderOf({ owner: dead, ...at(dead, now + 60_000) }, now, self)).toEqual({ kind: 'free' });
    expect(holderOf({ owner: far, ...at(far, now - 1) }, now, self)).toEqual({ kind: 'free' });
    expect(holderOf({ owner: dead }, now, self)).toEqual({ kind: 'free' });
    expect(holderOf({ owner: far, ...at(far, now + 60_000) }, now, self)).toEqual({
      kind: 'held',
      worker: far,
      until: now + 60_000,
    });
    // Alive and renewing: its own; alive with its lease run out (stalled) or lost: a worker may finish it.
    expect(holderOf({ owner: live, ...at(live, now + 60_000) }, now, self)).toEqual({
      kind: 'running',
      worker: live,
      pid: process.pid,
      until: now + 60_000,
      takeOver: false,
    });
    expect(holderOf({ owner: live, ...at(live, now - 1) }, now, self)).toMatchObject({
      kind: 'running',
      takeOver: true,
    });
    expect(holderOf({ owner: live, ...at(dead, now + 60_000) }, now, self)).toMatchObject({
      kind: 'running',
      takeOver: true,
    });
    // No lease (leases off): its live process has it, and nobody takes it over.
    expect(holderOf({ owner: live }, now, self)).toMatchObject({ kind: 'running', takeOver: false });
    expect(os.hostname()).toBe(host);
  });
});
