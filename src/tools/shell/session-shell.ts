import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startTime } from '../../journal/process-identity.js';
import { FrameReader } from './frame-reader.js';
import { killLeftovers, type ShellIdentity, stdioLinks, untilDead } from './kill-leftovers.js';
import { killOnExit, signalGroup, stopGroup } from './process-group.js';

/** How a session's shell is started: its argv and environment, in the directory given. */
export type StartShell = (cwd: string) => Promise<{ argv: string[]; env: NodeJS.ProcessEnv }>;

export interface SessionCommand {
  command: string;
  /** Absolute and canonical: the directory the call was checked against; the command runs there. */
  cwd: string;
  traceparent?: string | undefined;
  /**
   * A person approved the command, so it may change the shell's variables: the environment is set
   * again before the next one. Undefined counts as true.
   */
  mayChangeShell?: boolean;
  /** Variables set (and unset) for this command, computed when it starts (git's neutralisation). */
  env?:
    | {
        set: Readonly<Record<string, string>>;
        unset: readonly string[];
        /**
         * Every shell variable starting with `prefix` is unset first except `keep` (a `GIT_DIR` an
         * earlier approved command exported in this shell must not steer this command's git).
         */
        only?: { prefix: string; keep: readonly string[] };
      }
    | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  onOut(chunk: Uint8Array): void;
  onErr(chunk: Uint8Array): void;
}

