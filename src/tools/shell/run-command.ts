import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import * as z from 'zod';
import type { CommandFacts } from '../../core/command-facts.js';
import { defineTool } from '../../core/define-tool.js';
import type { Clearance, ToolContext, ToolOutput } from '../../core/tool-definition.js';
import { ToolError } from '../../core/tool-error.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { gitSafetyEnv, withGitSafety } from '../git/git-safety-env.js';
import { analyzeCommand } from './analyze-command.js';
import { JOB_LIFETIME, type JobManager } from './background-jobs.js';
import { CommandOutput } from './command-output.js';
import { scrubEnv, withSandboxEnv } from './env-scrub.js';
import type { OsSandbox } from './os-sandbox.js';
import { readPipe, sharedPipePool } from './pipe-pool.js';
import { killSession, sessionShellArgv, signalGroup, spawnShell, stopGroup } from './process-group.js';
import { type SessionCommand, type SessionCommandResult, SessionShell } from './session-shell.js';
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
  /** `[tools.shell] backend = "session"`: one persistent shell for the session's commands. */
  session?: boolean;
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
    .max(86_400_000)
    .optional()
    .describe('Stop the command after this long (capped by the configured maximum).'),
  background: z
    .boolean()
    .default(false)
    .describe(
      'Start as a background job and return its id at once; read its output later with read_job_output.',
    ),
});

const RUN_COMMAND_DESCRIPTION =
  'Run a shell command in the workspace (bash -c). Returns stdout, then "[stderr]" and stderr; a non-zero exit is an error that still carries the output. Every part of a compound command is checked by policy.';

/** run_command's description under `[tools.shell] backend = "session"`. */
export const RUN_COMMAND_SESSION_DESCRIPTION =
  'Run a shell command in this session\'s persistent bash: the directory (cd) and the variables it exports carry over to the next command, as in a terminal (each call of one batch starts where the shell was when the batch arrived). stdin is empty. Returns stdout, then "[stderr]" and stderr; a non-zero exit is an error that still carries the output. Every part of a compound command is checked by policy. Processes left running when a command ends are stopped; use background: true for long-running ones.';

/**
 * run_command (seed 000 FR-TOOL-CMD-01, DESIGN §4): `bash -c` in a new process group, stdin closed,
 * a cwd inside the roots, a scrubbed environment, output streamed and kept in constant memory, and
 * on timeout or cancel the whole group stopped (SIGTERM, grace, SIGKILL). Policy sees the parsed
 * command (commandFacts) and judges every sub-command.
 */
