import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { orphanBatches } from '../helpers/orphan-batches.js';
import { makeTempDir, useWorkspace } from '../helpers/workspace.js';
import { REPO, runCli, trustProject } from './run-cli.js';

/** Issue #12: what a newcomer meets in the first hour, through the real CLI. */
describe('a newcomer’s first hour (issue #12)', () => {
  const ws = useWorkspace();
  const exec = (calls: unknown, args: string[] = [], cwd = ws.dir()) =>
    runCli(['exec', ...args], { cwd, input: typeof calls === 'string' ? calls : JSON.stringify(calls) });

  it('a mistyped --root is a one-line error (exit 2) for every command, and nothing is created', () => {
    const missing = path.join(ws.dir(), 'no-such-dir');
    const file = path.join(ws.dir(), 'file.txt');
    writeFileSync(file, 'x');
    const commands = [
      ['tools'],
      ['policy', 'explain', 'read_file', '{"path":"a"}'],
      ['exec'],
      ['exec', '--no-journal'],
      ['mcp'],
      ['run', 'hi', '--provider', 'openai', '--model', 'm'],
      ['recover'],
      ['journal', 'list'],
    ];
    for (const command of commands) {
      for (const root of [missing, file]) {
        const run = runCli([...command, '--root', root], { cwd: ws.dir(), input: '[]' });
        expect(run.status, command.join(' ')).toBe(2);
        expect(run.stderr).toMatch(/^toolgate: --root ".*" (does not exist|is not a directory)/);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
      }
    }
    expect(existsSync(missing)).toBe(false);
  });

  it('a config whose allowed_roots do not exist names the file, line and key', () => {
    ws.file('toolgate.toml', '[tools.sandbox]\nallowed_roots = ["./nope"]\n');
    const run = exec([]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /toolgate\.toml:2 at tools\.sandbox\.allowed_roots: "\.\/nope" does not exist/,
    );
  });

  it('an unusable --journal path fails at once (no endless loop), saying what to do', () => {
    const started = Date.now();
    const run = exec([], ['--journal', '/proc/nope/j.db']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--journal \/proc\/nope\/j\.db: the folder \/proc\/nope does not exist/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('stdin: empty input says so; calls are counted from 1; an empty batch runs and journals nothing', () => {
    expect(exec('').stderr).toMatch(/^toolgate: stdin is empty; send a JSON array of tool calls/);
    expect(exec('  \n').status).toBe(2);
    const noId = exec([{ id: 'a', name: 'read_file' }, { name: 'read_file' }]);
    expect(noId.status).toBe(2);
    expect(noId.stderr).toMatch(/call 2 has no string "id"/);
    const empty = exec([]);
    expect(empty.status).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    expect(JSON.parse(runCli(['journal', 'list', '--json'], { cwd: ws.dir() }).stdout)).toEqual([]);
  });

  it('a denial from exec says why nobody approved it, why it was asked, and the config line that allows it', () => {
    const [result] = JSON.parse(
      exec([{ id: '1', name: 'write_file', arguments: { path: 'x', content: 'y' } }]).stdout,
    );
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/--approve none \(the default when not at a terminal\)/);
    expect(result.content).toMatch(/because "write_file" has side effects .*prompt_side_effects/);
    expect(result.content).toContain(
      'add "write_file" to [tools.approval] allowlist in toolgate.toml (none is in use: create toolgate.toml in the workspace root)',
    );
    expect(result.metadata.denial).toMatchObject({
      kind: 'not_approved',
      rule: 'tools.approval.prompt_side_effects',
    });
    expect(existsSync(path.join(ws.dir(), 'x'))).toBe(false);

    // With the line it names in that file, once the file is trusted, the same call runs.
    ws.file('toolgate.toml', '[tools.approval]\nallowlist = ["write_file"]\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const [again] = JSON.parse(
      exec([{ id: '1', name: 'write_file', arguments: { path: 'x', content: 'y' } }]).stdout,
    );
    expect(again.ok).toBe(true);
  });

  it('run_command denied by the built-in denylist says to write denylist = [] (there is no line to remove)', () => {
    const [result] = JSON.parse(
      exec([{ id: '1', name: 'run_command', arguments: { command: 'ls' } }]).stdout,
    );
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(
      /it is there by default: write denylist = \[\] to allow commands by \[tools.run_command\] rules/,
    );
    // issue #31 §1: the fix first (hosts shorten results), the why after it.
    expect(result.content).toMatch(
      /^run_command failed: denied by policy\. To allow it: take "run_command" off .*\. Why: /,
    );
  });

  it('issue #31 §1: a policy denial names the config file without the absolute path of this machine, in the text and in metadata.denial', () => {
    ws.file('toolgate.toml', '[tools.approval]\ndenylist = ["write_file"]\n');
    trustProject(ws.dir());
    const [result] = JSON.parse(
      exec([{ id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }]).stdout,
    );
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/\(tools\.approval\.denylist in toolgate\.toml\)$/);
    expect(JSON.stringify(result)).not.toContain(ws.dir());
    expect(result.metadata.denial.file).toBe('toolgate.toml');
  });

  it('a run_command denial names the command rule that asked and where to allow it', () => {
    ws.file('toolgate.toml', '[tools.approval]\ndenylist = []\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const [result] = JSON.parse(
      exec([{ id: '1', name: 'run_command', arguments: { command: 'rm -rf x' } }]).stdout,
    );
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/not covered by an allow rule: `rm -rf x` \(tools\.run_command\.allow\)/);
    expect(result.content).toContain('[tools.run_command] allow in toolgate.toml in the workspace root');
    // issue #31 §1: no absolute path of this machine in what the model reads.
    expect(result.content).not.toContain(ws.dir());
  });

  it('policy explain shows the policy decision even for arguments that do not validate, with the problem beside it', () => {
    const text = runCli(['policy', 'explain', 'write_file', '{"path":"x"}'], { cwd: ws.dir() });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^write_file: ASK\n {2}reason: "write_file" has side effects/);
    expect(text.stdout).toMatch(/rule: {3}tools\.approval\.prompt_side_effects/);
    expect(text.stdout).toMatch(
      /note: {3}invalid arguments: .*"content".*refused with BadArgs before policy/,
    );
    const json = JSON.parse(
      runCli(['policy', 'explain', 'write_file', '{"path":"/etc/x"}', '--json'], { cwd: ws.dir() }).stdout,
    );
    expect(json).toMatchObject({
      outcome: 'deny',
      rule: 'tools.sandbox',
      argumentsProblem: { errorType: 'BadArgs' },
    });
    ws.file('toolgate.toml', '[tools.approval]\nallowlist = ["write_file"]\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const allowed = JSON.parse(
      runCli(['policy', 'explain', 'write_file', '{"path":"x"}', '--json'], { cwd: ws.dir() }).stdout,
    );
    expect(allowed).toMatchObject({ outcome: 'allow', rule: 'tools.approval.allowlist' });
  });

  it('the project’s toolgate.toml in --root applies when toolgate runs from another directory (MCP hosts)', () => {
    const project = ws.dir();
    ws.file('toolgate.toml', '[tools.approval]\nallowlist = ["write_file"]\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const elsewhere = makeTempDir('toolgate-cwd-');
    const [result] = JSON.parse(
      exec(
        [{ id: '1', name: 'write_file', arguments: { path: 'w.txt', content: 'w' } }],
        ['--root', project],
        elsewhere,
      ).stdout,
    );
    expect(result.ok).toBe(true);
    expect(existsSync(path.join(project, 'w.txt'))).toBe(true);
    // The config file in use is named by `config check`, and the tools cannot touch it.
    const checked = JSON.parse(runCli(['config', 'check', '--root', project], { cwd: elsewhere }).stdout);
    expect(checked.file).toBe(path.join(project, 'toolgate.toml'));
    const [edit] = JSON.parse(
      exec(
        [{ id: '1', name: 'read_file', arguments: { path: 'toolgate.toml' } }],
        ['--root', project],
        elsewhere,
      ).stdout,
    );
    expect(edit.error.type).toBe('SandboxViolation');
  });

  it("with --root, the project's own toolgate.toml wins over one in the current directory", () => {
    const project = ws.dir();
    ws.file('toolgate.toml', '[tools.approval]\ndenylist = ["run_command", "write_file"]\n');
    const elsewhere = makeTempDir('toolgate-cwd-');
    writeFileSync(
      path.join(elsewhere, 'toolgate.toml'),
      '[tools.approval]\nallowlist = ["write_file"]\ndenylist = []\n',
    );
    const checked = JSON.parse(runCli(['config', 'check', '--root', project], { cwd: elsewhere }).stdout);
    expect(checked.file).toBe(path.join(project, 'toolgate.toml'));
    const [r] = JSON.parse(
      exec(
        [{ id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }],
        ['--root', project],
        elsewhere,
      ).stdout,
    );
    expect(r.error.type).toBe('Denied');
    expect(r.content).toMatch(/denylist/);
    // Without --root, the current directory's file is the one (DESIGN §2.2).
    expect(JSON.parse(runCli(['config', 'check'], { cwd: elsewhere }).stdout).file).toBe(
      path.join(elsewhere, 'toolgate.toml'),
    );
  });

  it('looking at the journal creates nothing; .toolgate/ ignores itself in git', () => {
    for (const command of [
      ['journal', 'list'],
      ['recover'],
      ['recover', '--json'],
      ['journal', 'list', '--json'],
    ]) {
      const run = runCli(command, { cwd: ws.dir() });
      expect(run.status, command.join(' ')).toBe(0);
    }
    expect(runCli(['journal', 'list'], { cwd: ws.dir() }).stdout).toMatch(/No journal at .* yet/);
    expect(runCli(['journal', 'show', 'abc'], { cwd: ws.dir() }).status).toBe(2);
    expect(readdirSync(ws.dir())).toEqual([]);

    execFileSync('git', ['init', '-q'], { cwd: ws.dir() });
    ws.file('a.txt', 'A');
    execFileSync('git', ['add', 'a.txt'], { cwd: ws.dir() });
    expect(exec([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]).status).toBe(0);
    expect(existsSync(path.join(ws.dir(), '.toolgate', 'journal.db'))).toBe(true);
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: ws.dir(),
      encoding: 'utf8',
    });
    expect(status).toBe('A  a.txt\n');
  });

  it('recovery views: never-run calls are not_run, discard says what is known, ids by prefix, twice is a clear error', () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    mkdirSync(path.dirname(file));
    const journal = SqliteJournal.open(file);
    const calls = ['ran', 'running', 'never'].map((id) => ({ id, name: 'read_file', arguments: {} }));
    const resumeId = journal.beginBatch('s', calls);
    const discardId = journal.beginBatch('s', calls);
    for (const id of [resumeId, discardId]) {
      journal.markRunning(id, 0);
      journal.recordResult(id, 0, {
        id: 'ran',
        name: 'read_file',
        ok: true,
        content: 'x',
        error: null,
        latencyMs: 1,
      });
      journal.markRunning(id, 1);
    }
    journal.close();
    orphanBatches(file); // as if left by a toolgate that died

    const resumed = JSON.parse(
      runCli(['recover', '--resume', resumeId.slice(0, 8)], { cwd: ws.dir() }).stdout,
    );
    expect(resumed.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, false]);
    const shown = runCli(['journal', 'show', resumeId.slice(0, 8)], { cwd: ws.dir() }).stdout;
    expect(shown).toMatch(/1\. read_file \(id ran\) \[done\]/);
    expect(shown).toMatch(/2\. read_file \(id running\) \[unknown\]/);
    expect(shown).toMatch(/3\. read_file \(id never\) \[not_run\]/);

    const discarded = JSON.parse(runCli(['recover', '--discard', discardId], { cwd: ws.dir() }).stdout);
    expect(discarded.map((r: { error: { message: string } }) => r.error.message.split(' (')[0])).toEqual([
      'result discarded during recovery',
      'result discarded during recovery',
      'not executed: its batch was discarded during recovery before it started',
    ]);
    expect(discarded[0].error.message).toMatch(/the call ran;/);
    expect(discarded[1].error.message).toMatch(/may have run/);
    expect(discarded[2].error.message).toMatch(/it never ran/);

    for (const again of [
      ['--resume', resumeId],
      ['--discard', resumeId],
    ]) {
      const run = runCli(['recover', ...again], { cwd: ws.dir() });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^toolgate: batch .* is already resumed: only incomplete batches/);
      expect(run.stderr).not.toMatch(/internal error/);
    }
    const list = runCli(['journal', 'list'], { cwd: ws.dir() }).stdout;
    expect(list).toMatch(/resumed +3 call\(s\), 2 failed/);
    expect(list).toMatch(/discarded +3 call\(s\), 3 failed/);
  });

  it('a background job from exec says it ends with exec; a later exec is told why the job is gone', () => {
    ws.file('toolgate.toml', '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sleep"]\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const started = Date.now();
    const [job] = JSON.parse(
      exec([{ id: '1', name: 'run_command', arguments: { command: 'sleep 30', background: true } }]).stdout,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(job.ok).toBe(true);
    expect(job.content).toMatch(/started background job job-1 \(pid \d+\)/);
    expect(job.content).toMatch(/for `toolgate exec` or `toolgate run`, only until it prints its results/);
    const pid = Number(/pid (\d+)/.exec(job.content)?.[1]);
    // The job died with exec, as it said (gone, or a zombie waiting for whoever reaps orphans here).
    const state = existsSync(`/proc/${pid}/stat`)
      ? readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
      : 'gone';
    expect(['gone', 'Z']).toContain(state);
    const [later] = JSON.parse(
      exec([{ id: '2', name: 'read_job_output', arguments: { id: 'job-1' } }]).stdout,
    );
    expect(later.error.type).toBe('NotFound');
    expect(later.content).toMatch(/jobs end with the process that started them/);
  });

  it('the package ships the library, the CLI and a LICENSE, and no tests or snapshots', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {
        cwd: REPO,
        encoding: 'utf8',
      }),
    ) as [{ files: { path: string }[] }];
    const files = pack.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/toolgate.js',
        'dist/index.js',
        'docs/GETTING-STARTED.md',
        'docs/SECURITY.md',
        'dist/index.d.ts',
      ]),
    );
    expect(files.filter((f) => /\.test\.|__snapshots__|^test\//.test(f))).toEqual([]);
  });

  it('a full or closed stdout and a port in use are one-line errors, not stack traces', async () => {
    const full = spawnSync(process.execPath, [path.join(REPO, 'bin/toolgate.js'), 'exec', '--no-journal'], {
      cwd: ws.dir(),
      input: '[{"id":"1","name":"list_directory","arguments":{"path":"."}}]',
      stdio: ['pipe', openSync('/dev/full', 'w'), 'pipe'],
      encoding: 'utf8',
    });
    expect(full.status).toBe(2);
    expect(full.stderr).toMatch(/^toolgate: could not write the results to stdout \(ENOSPC\)/);
    expect(full.stderr.trim().split('\n')).toHaveLength(1);

    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const run = runCli(['mcp', '--http', `127.0.0.1:${port}`, '--no-journal'], { cwd: ws.dir() });
    busy.close();
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `toolgate: port ${port} on 127.0.0.1 is in use by another program; pick another with --http 127.0.0.1:PORT\n`,
    );
  });

  it('arguments refused as too large are not stored in the journal either', () => {
    const big = 'x'.repeat(2_000_000);
    const [r] = JSON.parse(
      exec([{ id: '1', name: 'write_file', arguments: { path: 'big.txt', content: big } }]).stdout,
    );
    expect(r.error.type).toBe('LimitExceeded');
    const journal = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
    try {
      const [batch] = journal.recentBatches(1);
      const call = batch ? journal.batch(batch.id)?.calls[0] : undefined;
      expect(JSON.stringify(call?.arguments)).toMatch(
        /2000\d+ bytes of arguments, over max_tool_args_bytes; not stored/,
      );
      expect(JSON.stringify(journal.batch(batch?.id ?? '')).length).toBeLessThan(10_000);
    } finally {
      journal.close();
    }
  });

  it('a tool name in the config that names no tool is a config error with the likely one', () => {
    ws.file('toolgate.toml', '[tools.approval]\ndenylist = ["run_comand"]\nallowlist = ["mcp_*"]\n');
    // config check runs the same check (issue #31 §3: it exited 0 where every other command exits 2).
    for (const command of [
      ['exec'],
      ['mcp'],
      ['tools'],
      ['policy', 'explain', 'read_file'],
      ['config', 'check'],
    ]) {
      const run = runCli(command, { cwd: ws.dir(), input: '[]' });
      expect(run.status, command.join(' ')).toBe(2);
      expect(run.stderr).toMatch(
        /toolgate\.toml:2 at tools\.approval\.denylist\.0: "run_comand" is not a tool here \(did you mean "run_command"\?\)/,
      );
    }
    ws.file('toolgate.toml', '[[tools.policy.rules]]\ntool = "write_fil"\naction = "allow"\n');
    expect(runCli(['tools'], { cwd: ws.dir() }).stderr).toMatch(
      /toolgate\.toml:2 at tools\.policy\.rules\.0\.tool: "write_fil"/,
    );
  });

  it('with two roots, an absolute path into the second says how to reach it (allow_absolute)', () => {
    const second = makeTempDir('toolgate-second-');
    writeFileSync(path.join(second, 'b.txt'), 'B');
    const call = [{ id: '1', name: 'read_file', arguments: { path: path.join(second, 'b.txt') } }];
    const [refused] = JSON.parse(exec(call, ['--root', ws.dir(), '--root', second]).stdout);
    expect(refused.content).toMatch(
      /relative paths start in the first root, so to reach the others set \[tools.sandbox\] allow_absolute = true/,
    );
    ws.file('toolgate.toml', '[tools.sandbox]\nallow_absolute = true\n');
    trustProject(ws.dir()); // a project's own config applies in full once trusted (issue #29 §6)
    const [read] = JSON.parse(exec(call, ['--root', ws.dir(), '--root', second]).stdout);
    expect(read.content).toBe('B');
  });

  it('recovery leaves alone a batch whose toolgate is still running (waiting at a prompt is not a crash)', () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = SqliteJournal.open(file); // this test process: alive, like a toolgate waiting
    const id = journal.beginBatch('s', [
      { id: 'w', name: 'write_file', arguments: { path: 'x', content: 'y' } },
    ]);
    try {
      // Listed as running there, never hidden (issue #31 §3), and left alone.
      expect(JSON.parse(runCli(['recover', '--json'], { cwd: ws.dir() }).stdout)).toMatchObject([
        { id, state: 'running', holder: { pid: process.pid } },
      ]);
      const discard = runCli(['recover', '--discard', id], { cwd: ws.dir() });
      expect(discard.status).toBe(2);
      expect(discard.stderr).toMatch(
        /the toolgate that is running it \(pid \d+ on this machine; it is waiting for a person or for its calls, not interrupted\)/,
      );
      expect(journal.batch(id)?.status).toBe('open');
    } finally {
      journal.close();
    }
  });

  it('a project grant is journaled and explained as the grant, not as the approval mode', () => {
    const file = path.join(ws.dir(), '.toolgate', 'journal.db');
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = SqliteJournal.open(file);
    // A grant as narrow as what was shown (issue #30 §5): this one file.
    const g = path.join(realpathSync(ws.dir()), 'g.txt');
    journal.addGrant({
      tool: 'write_file',
      covers: { kind: 'paths', paths: [g], shown: ['g.txt'] },
      scope: 'project',
      createdAt: Date.now(),
    });
    journal.close();
    const [r] = JSON.parse(
      exec([{ id: '1', name: 'write_file', arguments: { path: 'g.txt', content: 'g' } }]).stdout,
    );
    expect(r.ok).toBe(true);
    const list = JSON.parse(runCli(['journal', 'list', '--json'], { cwd: ws.dir() }).stdout);
    const shown = runCli(['journal', 'show', list[0].id], { cwd: ws.dir() }).stdout;
    expect(shown).toMatch(/decision: allow by grant \(always allow\) in the journal/);
    const explained = JSON.parse(
      runCli(['policy', 'explain', 'write_file', '{"path":"g.txt","content":"h"}', '--json'], {
        cwd: ws.dir(),
      }).stdout,
    );
    expect(explained).toMatchObject({ outcome: 'allow', rule: 'grant (always allow)' });
  });

  it('toolgate mcp answers the calls already sent, then exits 0 when its stdin closes', async () => {
    ws.file('a.txt', 'hello\n');
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'a.txt' } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'grep', arguments: { pattern: 'hello' } },
      },
    ];
    const child = spawn(process.execPath, [path.join(REPO, 'bin/toolgate.js'), 'mcp', '--root', ws.dir()], {
      cwd: makeTempDir('toolgate-cwd-'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdin.end(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    const ids = out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id)
      .sort();
    expect(ids).toEqual([1, 2, 3]);
  });
});
