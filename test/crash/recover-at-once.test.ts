import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { REPO, runCli, testConfigHome, trustProject } from '../cli/run-cli.js';
import { orphanBatches } from '../helpers/orphan-batches.js';
import { waitFor } from '../helpers/process-group.js';
import { useWorkspace } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const ws = useWorkspace();

/** Processes this test started (directly or through a toolgate), ended by their own pids afterwards. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A /proc/PID/stat field after the command name: 0 is the state (R, S, Z …). */
function stat(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The running (not zombie) `sleep` processes whose arguments hold `seconds`. */
function sleeping(seconds: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0]?.endsWith('sleep') && argv[1] === seconds && stat(pid)?.[0] !== 'Z';
      } catch {
        return false;
      }
    });
}

interface Listed {
  id: string;
  state: string;
  calls: { status: string }[];
  holder?: { pid?: number; host?: string; until?: string; take_over: boolean };
}

const recover = (...args: string[]) => runCli(['recover', ...args], { cwd: ws.dir() });
const listJson = (): Listed[] => JSON.parse(recover('--json').stdout);

/** A workspace whose trusted config lets `sleep` (and `setsid sleep`) run without asking. */
function commandsAllowed(): void {
  ws.file(
    'toolgate.toml',
    '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sleep", "setsid sleep"]\n',
  );
  trustProject(ws.dir());
}

/** Two commands: the first still runs when the test kills toolgate; the second never started. */
const batch = (first: string) =>
  JSON.stringify([
    { id: 'long', name: 'run_command', arguments: { command: first } },
    { id: 'after', name: 'run_command', arguments: { command: 'sleep 0' } },
  ]);

function startExec(first: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'exec', '--approve', 'none'], {
    cwd: ws.dir(),
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { ...process.env, XDG_CONFIG_HOME: testConfigHome() },
  });
  child.stdin?.end(batch(first));
  if (child.pid) started.push(child.pid);
  return child;
}

/** The takeover's results: the running command's outcome unknown, the unstarted one run now. */
function expectTakenOver(run: ReturnType<typeof recover>): void {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const results = JSON.parse(run.stdout) as { ok: boolean; error: { message: string } | null }[];
  expect(results.map((r) => r.ok)).toEqual([false, true]);
  expect(results[0]?.error?.message).toMatch(/outcome unknown/);
}