export function createRunCommandTool(settings: RunCommandSettings) {
  const osSandbox = settings.osSandbox;
  const shell = settings.session
    ? new SessionShell({
        graceMs: settings.graceMs,
        // Under the OS sandbox the shell's processes live in their own pid namespace and session.
        killLeftovers: !osSandbox,
        start: async (cwd) => {
          const env = scrubEnv(process.env, settings.envDenylist);
          if (!osSandbox) return { argv: sessionShellArgv(), env };
          const wrapped = await osSandbox.wrap(SESSION_SHELL, cwd, `session-${randomUUID()}`);
          return {
            argv: wrapped.argv,
            env: withSandboxEnv(env, wrapped.env, process.env, settings.envDenylist),
          };
        },
      })
    : undefined;
  /**
   * The session shell's directory as the sandbox takes it (relative to the first root) and where it
   * was; undefined at the root. A directory that is no longer that place (moved, or swapped for a
   * link since) is forgotten: the next command starts at the root rather than be refused forever.
   */
  let shellAt: { dir: string; absolute: string } | undefined;
  const shellDir = (): string | undefined => {
    if (!shellAt) return undefined;
    let real: string | undefined;
    try {
      real = realpathSync(shellAt.absolute);
    } catch {
      real = undefined;
    }
    if (real !== shellAt.absolute) shellAt = undefined;
    return shellAt?.dir;
  };
  let sessionBase: NodeJS.ProcessEnv | undefined;
  const dispose = async () => {
    await shell?.close();
    await osSandbox?.shutdown();
  };
  return defineTool({
    name: 'run_command',
    description: settings.session ? RUN_COMMAND_SESSION_DESCRIPTION : RUN_COMMAND_DESCRIPTION,
    args,
    tier: 'privileged',
    category: 'shell',
    timeoutMs: settings.maxTimeoutMs + settings.graceMs + 1000,
    summary: (a) => {
      const where = a.cwd ?? shellDir();
      return `Run command: ${a.command}${where ? ` (in ${where})` : ''}`;
    },
    // In a session the shell's own directory is the default: the command is checked against it.
    locations: (a) => [{ path: a.cwd ?? shellDir() ?? '.', access: 'list' }],
    commandFacts: (a): CommandFacts => analyzeCommand(a.command),
    // Exact: the planner makes control characters visible (showExact) on every surface.
    approvalDetail: (a) => a.command,
    prepare: async () => {
      sharedPipePool().warm();
      await loadShellParser();
    },
    ...(shell || osSandbox ? { dispose } : {}),
    async execute(a, ctx) {
      if (settings.requiresSandbox && !settings.osSandbox)
        throw new ToolError(
          'SandboxViolation',
          'run_command requires the OS sandbox ([tools.governance.tools.run_command] requires_sandbox = true) and it is off: set [tools.run_command] sandbox = "os" (it needs bubblewrap and socat); nothing was run',
        );
      const script = commandToRun(a.command, ctx.clearance);
      // Where the planner checked the call (in a session, the shell's directory then).
      const cwd = ctx.paths?.[0] ?? ctx.sandbox.resolve(a.cwd ?? shellDir() ?? '.');
      const timeoutMs = Math.min(a.timeout_ms ?? settings.maxTimeoutMs, settings.maxTimeoutMs);
      // Every git the command starts runs without the programs any config names, computed now
      // (an earlier call of the batch may have written that config): docs/SHELL-POLICY.md.
      // The session shell's environment was made when it started: so is its base, once.
      const inSession = shell !== undefined && !a.background;
      if (inSession) sessionBase ??= scrubEnv(process.env, settings.envDenylist);
      const base = inSession && sessionBase ? sessionBase : scrubEnv(process.env, settings.envDenylist);
      const git = gitSafetyEnv(cwd.absolute, base);
      if (git.problem && ctx.clearance?.by !== 'person' && /git/.test(script))
        throw new ToolError(
          'Denied',
          `not executed: approve this command when asked, or fix git here: ${git.problem}, so git's programs cannot be switched off for a command nobody approved`,
        );
      if (inSession)
        return await runInSession(
          shell,
          script,
          cwd.absolute,
          timeoutMs,
          ctx,
          settings.keepBytes,
          (dir, absolute) => {
            shellAt = dir && absolute ? { dir, absolute } : undefined;
          },
          {
            ...git,
            // What the shell itself may have been given since it started goes too (an exported GIT_DIR).
            only: {
              prefix: 'GIT_',
              keep: Object.keys(base).filter((n) => n.startsWith('GIT_') && !git.unset.includes(n)),
            },
          },
        );
      let env = withGitSafety(base, git);
      // The trace goes on into the command (W3C trace context in the environment).
      if (ctx.traceparent) env = { ...env, TRACEPARENT: ctx.traceparent };
      let argv: string[] | undefined;
      if (settings.osSandbox) {
        const wrapped = await settings.osSandbox.wrap(script, cwd.absolute, ctx.callId);
        argv = wrapped.argv;
        env = withSandboxEnv(env, wrapped.env, process.env, settings.envDenylist);
      }
      if (a.background) {
        const child = spawnShell(script, { cwd: cwd.absolute, env, ...(argv ? { argv } : {}) });
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
        child = spawnShell(script, {
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
      // While the consumer is behind, the pipes are not read: the command waits, memory stays flat.
      const streams: (Readable | null | undefined)[] = [child.stderr];
      let stopped = false;
      const output = new CommandOutput(ctx, settings.keepBytes, {
        pause: () => {
          if (!stopped) for (const s of streams) s?.pause();
        },
        resume: () => {
          for (const s of streams) s?.resume();
        },
      });
      const out = pipe ? readPipe(pipe.readFd, output.out) : child.stdout?.on('data', output.out);
      streams.push(out);
      out?.on('end', () => output.end('stdout'));
      child.stderr?.on('data', output.err);
      child.stderr?.on('end', () => output.end('stderr'));
      let stopReason: 'timeout' | 'cancel' | undefined;
      let swept = false;
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
            // The leader may exit while children still hold the pipes open: stop them (in whatever
            // group they moved to), so `close` comes.
            child.once('exit', () => {
              swept = true;
              killSession(child.pid);
            });
          },
        );
        return output.result({ code, signal, stopReason, timeoutMs }, ctx.outputLimit);
      } catch (error) {
        if (ToolError.isInstance(error)) throw error;
        throw new ToolError('ExecutionFailed', `could not start the command: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        // Nothing of the command outlives the call, whatever group it moved to (swept once at its exit).
        if (swept) signalGroup(child.pid, 'SIGKILL');
        else killSession(child.pid);
        settings.osSandbox?.done();
        if (pipe) out?.destroy();
      }
    },
  });
}

/**
 * What runs (issue #29): the text a person approved, as they saw it; otherwise the command line as
 * toolgate rebuilt it from what the policy judged, never the model's text read again by bash.
 */
function commandToRun(command: string, clearance: Clearance | undefined): string {
  if (clearance?.by === 'person') return command;
  if (clearance?.by === 'policy' && clearance.rebuilt !== undefined) return clearance.rebuilt;
  throw new ToolError(
    'Denied',
    clearance
      ? 'not executed: nobody approved this command and toolgate has no rebuilt form of it to run; approve it when asked'
      : 'not executed: run_command runs only through the pipeline (Toolgate.execute), which judges the command and rebuilds what it runs',
  );
}

/** The session's shell under the OS sandbox: the wrapper runs this, which reads commands from stdin. */
const SESSION_SHELL = 'exec /bin/bash --noprofile --norc -s';

/** One command in the session's persistent shell; its result reads as a `bash -c` one would. */
async function runInSession(
  shell: SessionShell,
  command: string,
  cwd: string,
  timeoutMs: number,
  ctx: ToolContext,
  keepBytes: number,
  setDir: (dir: string | undefined, absolute?: string) => void,
  env: SessionCommand['env'],
): Promise<ToolOutput> {
  if (command.includes('\0'))
    throw new ToolError('BadArgs', 'the command holds a NUL character, which no shell can take; remove it');
  const output = new CommandOutput(ctx, keepBytes, {
    pause: () => shell.pause(),
    resume: () => shell.resume(),
  });
  let end: SessionCommandResult;
  try {
    end = await shell.run({
      command,
      cwd,
      traceparent: ctx.traceparent,
      env,
      mayChangeShell: ctx.clearance?.by !== 'policy',
      timeoutMs,
      signal: ctx.signal,
      onOut: output.out,
      onErr: output.err,
    });
  } catch (error) {
    throw new ToolError(
      'ExecutionFailed',
      `the session's shell could not start: ${(error as Error).message}`,
    );
  }
  output.end('stdout');
  output.end('stderr');
  if (end.broken) {
    setDir(undefined);
    throw new ToolError(
      'ExecutionFailed',
      "the command broke the session shell's framing (it rewired or closed the shell's own output, or something forged the end of a command): nothing it reported can be trusted, so the shell was replaced; the next command starts a new shell in the workspace root, without this one's variables or directory",
      { shell: 'session' },
    );
  }
  let note: string | undefined;
  const dir = end.cwd === undefined ? undefined : sandboxDir(ctx.sandbox, end.cwd);
  setDir(dir === '.' ? undefined : dir, end.cwd);
  if (end.shellEnded) {
    note =
      "[the session's shell ended with this command: the next command starts a new shell in the workspace root, without this one's variables or directory]";
  } else if (end.cwd !== undefined && dir === undefined) {
    note = `[the shell's directory ${end.cwd} is not open to tools: the next command runs in the workspace root]`;
  }
  return output.result({ ...end, timeoutMs, note }, ctx.outputLimit, {
    shell: 'session',
    ...(dir ? { cwd: dir } : {}),
  });
}

/**
 * The shell's directory as the sandbox takes paths (relative to the first root, or absolute where
 * `allow_absolute` is on), or undefined when the sandbox would not let a call work there.
 */
function sandboxDir(sandbox: Sandbox, absolute: string): string | undefined {
  const rel = path.relative(sandbox.roots[0] ?? '/', absolute);
  const inFirst = rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  const candidate = inFirst ? rel || '.' : sandbox.allowAbsolute ? absolute : undefined;
  if (candidate === undefined) return undefined;
  try {
    sandbox.resolve(candidate);
    return candidate;
  } catch {
    return undefined;
  }
}