export interface SessionCommandResult {
  /** The command's exit status, or the shell's when the command ended the shell. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stopReason?: 'timeout' | 'cancel';
  /** The shell ended with this command (exit, exec, a signal, a timeout or a cancel). */
  shellEnded: boolean;
  /** The command broke the shell's framing (its end frame was missing or not the shell's own). */
  broken?: boolean;
  /** The shell's directory afterwards (`pwd -P`), when it still runs and could say. */
  cwd?: string;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

interface LiveShell {
  child: ChildProcess;
  /** The shell reading commands, learnt before any command ran; undefined where it cannot be known. */
  shellPid: number | undefined;
  /** What tells this shell's leftovers apart; undefined where they are not looked for. */
  identity: ShellIdentity | undefined;
  forget: () => void;
  exited: Promise<Exit>;
  /** The environment functions defined in this shell (envPreamble), by the environment's JSON. */
  envFunctions: Map<string, string>;
  /** The environment set last and not changed since, by its JSON (envPreamble). */
  envApplied?: string | undefined;
  /** Where the current command's output goes; undefined between commands. */
  stdout?: FrameReader;
  stderr?: FrameReader;
}

/** Whether the child and its pipes keep the event loop (the process) alive. */
function holdOpen(child: ChildProcess, hold: boolean): void {
  if (hold) child.ref();
  else child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    const handle = stream as { ref?: () => void; unref?: () => void } | null;
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}

/** bash's $'…' quoting: every byte but a few plain ones as \xHH, so any text is one literal word. */
export function ansiCQuote(text: string): string {
  let out = "$'";
  for (const byte of Buffer.from(text, 'utf8')) {
    const plain =
      (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte === 47;
    out += plain ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The body that gives a command its environment (git's neutralisation): GIT_* the shell holds
 * unset but those kept, then every variable set. Names are checked: only a plain name is ever
 * spliced into the text (values are quoted literals).
 */
function envBody(env: NonNullable<SessionCommand['env']>): string {
  let body = '';
  const only = env.only;
  if (only && PLAIN_NAME.test(only.prefix)) {
    const keep = only.keep.filter((n) => PLAIN_NAME.test(n));
    body += `for __tg_v in "\${!${only.prefix}@}"; do case $__tg_v in ${keep.length > 0 ? `${keep.join('|')}) ;; ` : ''}*) \\builtin unset "$__tg_v";; esac; done; \\builtin unset __tg_v; `;
  }
  for (const name of env.unset) if (PLAIN_NAME.test(name)) body += `\\builtin unset ${name}; `;
  for (const [name, value] of Object.entries(env.set))
    if (PLAIN_NAME.test(name)) body += `\\builtin export ${name}=${ansiCQuote(value)}; `;
  return body;
}

/**
 * What sets a command's environment, as little as it can be: bash reads its commands from a pipe a
 * byte at a time (~0.3 µs a byte), and git's neutralisation is ~80 variables, 3 KB. Each distinct
 * environment becomes a function once per shell, under a name nobody can guess, made read-only (no
 * later command, approved or not, can redefine it), and it is called only when the environment
 * differs from the one last set or a command since may have changed the shell's variables (one a
 * person approved: nothing the policy lets run unasked can export, unset or assign a GIT_ name).
 * The call is unconditional, first on the line: should it fail, the shell exits and is replaced.
 */
function envPreamble(live: LiveShell, env: SessionCommand['env']): string {
  if (!env) return '';
  const key = JSON.stringify(env);
  if (live.envApplied === key) return '';
  live.envApplied = key;
  const known = live.envFunctions.get(key);
  if (known) return `${known} || \\builtin exit 125; `;
  const name = `__tg_env_${randomBytes(12).toString('hex')}`;
  live.envFunctions.set(key, name);
  return `${name}() { ${envBody(env)}}; \\builtin readonly -f ${name}; ${name} || \\builtin exit 125; `;
}

/**
 * The line that runs one command. Parsed whole before it runs; the command's text is a literal, so
 * nothing in it is read as this line's syntax, and a command that does not parse is eval's error
 * (status 2), not a broken frame. It prints a begin marker, moves to the directory the call was
 * checked against (refusing to run if that is not where `cd -P` lands: a link swapped in), runs
 * the command with stdin from /dev/null, then prints the end frame: status, the shell's pid and
 * its physical directory on stdout (one printf), the marker alone on stderr. `\builtin` is quoted, so no alias can stand in
 * for it (a function named `builtin` could: defining one asks, like every function definition).
 */
function commandLine(
  marker: string,
  command: string | undefined,
  cwd: string,
  traceparent?: string,
  /** Sets the command's environment (envPreamble): first on the line, whatever happens next. */
  env = '',
): string {
  const where = ansiCQuote(cwd);
  const trace = traceparent
    ? `\\builtin export TRACEPARENT=${ansiCQuote(traceparent)}; `
    : '\\builtin unset TRACEPARENT; ';
  const run =
    command === undefined
      ? '__tg_s=0; '
      : `${env}__tg_c=${ansiCQuote(command)}; if \\builtin cd -P -- ${where} && [[ $PWD == ${where} ]]; then ` +
        `{ ${trace}\\builtin eval "$__tg_c" </dev/null; }; __tg_s=$?; else ` +
        `\\builtin printf 'toolgate: not run: the directory is not the one this call was checked against (%s)\\n' ${where} >&2; __tg_s=126; fi; ` +
        '\\builtin unset __tg_c; \\builtin disown -a; ';
  return (
    `\\builtin printf '\\0%sB' ${marker}; \\builtin printf '\\0%sB' ${marker} >&2; ${run}` +
    // The directory in the same printf as the frame (one write): a job the command left running
    // may write to the same output, but never inside the frame. `cd -P .` gives the physical path
    // without a fork (OLDPWD kept); where it fails (the directory is gone) the frame says none.
    // (`${OLDPWD-}`: a command may have turned on `set -u`.)
    `__tg_o=\${OLDPWD-}; if \\builtin cd -P -- . 2>/dev/null; then __tg_d=$PWD; else __tg_d=; fi; ` +
    `if [[ -n $__tg_o ]]; then OLDPWD=$__tg_o; else \\builtin unset OLDPWD; fi; ` +
    `\\builtin printf '\\0%s %d %d %s\\n' ${marker} "$__tg_s" "$$" "$__tg_d"; \\builtin unset __tg_o __tg_d; ` +
    `\\builtin printf '\\0%s\\0' ${marker} >&2; \\builtin printf '\\0'\n`
  );
}

/**
 * One persistent bash per session (`[tools.shell] backend = "session"`): the directory and the
 * variables a command leaves carry over to the next, as in a person's terminal. Commands run one
 * at a time (commandLine). Before the first command the shell says its pid; a frame that does not
 * come, does not parse, or names another pid means the command broke the framing: the shell is
 * replaced, never trusted. After each command, what it left running (in the shell's group, or
 * holding the shell's pipes) is killed, race-free, before the next command is sent. On timeout or
 * cancel the shell's whole process group is stopped and the next command starts a new shell; so
 * does a command that ends the shell.
 */
export class SessionShell {
  readonly #start: StartShell;
  readonly #graceMs: number;
  /** Under the OS sandbox the shell's processes live in their own pid namespace: not looked for. */
  readonly #identify: boolean;
  #live: LiveShell | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** A stopped command's output is read to the end whatever the consumer does, so the shell's exit comes. */
  #stopping = false;

  constructor(settings: { start: StartShell; graceMs: number; killLeftovers: boolean }) {
    this.#start = settings.start;
    this.#graceMs = settings.graceMs;
    this.#identify = settings.killLeftovers;
  }

  /** Stops reading the shell's output (the consumer is behind): the command waits. */
  pause(): void {
    if (this.#stopping) return;
    this.#live?.child.stdout?.pause();
    this.#live?.child.stderr?.pause();
  }

  resume(): void {
    this.#live?.child.stdout?.resume();
    this.#live?.child.stderr?.resume();
  }

  /** Runs one command after those already queued. */
  run(command: SessionCommand): Promise<SessionCommandResult> {
    const result = this.#queue.then(() => this.#run(command));
    this.#queue = result.catch(() => {});
    return result;
  }

  /** Ends the session: the shell's whole process group, and whatever holds its pipes, is killed. */
  async close(): Promise<void> {
    this.#closed = true;
    const live = this.#live;
    this.#live = undefined;
    if (!live) return;
    holdOpen(live.child, true); // closing waits for the shell to be gone
    this.#kill(live);
    await live.exited;
  }

  #kill(live: LiveShell): void {
    signalGroup(live.child.pid, 'SIGKILL');
    if (live.identity) killLeftovers(live.identity);
    live.forget();
  }

  async #shell(cwd: string): Promise<LiveShell> {
    if (this.#live) return this.#live;
    const { argv, env } = await this.#start(cwd);
    const [file, ...args] = argv;
    const child = spawn(file as string, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const pid = child.pid as number;
    const live: LiveShell = {
      child,
      shellPid: undefined,
      identity: undefined,
      forget: killOnExit(pid),
      exited: Promise.resolve({ code: null, signal: null }),
      envFunctions: new Map(),
    };
    live.exited = new Promise<Exit>((resolve) => {
      child.once('close', (code, signal) => resolve({ code, signal }));
      child.once('exit', (code, signal) => {
        // What still holds the shell's pipes (a leftover that left the group) is killed, so the
        // pipes close; if something the scan cannot see still holds them, they are let go.
        signalGroup(pid, 'SIGKILL');
        if (live.identity) killLeftovers(live.identity);
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ code, signal });
        }, 1000).unref();
      });
    });
    // A write after the shell died fails with EPIPE: the exit is what reports it.
    child.stdin?.on('error', () => {});
    child.stdout?.on('data', (chunk: Buffer) => live.stdout?.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => live.stderr?.push(chunk));
    holdOpen(child, false); // between commands it never keeps toolgate alive
    void live.exited.then(() => {
      live.forget();
      if (this.#live === live) this.#live = undefined;
    });
    this.#live = live;
    // Before any command: the shell's own pid, which every frame must then name.
    const hello = await this.#exchange(live, undefined, cwd, {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      onOut: () => {},
      onErr: () => {},
    });
    if (hello.kind !== 'frame') {
      this.#kill(live);
      throw new Error('the shell did not start as expected');
    }
    if (this.#identify) {
      live.shellPid = hello.pid;
      const since = startTime(hello.pid);
      live.identity = {
        pgid: pid,
        keep: new Set([pid, hello.pid]),
        links: stdioLinks(hello.pid),
        since: since === undefined ? 0 : Number(since),
      };
    }
    return live;
  }

