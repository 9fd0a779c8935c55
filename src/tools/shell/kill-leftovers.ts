import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** What identifies a session shell's leftovers (Linux /proc; elsewhere nothing is found). */
export interface ShellIdentity {
  /** The shell's process group (its guard's pid). */
  pgid: number;
  /** Never killed: the guard and the shell reading commands. */
  keep: ReadonlySet<number>;
  /** The shell's stdin, stdout and stderr as /proc shows them (`socket:[123]`). */
  links: ReadonlySet<string>;
  /** The shell's start time (clock ticks since boot): a leftover cannot be older. */
  since: number;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses). */
export function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** What the process's descriptors 0, 1 and 2 are (`socket:[…]`, `pipe:[…]`), as /proc shows them. */
export function stdioLinks(pid: number): Set<string> {
  const links = new Set<string>();
  for (const fd of [0, 1, 2]) {
    try {
      links.add(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // no /proc, or the descriptor is closed
    }
  }
  return links;
}

function holds(pid: string, links: ReadonlySet<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (links.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

function scan(shell: ShellIdentity, skip: ReadonlySet<number>): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(name);
    if (pid === process.pid || shell.keep.has(pid) || skip.has(pid)) continue;
    const fields = statFields(name);
    if (!fields) continue;
    // In the shell's group or its session (a program that moved to a group of its own, as
    // `timeout` does); or, having left both (setsid), still holding the shell's own pipes.
    if (Number(fields[2]) === shell.pgid || Number(fields[3]) === shell.pgid) found.push(pid);
    else if (shell.links.size > 0 && Number(fields[19]) >= shell.since && holds(name, shell.links))
      found.push(pid);
  }
  return found;
}

/**
 * Kills what a command left behind in a session shell: every process of the shell's group and
 * session (the guard leads both: it was started with setsid), and
 * every process (however it detached) holding the shell's stdin, stdout or stderr, which could
 * read the next command sent to the shell or write into its output. Race-free: each round stops
 * (SIGSTOP) what it finds, so nothing forks while the next round looks again; when a round finds
 * nothing new, everything stopped is killed. Returns the pids killed (see `untilDead`).
 */
export function killLeftovers(shell: ShellIdentity): number[] {
  const stopped = new Set<number>();
  for (let round = 0; round < 100; round++) {
    const found = scan(shell, stopped);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        // already gone
      }
      stopped.add(pid);
    }
  }
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return [...stopped];
}

/** Whether the process can no longer run: gone, or dead and not yet reaped. */
function dead(pid: number): boolean {
  const state = statFields(String(pid))?.[0];
  return state === undefined || state === 'Z' || state === 'X';
}

/**
 * Resolves once every process is dead, or after `limitMs`. A signal is delivered asynchronously: a
 * leftover preempted inside a write on a loaded machine finishes that write when it runs again,
 * which could be after the shell already printed the next command's begin marker (its output
 * would bleed into that command's). Linux gives no exit event for a process that is not our child
 * (Node has no pidfd), so this looks again after growing pauses (1 ms, doubling, at most 50 ms);
 * only when something was killed.
 */
export async function untilDead(pids: readonly number[], limitMs = 5000): Promise<void> {
  let left = pids.filter((pid) => !dead(pid));
  const deadline = Date.now() + limitMs;
  for (let pause = 1; left.length > 0 && Date.now() < deadline; pause = Math.min(pause * 2, 50)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    left = left.filter((pid) => !dead(pid));
  }
}
