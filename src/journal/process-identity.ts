import { readFileSync } from 'node:fs';
import os from 'node:os';

/** The start time of a process in clock ticks since boot (Linux), so a reused pid is not mistaken. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process, as the owner of the batches it journals: `host:pid:start`. */
export function thisProcess(): string {
  return `${os.hostname()}:${process.pid}:${startTime(process.pid) ?? ''}`;
}

/**
 * Whether the process that owns a batch is still running here: then the batch is not interrupted,
 * it is waiting (for a person at an approval prompt, or for its calls), and recovery must leave it
 * alone. A batch from another host, or of unknown owner, is not known to be alive.
 */
export function ownerAlive(owner: string | undefined): boolean {
  if (!owner) return false;
  const [host, pid, start] = owner.split(':');
  if (host !== os.hostname() || !pid) return false;
  const now = startTime(Number(pid));
  if (now === undefined) return false;
  return start === '' || start === now;
}

/**
 * Whether a worker id names a process of this host that is no longer running (`host:pid:…`): its
 * lease means nothing any more, even before it runs out. Another host's worker is never known gone.
 */
export function workerGone(worker: string | undefined): boolean {
  if (!worker) return false;
  const [host, pid, start] = worker.split(':');
  if (host !== os.hostname() || !pid || !/^\d+$/.test(pid)) return false;
  const now = startTime(Number(pid));
  if (now === undefined) return true;
  // A pid used again by another process: the worker that held it is gone.
  return start !== undefined && /^\d+$/.test(start) && start !== now;
}
