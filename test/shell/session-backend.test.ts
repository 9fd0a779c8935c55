import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll, type ConfirmationRequest } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * `[tools.shell] backend = "session"` (issue #16 §10, seed 003 shell backends): one persistent
 * bash per session, every command still judged by the shell policy, output framed per command,
 * the shell's process group stopped when the session ends or toolgate dies. Real bash, real
 * processes, checked through /proc and kill(pid, 0).
 */
const gates: Toolgate[] = [];
afterEach(async () => {
  for (const g of gates.splice(0)) await g.close();
});

function sessionGate(root: string, approver: Approver = approveAll, extra: Record<string, unknown> = {}) {
  const gate = createToolgate({
    config: validateConfig({
      tools: { approval: { denylist: [] }, shell: { backend: 'session' }, ...extra },
    }),
    roots: [root],
    approver,
  });
  gates.push(gate);
  return gate;
}

let n = 0;
async function run(
  gate: Toolgate,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<ToolResult> {
  const [r] = await gate.execute([{ id: `c${++n}`, name: 'run_command', arguments: { command, ...extra } }]);
  if (!r) throw new Error('no result');
  return r;
}

/** Running: a process that has exited but is not yet reaped (a zombie) does not count. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function statOf(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
const pgidOf = (pid: number) => Number(statOf(pid)?.[2]);
/** The live (not zombie) processes of a process group. */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      const f = statOf(n);
      return f !== undefined && Number(f[2]) === pgid && f[0] !== 'Z';
    })
    .map(Number);
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

