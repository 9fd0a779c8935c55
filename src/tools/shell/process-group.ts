import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { statFields } from './kill-leftovers.js';

/**
 * The shell commands run under: bash, the grammar the policy parses (tree-sitter-bash), so the two
 * never read a line differently (dash reads `&>` as `&` then `>`). No profile, no rc file; the
 * environment it gets has the variables that steer bash itself removed (SHELL_CONTROL_ENV).
 */
export const SHELL = ['/bin/bash', '--noprofile', '--norc', '-c'] as const;

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/**
 * The guard's last act when toolgate dies: kill every process of its session, then its group. A
 * command is started with setsid, so the session is the command's; a program that moves its child
 * into a group of its own (`timeout` does) does not leave the session.
 */
const KILL_SESSION =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash text, where ${…} is bash syntax
  'for f in /proc/[0-9]*/stat; do read -r s < "$f" || continue; s=${s##*) }; set -- $s; p=${f//[^0-9]/}; [ "$4" = "$$" ] && [ "$p" != "$$" ] && kill -KILL "$p"; done 2>/dev/null; kill -KILL 0';

/**
 * How a command line is started. Where util-linux `setpriv` exists, a small bash guard leads the
 * process group with a parent-death signal: if toolgate dies, even by SIGKILL, the guard gets
 * SIGHUP and kills the whole group, so nothing the command started outlives toolgate. The command
 * itself runs in its own `bash -c` (its text passed as an argument, never spliced into the guard),
 * its exit status passed through; toolgate's own SIGTERM to the group still reaches it directly.
 */
export function shellArgv(command: string): string[] {
  if (!SETPRIV) return [...SHELL, command];
  const guard = `trap '${KILL_SESSION}' HUP; ${SHELL.join(' ')} "$1" & wait $!; status=$?; exit $status`;
  return [SETPRIV, '--pdeathsig', 'HUP', '--', ...SHELL, guard, 'toolgate-guard', command];
}

/**
 * Starts the command as the leader of a new process group (seed 000 FR-EXE-05/06), stdin closed.
 * `stdoutFd`: a pipe the caller made for stdout (then `child.stdout` is null); else Node's own.
 */
export function spawnShell(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; argv?: string[]; stdoutFd?: number },
): ChildProcess {
  const [file, ...args] = options.argv ?? shellArgv(command);
  return spawn(file as string, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', options.stdoutFd ?? 'pipe', 'pipe'],
    detached: true,
  });
}

/** Signals the whole group; a group that is already gone is fine. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group. Failure to kill must not block completion (FR-EXE-05).
  }
}

/**
 * Kills group `pid` and every process of session `pid` (the command's leader was started with
 * setsid): nothing a command started outlives its call, even in a group of its own (`timeout`'s
 * child). Linux /proc; elsewhere the group only.
 */
export function killSession(pid: number | undefined): void {
  if (pid === undefined) return;
  signalGroup(pid, 'SIGKILL');
  const sid = String(pid);
  // Pids are handed out in increasing order: what the command started has a larger pid than its
  // leader, unless the counter wrapped around since (then every process is looked at). A process
  // killed cannot fork again; one it forked before it died shows in the next look: look again
  // until a look finds nothing.
  for (let round = 0; round < 50; round++) {
    let killed = 0;
    for (const name of candidates(pid)) {
      const fields = statFields(name);
      // A zombie is dead already (its parent has yet to reap it): signalling it again finds nothing.
      if (fields?.[3] !== sid || fields[0] === 'Z' || fields[0] === 'X') continue;
      try {
        process.kill(Number(name), 'SIGKILL');
        killed++;
      } catch {
        // gone meanwhile
      }
    }
    if (killed === 0) return;
  }
}

/**
 * The pids that may belong to a session led by `pid`: those handed out after it. When few were
 * (the usual case: a command and its children), each is looked up directly, without listing /proc.
 */
function candidates(pid: number): string[] {
  const last = lastPid();
  if (last >= pid && last - pid <= 256) {
    const out: string[] = [];
    for (let n = pid + 1; n <= last; n++) out.push(String(n)); // statFields skips the absent
    return out;
  }
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const wrapped = last < pid;
  return names.filter((name) => {
    const c = name.charCodeAt(0);
    return c >= 48 && c <= 57 && (wrapped || Number(name) > pid);
  });
}

/** The last pid the kernel handed out in this pid namespace (0 when it cannot be read: look at all). */
function lastPid(): number {
  try {
    return Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'latin1')) || 0;
  } catch {
    return 0;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the group, then SIGKILL after `graceMs` if anything is left. Resolves when the group
 * is gone (or after the SIGKILL, which cannot be refused). Event-driven on the leader's exit; the
 * rest of the group is checked once, at the grace deadline.
 */
export function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return Promise.resolve();
  signalGroup(pid, 'SIGTERM');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
      resolve();
    }, graceMs);
    timer.unref();
    const finish = () => {
      if (!groupAlive(pid)) {
        clearTimeout(timer);
        resolve();
      }
    };
    if (child.exitCode !== null || child.signalCode !== null) finish();
    else child.once('exit', finish);
  });
}

/** Every process group still running that this process started, so none outlives it. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Kills group `pgid` when this process exits (a synchronous SIGKILL in the exit hook), unless it is
 * forgotten first; returns the forget function.
 */
export function killOnExit(pgid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
    });
  }
  liveGroups.add(pgid);
  return () => liveGroups.delete(pgid);
}

/**
 * A bash that reads commands from its stdin, for a session's persistent shell. With `setpriv` a
 * guard leads the group as in `shellArgv`: if toolgate dies, the whole group goes with it.
 */
export function sessionShellArgv(): string[] {
  const shell = [...SHELL.slice(0, 3), '-s'];
  if (!SETPRIV) return shell;
  // `<&0`: an explicit redirection, else bash gives a background command /dev/null as stdin.
  const guard = `trap '${KILL_SESSION}' HUP; ${shell.join(' ')} <&0 & wait $!; exit $?`;
  return [SETPRIV, '--pdeathsig', 'HUP', '--', ...SHELL, guard, 'toolgate-session'];
}
