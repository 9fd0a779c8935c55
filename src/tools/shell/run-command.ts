import type { ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import * as z from 'zod';
import type { CommandFacts } from '../../core/command-facts.js';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { truncateOutput } from '../../output/truncate-output.js';
import { analyzeCommand } from './analyze-command.js';
import { JOB_LIFETIME, type JobManager } from './background-jobs.js';
import { scrubEnv, withSandboxEnv } from './env-scrub.js';
import type { OsSandbox } from './os-sandbox.js';
import { HeadTailBuffer } from './output-buffer.js';
import { OutputEvents } from './output-events.js';
import { readPipe, sharedPipePool } from './pipe-pool.js';
import { signalGroup, spawnShell, stopGroup } from './process-group.js';
import { loadShellParser } from './shell-parser.js';

export interface RunCommandSettings {
  /** Most a call may run ([tools.timeouts] shell_commands_seconds); timeout_ms is capped by it. */
  maxTimeoutMs: number;
  graceMs: number;
  envDenylist: readonly string[];
  /** Kept per stream: this many bytes of the start and of the end of the output. */
  keepBytes: number;
  /** Runs commands under the OS sandbox (config `sandbox = "os"`), or directly when undefined. */
  osSandbox?: OsSandbox;
  /** This session's background jobs (shared with read_job_output). */
  jobs: JobManager;
  /** `[tools.governance.tools.run_command] requires_sandbox`: never run a command outside the OS sandbox. */
  requiresSandbox?: boolean;
}

const args = z.strictObject({
  command: z.string().min(1).describe('The shell command line (run with bash -c, no profile or rc files).'),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe('Working directory, relative to the workspace root (default: the root).'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Stop the command after this long (capped by the configured maximum).'),
  background: z
    .boolean()
    .default(false)
    .describe(
      'Start as a background job and return its id at once; read its output later with read_job_output.',
    ),
});

/** Newlines and control characters made visible, so an approval shows what will really run. */
export function visibleCommand(command: string): string {
  return command.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === '\n' ? '⏎' : c === '\t' ? '⇥' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/**
 * run_command (seed 000 FR-TOOL-CMD-01, DESIGN §4): `bash -c` in a new process group, stdin closed,
 * a cwd inside the roots, a scrubbed environment, output streamed and kept in constant memory, and
 * on timeout or cancel the whole group stopped (SIGTERM, grace, SIGKILL). Policy sees the parsed
 * command (commandFacts) and judges every sub-command.
 */
export function createRunCommandTool(settings: RunCommandSettings) {
  return defineTool({
    name: 'run_command',
    description:
      'Run a shell command in the workspace (bash -c). Returns stdout, then "[stderr]" and stderr; a non-zero exit is an error that still carries the output. Every part of a compound command is checked by policy.',
    args,
    tier: 'privileged',
    category: 'shell',
    timeoutMs: settings.maxTimeoutMs + settings.graceMs + 1000,
    summary: (a) => `Run command: ${visibleCommand(a.command)}${a.cwd ? ` (in ${a.cwd})` : ''}`,
    locations: (a) => [{ path: a.cwd ?? '.', access: 'list' }],
    commandFacts: (a): CommandFacts => analyzeCommand(a.command),
    approvalDetail: (a) => visibleCommand(a.command),
    prepare: async () => {
      sharedPipePool().warm();
      await loadShellParser();
    },
    ...(settings.osSandbox ? { dispose: () => (settings.osSandbox as OsSandbox).shutdown() } : {}),
    async execute(a, ctx) {
      if (settings.requiresSandbox && !settings.osSandbox)
        throw new ToolError(
          'SandboxViolation',
          'run_command requires the OS sandbox ([tools.governance.tools.run_command] requires_sandbox = true) and it is off: set [tools.run_command] sandbox = "os" (it needs bubblewrap and socat); nothing was run',
        );
      const cwd = ctx.sandbox.resolve(a.cwd ?? '.');
      const timeoutMs = Math.min(a.timeout_ms ?? settings.maxTimeoutMs, settings.maxTimeoutMs);
      let env = scrubEnv(process.env, settings.envDenylist);
      // The trace goes on into the command (W3C trace context in the environment).
      if (ctx.traceparent) env = { ...env, TRACEPARENT: ctx.traceparent };
      let argv: string[] | undefined;
      if (settings.osSandbox) {
        const wrapped = await settings.osSandbox.wrap(a.command, cwd.absolute, ctx.callId);
        argv = wrapped.argv;
        env = withSandboxEnv(env, wrapped.env, process.env, settings.envDenylist);
      }
      if (a.background) {
        const child = spawnShell(a.command, { cwd: cwd.absolute, env, ...(argv ? { argv } : {}) });
        const job = settings.jobs.start(a.command, child);
        await new Promise<void>((resolve, reject) => {
          child.once('spawn', resolve);
          child.once('error', reject);
        }).catch((error: Error) => {
          throw new ToolError('ExecutionFailed', `could not start the command: ${error.message}`);
        });
        return {
          content: `started background job ${job.id} (pid ${child.pid}); read its output with read_job_output {"id": "${job.id}"}. ${JOB_LIFETIME}`,
          metadata: { job: job.id, pid: child.pid },
        };
      }
      // stdout into a real pipe where one can be had: a socketpair slows a fast producer down.
      const pipe = await sharedPipePool().take();
      let child: ChildProcess;
      try {
        child = spawnShell(a.command, {
          cwd: cwd.absolute,
          env,
          ...(argv ? { argv } : {}),
          ...(pipe ? { stdoutFd: pipe.writeFd } : {}),
        });
      } catch (error) {
        if (pipe) closeSync(pipe.readFd);
        throw new ToolError('ExecutionFailed', `could not start the command: ${(error as Error).message}`);
      } finally {
        pipe?.closeWriteEnd(); // the child has its own copy now: EOF comes when the command's side closes
      }
      const stdout = new HeadTailBuffer(settings.keepBytes, settings.keepBytes);
      const stderr = new HeadTailBuffer(settings.keepBytes, settings.keepBytes);
      // While the consumer is behind, the pipes are not read: the command waits, memory stays flat.
      const streams: (Readable | null | undefined)[] = [child.stderr];
      let behind = 0;
      let stopped = false;
      const caughtUp = () => {
        if (--behind === 0 || stopped) for (const s of streams) s?.resume();
      };
      const events = ctx.streaming
        ? new OutputEvents({
            emit: (stream, bytes) => ctx.emit(stream, bytes),
            onBehind: (wait) => {
              if (behind++ === 0 && !stopped) for (const s of streams) s?.pause();
              wait.then(caughtUp, caughtUp);
            },
          })
        : undefined;
      // Chunks are views into a reused read buffer: everything below copies what it keeps.
      const onOut = (chunk: Uint8Array) => {
        stdout.push(chunk);
        events?.push('stdout', chunk);
      };
      const out = pipe ? readPipe(pipe.readFd, onOut) : child.stdout?.on('data', onOut);
      streams.push(out);
      out?.on('end', () => events?.end('stdout'));
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr.push(chunk);
        events?.push('stderr', chunk);
      });
      child.stderr?.on('end', () => events?.end('stderr'));
      let stopReason: 'timeout' | 'cancel' | undefined;
      const stop = (why: 'timeout' | 'cancel') => {
        stopReason ??= why;
        // A stopped call reads its pipes to the end whatever the consumer does, so `close` comes.
        stopped = true;
        for (const s of streams) s?.resume();
        void stopGroup(child, settings.graceMs);
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs);
      const onAbort = () => stop('cancel');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
          (resolve, reject) => {
            child.once('error', reject);
            // With our own pipe, Node's `close` does not wait for it: its end of file is awaited too.
            const outClosed = new Promise((done) =>
              pipe && out ? out.once('close', done) : done(undefined),
            );
            child.once('close', (c, s) => void outClosed.then(() => resolve({ code: c, signal: s })));
            // The leader may exit while children still hold the pipes open: stop them, so `close` comes.
            child.once('exit', () => signalGroup(child.pid, 'SIGKILL'));
          },
        );
        events?.flush();
        const output = stdout.text() + (stderr.total > 0 ? `\n\n[stderr]\n${stderr.text()}` : '');
        const body = truncateOutput(output, ctx.outputLimit).text;
        if (stopReason === 'timeout') {
          throw new ToolError(
            'Timeout',
            `the command ran longer than ${timeoutMs} ms and was stopped (its whole process group)\n${body}`,
          );
        }
        if (stopReason === 'cancel')
          throw new ToolError('Cancelled', `cancelled; the command's process group was stopped\n${body}`);
        if (code !== 0) {
          const why = code === null ? `killed by ${signal}` : `exit code ${code}`;
          throw new ToolError('ExecutionFailed', `${why}\n${body}`, { exitCode: code, signal });
        }
        return {
          content: body,
          display: `exit 0, ${stdout.total} bytes out${stderr.total ? `, ${stderr.total} bytes err` : ''}`,
          metadata: {
            exitCode: 0,
            stdoutBytes: stdout.total,
            stderrBytes: stderr.total,
            omitted: stdout.dropped + stderr.dropped,
          },
        };
      } catch (error) {
        if (ToolError.isInstance(error)) throw error;
        throw new ToolError('ExecutionFailed', `could not start the command: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        signalGroup(child.pid, 'SIGKILL'); // nothing of the command outlives the call
        settings.osSandbox?.done();
        if (pipe) out?.destroy();
      }
    },
  });
}
