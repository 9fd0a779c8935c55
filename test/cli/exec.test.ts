import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runExec } from '../../src/cli/exec-command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { useWorkspace } from '../helpers/workspace.js';
import { REPO, runCli } from './run-cli.js';

const parse = (stdout: string) => JSON.parse(stdout) as ToolResult[];

describe('toolgate exec (DESIGN §2.2)', () => {
  const ws = useWorkspace();

  it('the README example prints one ok result holding the README', () => {
    const run = runCli(['exec'], {
      input: '[{"id":"1","name":"read_file","arguments":{"path":"README.md"}}]',
    });
    expect(run.status).toBe(0);
    const results = parse(run.stdout);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: '1', name: 'read_file', ok: true, error: null });
    expect(results[0]?.content).toBe(readFileSync(path.join(REPO, 'README.md'), 'utf8'));
  });

  it('malformed stdin exits 2 with one line on stderr and nothing on stdout', () => {
    for (const input of [
      '{',
      '',
      '42',
      '{"calls":3}',
      '[{"id":1,"name":"x"}]',
      '[{"id":"1"}]',
      '[{"id":"1","name":"x","arguments":[1]}]',
    ]) {
      const run = runCli(['exec'], { input, cwd: ws.dir() });
      expect(run.status, input).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^toolgate: /);
    }
  });

  it('errors come back as results with DESIGN error types, one per call, in order', () => {
    ws.file('a.txt', 'A');
    const calls = [
      { id: '1', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: '2', name: 'nope', arguments: {} },
      { id: '3', name: 'read_file', arguments: { path: 7 } },
      { id: '4', name: 'read_file', arguments: { path: '../../etc/passwd' } },
      { id: '5', name: 'write_file', arguments: { path: 'b.txt', content: 'B' } },
      { id: '5', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: '6', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
    ];
    const run = runCli(['exec'], { input: JSON.stringify({ calls }), cwd: ws.dir() });
    expect(run.status).toBe(0);
    const results = parse(run.stdout);
    expect(results.map((r) => [r.id, r.error?.type ?? 'ok'])).toEqual([
      ['1', 'ok'],
      ['2', 'UnknownTool'],
      ['3', 'BadArgs'],
      ['4', 'SandboxViolation'],
      ['5', 'Denied'],
      ['5', 'DuplicateToolCallId'],
      ['6', 'ok'],
    ]);
    expect(existsSync(path.join(ws.dir(), 'b.txt'))).toBe(false);
  });

  it('--approve all runs side-effecting calls; --root sets the sandbox', () => {
    const run = runCli(['exec', '--approve', 'all', '--root', ws.dir()], {
      input: '[{"id":"1","name":"write_file","arguments":{"path":"out/b.txt","content":"B"}}]',
    });
    expect(parse(run.stdout)[0]?.ok).toBe(true);
    expect(readFileSync(path.join(ws.dir(), 'out/b.txt'), 'utf8')).toBe('B');
  });

  it('reads ./toolgate.toml; a config error exits 2 naming file, line and key, and nothing runs', () => {
    writeFileSync(
      path.join(ws.dir(), 'toolgate.toml'),
      '[tools]\nmode = "enabled"\n\n[tools.output]\nmax_bytes = "lots"\n',
    );
    const bad = runCli(['exec', '--approve', 'all'], {
      input: '[{"id":"1","name":"write_file","arguments":{"path":"x.txt","content":"x"}}]',
      cwd: ws.dir(),
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/toolgate\.toml:5 at tools\.output\.max_bytes/);
    expect(existsSync(path.join(ws.dir(), 'x.txt'))).toBe(false);
    writeFileSync(path.join(ws.dir(), 'toolgate.toml'), '[tools.approval]\ndenylist = ["read_file"]\n');
    const denied = runCli(['exec'], {
      input: '[{"id":"1","name":"read_file","arguments":{"path":"toolgate.toml"}}]',
      cwd: ws.dir(),
    });
    expect(parse(denied.stdout)[0]?.error?.type).toBe('Denied');
    expect(parse(denied.stdout)[0]?.content).toMatch(/tools\.approval\.denylist in .*toolgate\.toml/);
  });

  it('a model cannot read or write its own config, even when a custom config file is used', () => {
    writeFileSync(
      path.join(ws.dir(), 'policy.toml'),
      '[tools.approval]\nmode = "auto"\nprompt_side_effects = false\n',
    );
    const run = runCli(['exec', '--config', 'policy.toml'], {
      input: JSON.stringify([
        { id: '1', name: 'read_file', arguments: { path: 'policy.toml' } },
        { id: '2', name: 'write_file', arguments: { path: 'policy.toml', content: 'x', overwrite: true } },
      ]),
      cwd: ws.dir(),
    });
    expect(parse(run.stdout).map((r) => r.error?.type)).toEqual(['SandboxViolation', 'SandboxViolation']);
    expect(readFileSync(path.join(ws.dir(), 'policy.toml'), 'utf8')).toMatch(/auto/);
  });

  it('any JSON fed to exec yields exactly one result per call or a UsageError, never a crash or a hang', async () => {
    const arbCall = fc.record(
      {
        id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
        name: fc.oneof(
          fc.constantFrom('read_file', 'write_file', 'list_directory', 'nope'),
          fc.string({ maxLength: 6 }),
        ),
        arguments: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.string({ maxLength: 20 }),
          fc.record({ path: fc.string({ maxLength: 8 }) }),
        ),
      },
      { requiredKeys: [] },
    );
    const doc = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.array(arbCall, { maxLength: 10 }),
      fc.record({ calls: fc.array(arbCall, { maxLength: 10 }) }),
    );
    ws.file('a.txt', 'A');
    await fc.assert(
      fc.asyncProperty(doc, async (value) => {
        let out = '';
        const stdout = new Writable({
          write(chunk, _enc, done) {
            out += chunk.toString();
            done();
          },
        });
        const stdin = Readable.from([JSON.stringify(value)]);
        const cwd = process.cwd();
        process.chdir(ws.dir());
        try {
          const code = await runExec({ approve: 'none' }, { stdin, stdout, stderr: stdout });
          expect(code).toBe(0);
          const results = JSON.parse(out) as ToolResult[];
          const calls = Array.isArray(value) ? value : (value as { calls: unknown[] }).calls;
          expect(results).toHaveLength(calls.length);
          results.forEach((r, i) => {
            expect(r.id).toBe((calls[i] as { id: string }).id);
          });
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        } finally {
          process.chdir(cwd);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('other commands', () => {
  it('tools lists every built-in; --json and --format give schemas', () => {
    const table = runCli(['tools']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/list_directory\s+read_only/);
    const json = JSON.parse(runCli(['tools', '--json']).stdout) as { name: string; inputSchema: object }[];
    expect(json.map((t) => t.name)).toEqual([
      'apply_patch',
      'check_process_health',
      'delete_file',
      'edit_file',
      'git_status',
      'glob',
      'grep',
      'list_directory',
      'memory',
      'memory_delete',
      'memory_save',
      'memory_search',
      'memory_update',
      'read_file',
      'read_job_output',
      'read_many_files',
      'read_system_logs',
      'run_command',
      'system_metrics_snapshot',
      'vault_copyto',
      'web_fetch',
      'web_search',
      'write_file',
      'write_todos',
    ]);
    const anthropic = JSON.parse(runCli(['tools', '--format', 'anthropic']).stdout) as {
      input_schema: object;
    }[];
    expect(anthropic[0]?.input_schema).toMatchObject({ type: 'object' });
    expect(runCli(['tools', '--format', 'cobol']).status).toBe(2);
  });

  it('policy explain names the outcome, rule and file', () => {
    const run = runCli(['policy', 'explain', 'write_file', '{"path":"a.txt","content":"x"}', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'ask',
      rule: 'tools.approval.prompt_side_effects',
      file: '(built-in defaults)',
    });
    const outside = JSON.parse(
      runCli(['policy', 'explain', 'read_file', '{"path":"../x"}', '--json']).stdout,
    );
    expect(outside).toMatchObject({ outcome: 'deny', errorType: 'SandboxViolation' });
    expect(runCli(['policy', 'explain', 'read_file', '{bad']).status).toBe(2);
  });

  it('config schema prints a JSON Schema', () => {
    const schema = JSON.parse(runCli(['config', 'schema']).stdout) as { $schema: string };
    expect(schema.$schema).toContain('2020-12');
  });

  it('--help works on every command', () => {
    for (const args of [
      ['--help'],
      ['exec', '--help'],
      ['tools', '--help'],
      ['policy', 'explain', '--help'],
      ['config', 'schema', '--help'],
    ]) {
      const run = runCli(args);
      expect(run.status, args.join(' ')).toBe(0);
      expect(run.stdout).toMatch(/Usage: toolgate/);
    }
    expect(runCli(['frobnicate']).status).toBe(2);
  });
});
