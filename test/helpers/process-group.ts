import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Processes of group `pgid` that still run (zombies waiting to be reaped no longer run). */
export function liveInGroup(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return live;
}

/** True once nothing of group `pgid` runs any more; false if something still does after `withinMs`. */
export async function groupGone(pgid: number, withinMs = 2_000): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += 10) {
    if (liveInGroup(pgid).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return liveInGroup(pgid).length === 0;
}

/** Running (not zombie) processes whose command line contains `marker`. */
export function liveWith(marker: string): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z') live.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return live;
}

/** True once no process carrying `marker` runs any more; false if one still does after `withinMs`. */
export async function markerGone(marker: string, withinMs = 2_000): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += 10) {
    if (liveWith(marker).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return liveWith(marker).length === 0;
}

/** Whether process `pid` still runs (a zombie waiting to be reaped does not). */
export function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
}

/** Polls a /proc fact with a generous deadline (a loaded machine is slow, never wrong). */
export async function waitFor(check: () => boolean, ms = 20_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
