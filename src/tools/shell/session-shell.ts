import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { FrameReader } from './frame-reader.js';
import { killGroupExcept, killOnExit, signalGroup, stopGroup } from './process-group.js';

/** How a session's shell is started: its argv and environment, in the directory given. */
export type StartShell = (cwd: string) => Promise<{ argv: string[]; env: NodeJS.ProcessEnv }>;

export interface SessionCommand {
  command: string;
  /** Absolute: the directory the call was checked against; the command runs there. */
  cwd: string;
  traceparent?: string | undefined;
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
  /** The shell's directory afterwards (`pwd -P`), when it still runs and could say. */
  cwd?: string;
}

interface LiveShell {
  child: ChildProcess;
  /** Processes a command's leftovers are not: the group's leader and the shell reading commands. */
  keep: Set<number>;
  forget: () => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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

/**
 * One persistent bash per session (`[tools.shell] backend = "session"`): the directory and the
 * variables a command leaves carry over to the next, as in a person's terminal. Commands run one
 * at a time. Each is sent as a literal ($'…') and run by `eval` with stdin from /dev/null, after a
 * `cd` to the directory it was checked against; then the shell prints a frame with a random marker
 * on stdout (exit status, pid, `pwd -P`) and on stderr, which ends that command's output. What the
 * command left running is killed then. On timeout or cancel the shell's whole process group is
 * stopped and the next command starts a new shell; so does a command that ends the shell.
 */
export class SessionShell {
  readonly #start: StartShell;
  readonly #graceMs: number;
  /** Kills what a command leaves behind; off under the OS sandbox, whose pid namespace hides it. */
  readonly #killLeftovers: boolean;
  #live: LiveShell | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** A stopped command's output is read to the end whatever the consumer does, so the shell's exit comes. */
  #stopping = false;

  constructor(settings: { start: StartShell; graceMs: number; killLeftovers: boolean }) {
    this.#start = settings.start;
    this.#graceMs = settings.graceMs;
    this.#killLeftovers = settings.killLeftovers;
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

  /** Ends the session: the shell's whole process group is killed. */
  async close(): Promise<void> {
    this.#closed = true;
    const live = this.#live;
    this.#live = undefined;
    if (!live) return;
    // Between commands only the idle shell (and its guard) are in the group: nothing to wind down.
    // A command still running is cut off, as when a terminal closes.
    holdOpen(live.child, true); // closing waits for the shell to be gone
    signalGroup(live.child.pid, 'SIGKILL');
    live.forget();
    await live.exited;
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
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    // A write after the shell died fails with EPIPE: the exit is what reports it.
    child.stdin?.on('error', () => {});
    const live: LiveShell = { child, keep: new Set([pid]), forget: killOnExit(pid), exited };
    child.stdout?.on('data', (chunk: Buffer) => live.stdout?.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => live.stderr?.push(chunk));
    // Between commands it never keeps toolgate alive: the session's end (or the exit hook) stops it.
    holdOpen(child, false);
    void exited.then(() => {
      live.forget();
      signalGroup(pid, 'SIGKILL'); // whatever the shell left in its group
      if (this.#live === live) this.#live = undefined;
    });
    this.#live = live;
    return live;
  }

  async #run(c: SessionCommand): Promise<SessionCommandResult> {
    if (this.#closed) throw new Error('the session has ended; its shell is closed');
    const live = await this.#shell(c.cwd);
    const marker = randomBytes(16).toString('hex');
    let trailer: string | undefined;
    let framed = 0;
    let onFramed: () => void = () => {};
    const bothFramed = new Promise<void>((resolve) => {
      onFramed = () => {
        if (++framed === 2) resolve();
      };
    });
    live.stdout = new FrameReader(marker, c.onOut, (t) => {
      trailer = t;
      onFramed();
    });
    live.stderr = new FrameReader(marker, c.onErr, onFramed);
    const trace = c.traceparent
      ? `\\builtin export TRACEPARENT=${ansiCQuote(c.traceparent)}; `
      : '\\builtin unset TRACEPARENT; ';
    // One line, parsed whole before it runs. The text is a literal: nothing in it is read as our
    // own syntax, and a command that does not parse is eval's error (status 2), not a broken frame.
    // `\builtin`: quoted, so no alias a command defined can stand in for it. (A function named
    // `builtin` could: defining one asks, like every function definition.) If the frame never
    // comes, the command times out and the shell is replaced: never a result it did not give.
    const script =
      `__tg_c=${ansiCQuote(c.command)}; \\builtin cd -- ${ansiCQuote(c.cwd)} && ` +
      `{ ${trace}\\builtin eval "$__tg_c" </dev/null; }; __tg_s=$?; \\builtin unset __tg_c; \\builtin disown -a; ` +
      `\\builtin printf '\\0%s %d %d ' ${marker} "$__tg_s" "$$"; \\builtin pwd -P; ` +
      `\\builtin printf '\\0%s\\0' ${marker} >&2; \\builtin printf '\\0'\n`;
    let stopReason: 'timeout' | 'cancel' | undefined;
    const stop = (why: 'timeout' | 'cancel') => {
      stopReason ??= why;
      this.#stopping = true;
      this.resume();
      void stopGroup(live.child, this.#graceMs);
    };
    const timer = setTimeout(() => stop('timeout'), c.timeoutMs);
    const onAbort = () => stop('cancel');
    if (c.signal.aborted) onAbort();
    else c.signal.addEventListener('abort', onAbort, { once: true });
    // While a command runs, the process waits for it, as for any child.
    holdOpen(live.child, true);
    try {
      live.child.stdin?.write(script);
      const ended = await Promise.race([bothFramed.then(() => undefined), live.exited]);
      if (ended) {
        // The shell ended: what it printed before is read to the end, then the command's result is the shell's.
        return {
          code: ended.code,
          signal: ended.signal,
          shellEnded: true,
          ...(stopReason ? { stopReason } : {}),
        };
      }
      const frame = /^ (\d+) (\d+) ([\s\S]*)$/.exec(trailer ?? '');
      const code = frame ? Number(frame[1]) : null;
      const cwd = frame?.[3]?.replace(/\n$/, '');
      // Leftovers are killed only when the frame said which process is the shell.
      if (frame) {
        live.keep.add(Number(frame[2]));
        if (this.#killLeftovers) killGroupExcept(live.child.pid as number, live.keep);
      }
      return { code, signal: null, shellEnded: false, ...(cwd?.startsWith('/') ? { cwd } : {}) };
    } finally {
      clearTimeout(timer);
      holdOpen(live.child, false);
      this.#stopping = false;
      c.signal.removeEventListener('abort', onAbort);
      live.stdout = undefined;
      live.stderr = undefined;
    }
  }
}