  /** Sends one line and waits for its frame, or for the shell to end (a timeout or cancel stops it). */
  async #exchange(
    live: LiveShell,
    command: string | undefined,
    cwd: string,
    c: Pick<SessionCommand, 'timeoutMs' | 'signal' | 'onOut' | 'onErr' | 'traceparent' | 'env'>,
  ): Promise<
    | { kind: 'frame'; code: number; pid: number; cwd: string | undefined }
    | { kind: 'broken' }
    | { kind: 'ended'; exit: Exit; stopReason?: 'timeout' | 'cancel' }
  > {
    const marker = randomBytes(16).toString('hex');
    let trailer: string | undefined;
    let framed = 0;
    let onFramed: () => void = () => {};
    const bothFramed = new Promise<void>((resolve) => {
      onFramed = () => {
        if (++framed === 2) resolve();
      };
    });
    const begin = { begin: true };
    live.stdout = new FrameReader(
      marker,
      c.onOut,
      (t) => {
        trailer = t;
        onFramed();
      },
      begin,
    );
    live.stderr = new FrameReader(marker, c.onErr, onFramed, begin);
    let stopReason: 'timeout' | 'cancel' | undefined;
    const stop = (why: 'timeout' | 'cancel') => {
      stopReason ??= why;
      this.#stopping = true;
      this.resume();
      void stopGroup(live.child, this.#graceMs).then(() => {
        if (live.identity) killLeftovers(live.identity);
      });
    };
    const timer = setTimeout(() => stop('timeout'), c.timeoutMs);
    const onAbort = () => stop('cancel');
    if (c.signal.aborted) onAbort();
    else c.signal.addEventListener('abort', onAbort, { once: true });
    // While a command runs, the process waits for it, as for any child.
    holdOpen(live.child, true);
    try {
      live.child.stdin?.write(commandLine(marker, command, cwd, c.traceparent, envPreamble(live, c.env)));
      const ended = await Promise.race([bothFramed.then(() => undefined), live.exited]);
      if (ended) return { kind: 'ended', exit: ended, ...(stopReason ? { stopReason } : {}) };
      const frame = /^ (\d+) (\d+) ([\s\S]*)$/.exec(trailer ?? '');
      const pid = Number(frame?.[2]);
      if (!frame || (live.shellPid !== undefined && pid !== live.shellPid)) return { kind: 'broken' };
      // Its first line: what a leftover job wrote after the frame is not the directory.
      const dir = frame[3]?.split('\n')[0];
      return { kind: 'frame', code: Number(frame[1]), pid, cwd: dir?.startsWith('/') ? dir : undefined };
    } finally {
      clearTimeout(timer);
      holdOpen(live.child, false);
      this.#stopping = false;
      c.signal.removeEventListener('abort', onAbort);
      live.stdout = undefined;
      live.stderr = undefined;
    }
  }

  async #run(c: SessionCommand): Promise<SessionCommandResult> {
    if (this.#closed) throw new Error('the session has ended; its shell is closed');
    const live = await this.#shell(c.cwd);
    const outcome = await this.#exchange(live, c.command, c.cwd, c);
    // What a person approved may have changed the shell's variables: the next command sets them again.
    if (c.mayChangeShell !== false) live.envApplied = undefined;
    if (outcome.kind === 'ended') {
      return {
        code: outcome.exit.code,
        signal: outcome.exit.signal,
        shellEnded: true,
        ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}),
      };
    }
    if (outcome.kind === 'broken') {
      // Not the shell's own frame: nothing it says is believed, and the shell is not used again.
      holdOpen(live.child, true);
      this.#kill(live);
      await live.exited;
      return { code: null, signal: null, shellEnded: true, broken: true };
    }
    // What the command left running is stopped, and dead, before anything else is sent to the shell.
    if (live.identity) await untilDead(killLeftovers(live.identity));
    return {
      code: outcome.code,
      signal: null,
      shellEnded: false,
      ...(outcome.cwd ? { cwd: outcome.cwd } : {}),
    };
  }
}
