import type { ChildProcess } from 'node:child_process';
import { HeadTailBuffer } from './output-buffer.js';
import { killOnExit, signalGroup, stopGroup } from './process-group.js';

export interface Job {
  id: string;
  command: string;
  child: ChildProcess;
  output: HeadTailBuffer;
  startedAt: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

/**
 * Said wherever a job is started or missed: a job belongs to the toolgate process that started it
 * (a deliberate choice: no supervisor outlives toolgate, so nothing runs that nobody can stop).
 */
export const JOB_LIFETIME =
  'The job lives as long as this toolgate process: for an MCP server or a chat, the session; for `toolgate exec` or `toolgate run`, only until it prints its results.';

/**
 * The background jobs of one session (`run_command` with `background: true`): output kept to a
 * capped log (start and end), read by a later `read_job_output` call. Jobs are stopped on request
 * and killed when the process exits.
 */
export class JobManager {
  readonly #jobs = new Map<string, Job>();
  #next = 1;

  constructor(private readonly logBytes: number) {}

  start(command: string, child: ChildProcess): Job {
    const id = `job-${this.#next++}`;
    const job: Job = {
      id,
      command,
      child,
      output: new HeadTailBuffer(this.logBytes, this.logBytes),
      startedAt: Date.now(),
    };
    const pid = child.pid;
    const forget = pid === undefined ? undefined : killOnExit(pid);
    // A job never keeps toolgate alive: when the process is otherwise done it exits, and the exit
    // hook ends the job (the lifetime JOB_LIFETIME states).
    child.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
    child.stdout?.on('data', (chunk: Buffer) => job.output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => job.output.push(chunk));
    child.once('close', (code, signal) => {
      job.exit = { code, signal };
      if (pid !== undefined) {
        signalGroup(pid, 'SIGKILL'); // whatever the job left behind in its group
        forget?.();
      }
    });
    this.#jobs.set(id, job);
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  async stop(job: Job, graceMs: number): Promise<void> {
    if (job.exit) return;
    await stopGroup(job.child, graceMs);
  }
}
