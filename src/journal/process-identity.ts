import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import { showExact } from '../output/show-exact.js';

/**
 * Who journals a batch or holds its lease: `host:pid:start:boot:pidns` (older journals hold
 * `host:pid:start`). The start time tells a reused pid apart; the boot id and PID namespace say
 * whether this machine's /proc can speak for that pid at all (another container with the same
 * host name, or the same machine before a reboot, cannot be judged from here).
 */
export interface ProcessId {
  host: string;
  pid: number;
  /** Clock ticks since boot, '' when it could not be read, or a tag (`worker-…`) that is not one. */
  start: string;
  boot?: string;
  ns?: string;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** This kernel's boot (a new one at every boot), if the platform says. */
const BOOT_ID = read('/proc/sys/kernel/random/boot_id')?.trim() || undefined;

/** This process's PID namespace (the inode of /proc/self/ns/pid), if the platform says. */
export const PID_NAMESPACE = (() => {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
})();

/** Fields of /proc/PID/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | string): string[] | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The start time of a process in clock ticks since boot (Linux), so a reused pid is not mistaken. */
export function startTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** This process, as the owner of the batches it journals. */
export function thisProcess(): string {
  return [os.hostname(), process.pid, startTime(process.pid) ?? '', BOOT_ID ?? '', PID_NAMESPACE ?? ''].join(
    ':',
  );
}

/**
 * A worker's lease name: this process's full id, then a random tag, so recovery judges the worker
 * alive or gone from this machine instead of waiting for its lease to run out.
 */
export function workerId(tag: string): string {
  return `${thisProcess()}:worker-${tag}`;
}

export function parseProcessId(id: string | undefined): ProcessId | undefined {
  if (!id) return undefined;
  const [host, pid, start = '', boot, ns] = id.split(':');
  if (!host || !pid || !/^\d+$/.test(pid)) return undefined;
  return { host, pid: Number(pid), start, ...(boot ? { boot } : {}), ...(ns ? { ns } : {}) };
}

/**
 * What this machine knows of a process named by its id:
 * - `alive`: it still runs here (the same start time, or none recorded);
 * - `gone`: it ran here and has ended: no such pid, a zombie its parent has not reaped yet (it can
 *   do nothing more: a SIGKILLed toolgate is one until its parent waits for it), or the pid is
 *   another process's now;
 * - `unknown`: another host, another PID namespace or boot, or an id that is no process's:
 *   only its lease running out tells.
 */
export type Liveness = 'alive' | 'gone' | 'unknown';

export function liveness(id: string | undefined, namespaceChecked = false): Liveness {
  const p = parseProcessId(id);
  if (!p || p.host !== os.hostname()) return 'unknown';
  // Same host name, other kernel or namespace: a container, another machine, or before a reboot.
  if (p.boot !== undefined && p.boot !== BOOT_ID) return 'unknown';
  if (p.ns !== undefined && p.ns !== PID_NAMESPACE) return 'unknown';
  const judged = judgeHere(p);
  // An id without its boot and PID namespace (written before they were recorded, a library's own
  // lease name, or where /proc cannot tell them) may be another container's of the same host name:
  // it is never judged gone from here, only by its lease running out (hostile review of #31, F6).
  // `namespaceChecked`: the caller knows it from elsewhere (a staging file's name records it).
  if (judged === 'gone' && !namespaceChecked && (p.boot === undefined || p.ns === undefined))
    return 'unknown';
  return judged;
}

function judgeHere(p: ProcessId): Liveness {
  const fields = statFields(p.pid);
  if (fields === undefined) return noProc(p.pid);
  const [state] = fields;
  if ((state === 'Z' || state === 'X') && !otherThreadRuns(p.pid)) return 'gone';
  if (p.start === '') return 'alive';
  if (!/^\d+$/.test(p.start)) return 'unknown'; // a tag, not a start time: the pid may be reused
  return p.start === fields[19] ? 'alive' : 'gone';
}

/**
 * No /proc entry: no such process, unless /proc cannot show it (not Linux, `hidepid`). Signal 0
 * tells: ESRCH is no process; one that exists but cannot be looked at is not known either way.
 */
function noProc(pid: number): Liveness {
  try {
    process.kill(pid, 0);
    return 'unknown';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? 'gone' : 'unknown';
  }
}

/**
 * A zombie leader whose other threads still run is a live process (its main thread ended alone);
 * a killed process's threads leave as it dies, so once none is left it is gone.
 */
function otherThreadRuns(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tasks.some((tid) => {
    if (tid === String(pid)) return false;
    const state = statFields(`${pid}/task/${tid}`)?.[0];
    return state !== undefined && state !== 'Z' && state !== 'X';
  });
}

/** Whether the process that owns a batch still runs here: its batch is waiting, not interrupted. */
export function ownerAlive(owner: string | undefined): boolean {
  return liveness(owner) === 'alive';
}

/**
 * Whether a worker id names a process of this host that has ended: its lease means nothing any
 * more, even before it runs out. Another host's worker is never known gone.
 */
export function workerGone(worker: string | undefined, namespaceChecked = false): boolean {
  return liveness(worker, namespaceChecked) === 'gone';
}

/** A process id as a person reads it: `pid 123 on host h`, or the id itself when it is no process's. */
export function describeProcess(id: string): string {
  const p = parseProcessId(id);
  // Ids come from the journal, which another writer may share: one visible line, never a second.
  if (!p) return `worker ${showExact(id, { oneLine: true })}`;
  const host = showExact(p.host, { oneLine: true });
  if (p.host !== os.hostname()) return `pid ${p.pid} on host ${host}`;
  const here = (p.boot === undefined || p.boot === BOOT_ID) && (p.ns === undefined || p.ns === PID_NAMESPACE);
  return `pid ${p.pid} on ${here ? 'this machine' : `host ${host} (another boot or container)`}`;
}