describe('issue #31 §3: right after a crash, recovery sees the batch at once (seed 000 §3.8)', () => {
  it('a toolgate exec SIGKILLed mid-batch, its command still running, is listed and taken over at once; while it ran, it was shown as running there, with its pid', async () => {
    commandsAllowed();
    // setsid: the command leaves toolgate's process group, so it outlives toolgate's death.
    const exec = startExec('setsid sleep 3131.31');
    const pid = exec.pid as number;
    expect(await waitFor(() => sleeping('3131.31').length > 0, 30_000)).toBe(true);
    const [sleeper] = sleeping('3131.31');
    started.push(sleeper as number);

    // Alive: listed as running there, never hidden, and left alone.
    const [live] = listJson();
    expect(live).toMatchObject({ state: 'running', holder: { pid, take_over: false } });
    expect(live?.calls.map((c) => c.status)).toEqual(['running', 'planned']);
    expect(Date.parse(live?.holder?.until ?? '')).toBeGreaterThan(0);
    expect(recover().stdout).toMatch(
      new RegExp(
        `still running in toolgate pid ${pid} on this machine, lease until .*: answer it there, or stop it \\(kill ${pid}\\)`,
      ),
    );
    for (const act of ['--take-over', '--discard', '--resume']) {
      const refused = recover(act, live?.id as string);
      expect(refused.status, act).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^toolgate: leave batch ${live?.id} to the toolgate that is running it \\(pid ${pid} on this machine;`,
        ),
      );
      expect(refused.stderr).toMatch(new RegExp(`stop that process \\(kill ${pid}\\) and run this again`));
    }

    exec.kill('SIGKILL');
    await once(exec, 'exit');
    // What toolgate started lives on: recovery must not take it for toolgate.
    expect(sleeping('3131.31')).toEqual([sleeper]);

    const [dead] = listJson();
    expect(dead).toEqual({
      id: live?.id,
      session: expect.any(String),
      calls: [
        { id: 'long', name: 'run_command', status: 'running' },
        { id: 'after', name: 'run_command', status: 'planned' },
      ],
      state: 'interrupted',
    });
    const text = recover().stdout;
    expect(text).toContain(`batch ${live?.id}`);
    expect(text).toMatch(/Act with: toolgate recover --resume ID \| --discard ID \| --take-over ID/);
    expectTakenOver(recover('--take-over', live?.id as string, '--approve', 'none'));
    expect(listJson()).toEqual([]);
  });

  it('a SIGKILLed toolgate its parent has not reaped yet (a zombie) is known dead: listed and taken over at once', async () => {
    commandsAllowed();
    const calls = ws.file('calls.json', batch('sleep 3232.32'));
    // A parent that never waits: sh starts toolgate, then becomes `sleep`, which reaps nobody.
    const parent = spawn(
      'sh',
      [
        '-c',
        '"$0" "$1" exec --approve none < "$2" > /dev/null 2>&1 & echo $!; exec sleep 600',
        process.execPath,
        BIN,
        calls,
      ],
      {
        cwd: ws.dir(),
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, XDG_CONFIG_HOME: testConfigHome() },
      },
    );
    started.push(parent.pid as number);
    const [line] = (await once(parent.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    started.push(pid);
    // Once the shell has become `sleep`, nobody reaps toolgate (the shell itself might have).
    const comm = () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim();
    expect(await waitFor(() => comm() === 'sleep', 30_000)).toBe(true);
    expect(await waitFor(() => sleeping('3232.32').length > 0, 30_000)).toBe(true);
    expect(listJson()[0]).toMatchObject({ state: 'running', holder: { pid } });

    process.kill(pid, 'SIGKILL');
    expect(await waitFor(() => stat(pid)?.[0] === 'Z', 30_000)).toBe(true);

    const [zombie] = listJson();
    expect(zombie).toMatchObject({ state: 'interrupted' });
    expect(zombie?.calls.map((c) => c.status)).toEqual(['running', 'planned']);
    expect(stat(pid)?.[0]).toBe('Z'); // still unreaped while recovery looked
    expectTakenOver(recover('--take-over', zombie?.id as string, '--approve', 'none'));
    parent.kill('SIGKILL');
    await once(parent, 'exit');
  });

  it("another machine's unexpired lease is shown as held, with who and until when; once it runs out the batch is free", () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = SqliteJournal.open(file);
    const worker = 'build-box-7:4242:123456:0b1c2d3e-0000-4000-8000-000000000000:4026531836';
    const id = journal.beginBatch(
      's',
      [{ id: 'w', name: 'write_file', arguments: { path: 'x', content: 'y' } }],
      {
        lease: { worker, ttlMs: 3_600_000 },
      },
    );
    journal.close();
    orphanBatches(file); // its own process is gone too: only the lease holds it

    const [held] = listJson();
    expect(held).toMatchObject({
      id,
      state: 'held',
      holder: { worker, pid: 4242, host: 'build-box-7', take_over: false },
    });
    const until = held?.holder?.until as string;
    expect(Date.parse(until)).toBeGreaterThan(Date.now());
    expect(recover().stdout).toContain(
      `  held by pid 4242 on host build-box-7 until ${until} (its lease): recover it after then if that worker has ended`,
    );
    const refused = recover('--take-over', id);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      `toolgate: run this again after ${until} if the worker holding batch ${id} (pid 4242 on host build-box-7) has ended: until then its lease says it runs there, and this machine cannot see that process\n`,
    );

    // The lease runs out (written as the clock would leave it): free to recover.
    const db = new Database(file);
    db.prepare('UPDATE batches SET lease_expires = ? WHERE id = ?').run(Date.now() - 1, id);
    db.close();
    expect(listJson()[0]).toMatchObject({ id, state: 'interrupted' });
    expect(recover('--discard', id).status).toBe(0);
  });
});