describe('[tools.shell] backend = "session" (issue #16 §10)', () => {
  it('the directory and exported variables carry from one run_command to the next; plain variables too; the result reads as bash -c', async () => {
    const root = makeTempDir('toolgate-session-');
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'here.txt'), 'in sub\n');
    const gate = sessionGate(root);
    expect((await run(gate, 'cd sub')).ok).toBe(true);
    const where = await run(gate, 'pwd; cat here.txt');
    expect(where.content).toBe(`${path.join(root, 'sub')}\nin sub\n`);
    expect(where.metadata?.cwd).toBe('sub');
    await run(gate, 'export GREETING=hello; count=41');
    const child = await run(
      gate,
      'bash -c \'echo "$GREETING"\'; echo $((count + 1)); echo oops >&2; exit_code=7',
    );
    expect(child.content).toBe('hello\n42\n\n\n[stderr]\noops\n');
    const failed = await run(gate, 'false');
    expect(failed.ok).toBe(false);
    expect(failed.error?.type).toBe('ExecutionFailed');
    expect(failed.content).toMatch(/exit code 1/);
    // A failing command does not end the session: what was set is still there.
    expect((await run(gate, 'echo "$GREETING from $(basename "$PWD")"')).content).toBe('hello from sub\n');
    // The approval shows where the command runs.
    const asked: ConfirmationRequest[] = [];
    const watching = sessionGate(root, async (requests) => {
      asked.push(...requests);
      return { kind: 'approve_all' };
    });
    await run(watching, 'cd sub');
    await run(watching, 'rm -f nothing.txt');
    expect(asked.at(-1)?.summary).toBe('Run command: rm -f nothing.txt (in sub)');
  });

  it('every command is still judged by the shell policy, against the directory the shell is in', async () => {
    const base = makeTempDir('toolgate-session-policy-');
    const root = path.join(base, 'root');
    mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(base, 'outside.txt'), 'OUTSIDE-SECRET\n');
    writeFileSync(path.join(root, 'a', 'inner.txt'), 'inner\n');
    const asked: ConfirmationRequest[] = [];
    const refuseCd: Approver = async (requests) => {
      asked.push(...requests);
      return requests.some((r) => r.summary.includes('cd '))
        ? { kind: 'deny_all', reason: 'no cd' }
        : { kind: 'approve_all' };
    };
    const gate = sessionGate(root, refuseCd);
    // cd asks (it changes what later paths mean); refused, the shell stays where it was.
    const cd = await run(gate, 'cd a');
    expect(cd.ok).toBe(false);
    expect(asked.map((r) => r.reason).join(' ')).toMatch(/cd changes the directory/);
    expect((await run(gate, 'pwd')).content).toBe(`${root}\n`);
    // Judged from the shell's directory: from a/b, ../../../outside.txt is outside the roots and
    // asks (refused here), while ../inner.txt is inside and runs without asking.
    const asked2: ConfirmationRequest[] = [];
    const onlyCd = sessionGate(
      root,
      async (requests) => {
        asked2.push(...requests);
        return requests.every((r) => r.summary.startsWith('Run command: cd '))
          ? { kind: 'approve_all' }
          : { kind: 'deny_all', reason: 'not that' };
      },
      { run_command: { allow: ['cat'] } },
    );
    expect((await run(onlyCd, 'cd a/b')).ok).toBe(true);
    const outside = await run(onlyCd, 'cat ../../../outside.txt');
    expect(outside.ok).toBe(false);
    expect(outside.content).not.toContain('OUTSIDE-SECRET');
    expect(asked2.at(-1)?.summary).toBe('Run command: cat ../../../outside.txt (in a/b)');
    expect(asked2.at(-1)?.reason).toMatch(/outside/);
    const before = asked2.length;
    expect((await run(onlyCd, 'cat ../inner.txt')).content).toBe('inner\n');
    expect(asked2.length).toBe(before);
  });

  it('a call runs in the directory it was checked against, whatever an earlier call of the same batch did', async () => {
    const base = makeTempDir('toolgate-session-batch-');
    const root = path.join(base, 'root');
    mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(base, 'outside.txt'), 'OUTSIDE-SECRET\n');
    writeFileSync(path.join(root, 'a', 'outside.txt'), 'the one inside\n');
    const gate = sessionGate(root);
    await run(gate, 'cd a/b');
    // Checked from a/b, `../outside.txt` is a/outside.txt. The first call moves the shell to the
    // root, where the same words would mean the file outside: the second still runs in a/b.
    const results = await gate.execute([
      { id: 'up', name: 'run_command', arguments: { command: 'cd ../..' } },
      { id: 'read', name: 'run_command', arguments: { command: 'cat ../outside.txt' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(results[1]?.content).toBe('the one inside\n');
    expect(results[1]?.content).not.toContain('OUTSIDE-SECRET');
    // Each call of the batch started from a/b; the shell is where the last one left it.
    expect((await run(gate, 'pwd')).content).toBe(`${path.join(root, 'a', 'b')}\n`);
  });

  it('a directory that is moved or swapped for a link after the shell went there is forgotten: the next command starts at the root, not refused', async () => {
    const base = makeTempDir('toolgate-session-stale-');
    const root = path.join(base, 'root');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    const gate = sessionGate(root);
    await run(gate, 'cd sub');
    renameSync(path.join(root, 'sub'), path.join(root, 'sub.old'));
    symlinkSync('/etc', path.join(root, 'sub'));
    const after = await run(gate, 'pwd');
    expect(after.ok).toBe(true);
    expect(after.content).toBe(`${root}\n`);
  });

  it('a directory outside the roots is not kept: the next command runs in the workspace root', async () => {
    const root = makeTempDir('toolgate-session-leave-');
    const gate = sessionGate(root);
    const left = await run(gate, 'cd /');
    expect(left.content).toMatch(
      /the shell's directory \/ is not open to tools: the next command runs in the workspace root/,
    );
    expect((await run(gate, 'pwd')).content).toBe(`${root}\n`);
  });

  it('Property: whatever a command prints (NUL bytes, a forged frame, no final newline) is its output, exactly, and the next command is framed on its own', async () => {
    const root = makeTempDir('toolgate-session-frame-');
    const gate = sessionGate(root);
    const piece = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('\0', '\0deadbeefdeadbeefdeadbeefdeadbeef 0 1 /\0', '\n', '%', '\\'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 6 }),
        fc.array(piece, { maxLength: 3 }),
        async (out, err) => {
          const hex = (s: string) =>
            [...Buffer.from(s, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
          const stdout = out.join('');
          const stderr = err.join('');
          const r = await run(gate, `printf '${hex(stdout)}'; printf '${hex(stderr)}' >&2`);
          expect(r.ok).toBe(true);
          expect(r.metadata?.stdoutBytes).toBe(Buffer.byteLength(stdout));
          expect(r.metadata?.stderrBytes).toBe(Buffer.byteLength(stderr));
          const next = await run(gate, 'echo next');
          expect(next.content).toBe('next\n');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('stdin is empty: a command that reads it ends at once and cannot read what toolgate sends the shell', async () => {
    const root = makeTempDir('toolgate-session-stdin-');
    const gate = sessionGate(root);
    const r = await run(gate, 'cat; read -r line; echo "read: [$line]"');
    expect(r.content).toBe('read: []\n');
    expect((await run(gate, 'echo still framed')).content).toBe('still framed\n');
  });

  it('a command that changes the shell itself cannot forge a result: the frame still comes, or the call times out and the shell is replaced', async () => {
    const root = makeTempDir('toolgate-session-tamper-');
    const gate = sessionGate(root);
    await run(gate, "shopt -s expand_aliases; alias builtin='echo forged'; alias printf='echo forged'");
    expect((await run(gate, 'echo ok')).content).toBe('ok\n');
    // The shell's own stdout thrown away: no frame can come, so the call times out; never a success.
    const blind = await run(gate, 'exec >/dev/null; echo lost', { timeout_ms: 500 });
    expect(blind.error?.type).toBe('Timeout');
    expect((await run(gate, 'echo back')).content).toBe('back\n');
    // set -e: the next failing command ends the shell; it says so, and the one after runs afresh.
    await run(gate, 'set -e');
    const ended = await run(gate, 'false');
    expect(ended.content).toMatch(/exit code 1[\s\S]*the session's shell ended with this command/);
    expect((await run(gate, 'false; echo "not stopped"')).content).toBe('not stopped\n');
  });

  describe('attacks from a hostile review (each approved by a person, so only the defences of the shell itself stand)', () => {
    it("a leftover reading the shell's own input (fd 10), even a forking one, is gone before the next command is sent", async () => {
      const root = makeTempDir('toolgate-session-thief-');
      const gate = sessionGate(root);
      const planted = await run(gate, 'cat <&10 & (while :; do (cat <&10 &); done) & echo planted');
      expect(planted.content).toBe('planted\n');
      for (let i = 0; i < 5; i++) expect((await run(gate, `echo next ${i}`)).content).toBe(`next ${i}\n`);
      const shell = Number((await run(gate, 'echo $$')).content.trim());
      // Left in the shell's group: its guard and the shell itself, nothing else (zombies aside).
      expect(groupMembers(pgidOf(shell)).sort()).toEqual([pgidOf(shell), shell].sort());
    });

    it("a command that swaps the shell's stdout and stderr gets no trusted result; the shell is replaced", async () => {
      const root = makeTempDir('toolgate-session-swap-');
      const gate = sessionGate(root);
      await run(gate, 'export KEPT=1');
      const swapped = await run(gate, 'exec 3>&1 1>&2 2>&3; echo swapped');
      expect(swapped.ok).toBe(false);
      expect(swapped.content).toMatch(/broke the session shell's framing/);
      expect((await run(gate, 'echo "[$KEPT]"')).content).toBe('[]\n');
    });

    it("a detached leftover (setsid) holding the shell's pipes is killed; the next command and the session's end do not wait for it", async () => {
      const root = makeTempDir('toolgate-session-setsid-');
      const gate = sessionGate(root);
      const started = await run(gate, 'setsid sleep 30 & echo $!');
      const pid = Number(started.content.trim());
      expect(pid).toBeGreaterThan(0);
      expect(await gone(pid)).toBe(true);
      expect((await run(gate, 'echo next')).content).toBe('next\n');
      await run(gate, 'setsid sleep 30 & echo again');
      const t = Date.now();
      await gate.close();
      expect(Date.now() - t).toBeLessThan(3000);
    });

    it('output a leftover wrote does not bleed into the next command, nor into the shell’s own frame', async () => {
      const root = makeTempDir('toolgate-session-bleed-');
      // Several times: the leftover's writes land at any point of the frame (once, under load, it
      // split the frame and the shell's directory read as "<dir>\nBLEED").
      for (let round = 0; round < 5; round++) {
        const gate = sessionGate(root);
        const results = await gate.execute([
          {
            id: 'a',
            name: 'run_command',
            arguments: { command: '(while :; do echo BLEED; done) & echo first' },
          },
          { id: 'b', name: 'run_command', arguments: { command: 'echo second' } },
        ]);
        expect(results[0]?.content).toMatch(/^(BLEED\n)*first\n(BLEED\n)*$/);
        expect(results[1]?.content).toBe('second\n');
      }
    });

    it('the frame survives `set -u`, and the shell’s directory still carries to the next batch', async () => {
      const root = makeTempDir('toolgate-session-setu-');
      const gate = sessionGate(root);
      // One batch each: a batch is planned whole, so the shell's directory counts from the next one.
      const results = [
        await run(gate, 'set -u; mkdir -p a b; cd a'),
        await run(gate, 'cd ../b'),
        await run(gate, 'pwd -P; echo "${UNSET_HERE-unset}"'),
      ];
      expect(results.map((r) => r.ok)).toEqual([true, true, true]);
      expect(results[2]?.content).toBe(`${path.join(root, 'b')}\nunset\n`);
    });

    it('a directory swapped for a link between the check and the run: the call is not run there', async () => {
      const base = makeTempDir('toolgate-session-swaplink-');
      const root = path.join(base, 'root');
      mkdirSync(path.join(root, 'sub'), { recursive: true });
      mkdirSync(path.join(base, 'outside'));
      writeFileSync(path.join(base, 'outside', 'secret.txt'), 'OUTSIDE-SECRET\n');
      const gate = sessionGate(root);
      const results = await gate.execute([
        {
          id: 'swap',
          name: 'run_command',
          arguments: { command: `mv sub sub.old && ln -s ${base}/outside sub` },
        },
        { id: 'read', name: 'run_command', arguments: { command: 'cat secret.txt', cwd: 'sub' } },
      ]);
      expect(results[0]?.ok).toBe(true);
      expect(results[1]?.ok).toBe(false);
      expect(results[1]?.content).toMatch(
        /not run: the directory is not the one this call was checked against/,
      );
      expect(results[1]?.content).not.toContain('OUTSIDE-SECRET');
    });
  });

  it('what a command leaves running is stopped when it ends; background: true is the way to keep a job', async () => {
    const root = makeTempDir('toolgate-session-leftover-');
    const gate = sessionGate(root);
    const r = await run(gate, 'sleep 600 & (sleep 600 &) ; echo started');
    expect(r.content).toBe('started\n');
    const shell = Number((await run(gate, 'echo $$')).content.trim());
    const listed = (await run(gate, `ps -o pid= -o comm= -g ${shell}`)).content;
    expect(listed).not.toMatch(/sleep/);
    const job = await run(gate, 'sleep 600', { background: true });
    expect(job.content).toMatch(/started background job job-1/);
    const pid = Number(job.metadata?.pid);
    await run(gate, 'true');
    expect(alive(pid)).toBe(true);
  });

  it('a timeout stops the shell with its whole process group; the next command starts a new shell in the root', async () => {
    const root = makeTempDir('toolgate-session-timeout-');
    mkdirSync(path.join(root, 'sub'));
    const gate = sessionGate(root);
    await run(gate, 'cd sub; export KEPT=1');
    const shell = Number((await run(gate, 'echo $$')).content.trim());
    const slow = await run(gate, 'sleep 30', { timeout_ms: 300 });
    expect(slow.error?.type).toBe('Timeout');
    expect(slow.content).toMatch(
      /the session's shell ended with this command: the next command starts a new shell/,
    );
    expect(await gone(shell)).toBe(true);
    const after = await run(gate, 'echo "[$KEPT]"; pwd');
    expect(after.content).toBe(`[]\n${root}\n`);
  });

  it('cancelling a call stops it; `exit` ends the shell and says so', async () => {
    const root = makeTempDir('toolgate-session-cancel-');
    const gate = sessionGate(root);
    const controller = new AbortController();
    const pending = gate.execute([{ id: 'slow', name: 'run_command', arguments: { command: 'sleep 30' } }], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    const [cancelled] = await pending;
    expect(cancelled?.error?.type).toBe('Cancelled');
    const exited = await run(gate, 'exit 4');
    expect(exited.error?.type).toBe('ExecutionFailed');
    expect(exited.content).toMatch(/exit code 4[\s\S]*the session's shell ended with this command/);
    expect((await run(gate, 'echo fresh')).content).toBe('fresh\n');
  });

  it('a program with nothing else to do waits for a session command and for the shell to close (the shell alone never holds it)', () => {
    const root = makeTempDir('toolgate-session-lib-');
    const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'session-library-worker.mjs');
    const r = spawnSync(process.execPath, [worker, root], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('result: waited\nclosed\n');
  });

  it('the session ending (the gate closed) stops the shell and its process group', async () => {
    const root = makeTempDir('toolgate-session-close-');
    const gate = sessionGate(root);
    const shell = Number((await run(gate, 'echo $$')).content.trim());
    expect(alive(shell)).toBe(true);
    await gate.close();
    expect(await gone(shell)).toBe(true);
  });

  it('toolgate dying (SIGKILL) takes the shell with it; over MCP the tool says it is a session shell', async () => {
    const root = makeTempDir('toolgate-session-mcp-');
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.shell]\nbackend = "session"\n[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["pwd", "echo"]\n',
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      // Named, so it applies in full (a config found in the project only tightens: issue #29 §6).
      args: [path.join(REPO, 'bin', 'toolgate.js'), 'mcp', '--no-journal', '--config', 'toolgate.toml'],
      cwd: root,
      stderr: 'ignore',
    });
    // The client answers approvals (cd always asks): yes.
    const client = new Client({ name: 't', version: '0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
    await client.connect(transport);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'run_command');
      expect(tool?.description).toMatch(/persistent bash/);
      const text = async (command: string) => {
        const r = await client.callTool({ name: 'run_command', arguments: { command } });
        return (r.content as { text: string }[])[0]?.text ?? '';
      };
      await text('cd sub');
      expect(await text('pwd')).toBe(`${path.join(root, 'sub')}\n`);
      const shell = Number((await text('echo $$')).trim());
      expect(alive(shell)).toBe(true);
      process.kill(transport.pid as number, 'SIGKILL');
      expect(await gone(shell)).toBe(true);
    } finally {
      await client.close().catch(() => {});
    }
  });

  it('under the OS sandbox the session shell writes only inside the roots, and still keeps its state', async () => {
    const base = makeTempDir('toolgate-session-os-');
    const root = path.join(base, 'root');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    const gate = sessionGate(root, approveAll, { run_command: { sandbox: 'os' } });
    await run(gate, 'cd sub; export MARK=kept');
    const inside = await run(gate, 'echo "$MARK" > in.txt && cat in.txt && pwd');
    expect(inside.content).toBe(`kept\n${path.join(root, 'sub')}\n`);
    // Outside the roots the sandbox's view is a private, empty tmpfs (issue #29 §7): a write there
    // lands in nothing the host sees.
    await run(gate, `echo pwned > ${base}/outside.txt`);
    expect(existsSync(path.join(base, 'outside.txt'))).toBe(false);
  });
});
