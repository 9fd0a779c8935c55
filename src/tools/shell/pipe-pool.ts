import { spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, unlinkSync } from 'node:fs';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { helperEnv } from './helper-env.js';

/** A real pipe for a command's stdout: the child gets `writeFd`, toolgate reads `readFd`. */
export interface CommandPipe {
  readonly writeFd: number;
  readonly readFd: number;
  /** Closes toolgate's copy of the write end: call it once the child has its own. */
  closeWriteEnd(): void;
}

/**
 * Reads a pipe into one buffer reused for every read (Node's `onread`): a gigabyte in ~80,000 reads
 * allocates nothing, where fresh buffers would make V8 collect its whole heap again and again.
 * `onChunk` gets a view that is overwritten by the next read: it must copy what it keeps.
 */
export function readPipe(fd: number, onChunk: (bytes: Uint8Array) => void): Socket {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  const options = {
    fd,
    readable: true,
    writable: false,
    onread: { buffer, callback: (n: number, into: Buffer) => void onChunk(into.subarray(0, n)) },
  };
  const socket = new Socket(options as ConstructorParameters<typeof Socket>[0]);
  socket.resume();
  return socket;
}

/**
 * Pipes for command output. Node gives a child a socketpair for `stdio: 'pipe'`; a producer writes
 * to a socket at about two thirds of its speed into a pipe, and a gigabyte takes seconds longer.
 * Node cannot call pipe(2), so FIFOs are made ahead of time by `mkfifo` in a private directory
 * (mode 0700, removed at exit), a few at a time, and each is unlinked as soon as both its ends are
 * open: what the command writes to is an anonymous pipe from then on. When mkfifo is missing or
 * fails, `take()` answers undefined and the caller keeps Node's socketpair.
 */
export class PipePool {
  readonly #batch: number;
  readonly #ready: string[] = [];
  #dir: string | undefined;
  #filling: Promise<void> | undefined;
  #made = 0;
  #broken = false;

  constructor(batch = 8) {
    this.#batch = batch;
  }

  /** Makes FIFOs now, so the first command does not wait for mkfifo. */
  warm(): void {
    if (this.#ready.length < 2) void this.#fill();
  }

  async take(): Promise<CommandPipe | undefined> {
    if (this.#ready.length === 0) await this.#fill();
    const name = this.#ready.shift();
    this.warm();
    if (name === undefined) return undefined;
    let readFd: number | undefined;
    try {
      // Read end first and non-blocking, so opening the write end finds a reader and returns at once.
      readFd = openSync(name, constants.O_RDONLY | constants.O_NONBLOCK);
      const writeFd = openSync(name, constants.O_WRONLY);
      unlinkSync(name);
      let open = true;
      return {
        writeFd,
        readFd,
        closeWriteEnd: () => {
          if (open) closeSync(writeFd);
          open = false;
        },
      };
    } catch {
      if (readFd !== undefined) closeSync(readFd);
      rmSync(name, { force: true });
      return undefined;
    }
  }

  #fill(): Promise<void> {
    if (this.#broken) return Promise.resolve();
    this.#filling ??= new Promise<void>((resolve) => {
      let dir: string;
      try {
        dir = this.#directory();
      } catch {
        this.#broken = true; // no private temporary directory: socketpairs
        this.#filling = undefined;
        resolve();
        return;
      }
      const names = Array.from({ length: this.#batch }, () => path.join(dir, `p${++this.#made}`));
      const child = spawn('mkfifo', ['-m', '600', ...names], { stdio: 'ignore', env: helperEnv() });
      const done = (ok: boolean) => {
        if (ok) this.#ready.push(...names);
        else this.#broken = true; // no mkfifo here: socketpairs from now on
        this.#filling = undefined;
        resolve();
      };
      child.once('error', () => done(false));
      child.once('close', (code) => done(code === 0));
    });
    return this.#filling;
  }

  #directory(): string {
    if (!this.#dir) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-pipes-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      this.#dir = dir;
    }
    return this.#dir;
  }
}

let shared: PipePool | undefined;

/** One pool per process: FIFOs are a process resource (one directory, one exit hook), not session state. */
export function sharedPipePool(): PipePool {
  shared ??= new PipePool();
  return shared;
}
