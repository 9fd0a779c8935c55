import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { useWorkspace } from '../helpers/workspace.js';

/**
 * Issue #31 §3: under sandbox = "os", `ls -la` in the workspace showed ~13 names that are not on
 * disk (.bashrc, .gitconfig, toolgate.toml, … as character devices: bubblewrap's masks over denied
 * names). Only names on disk are masked now, except the side files of a database that exists,
 * whose creation must stay impossible. Real bubblewrap, through the built CLI run from the root,
 * as a person runs it (the runtime adds its own masks in toolgate's working directory).
 */

const CONFIG = '[tools.approval]\ndenylist = []\n[tools.run_command]\nsandbox = "os"\n';

function runCommand(root: string, config: string, command: string, journal: string[]) {
  const run = runCli(['exec', '--root', '.', '--config', config, '--approve', 'all', ...journal], {
    cwd: root,
    input: JSON.stringify([{ id: 'c1', name: 'run_command', arguments: { command } }]),
  });
  expect(run.stderr).toBe('');
  const [result] = JSON.parse(run.stdout) as { ok: boolean; content: string }[];
  if (!result) throw new Error('no result');
  return result.content;
}

describe('issue #31 §3: the OS sandbox masks only names that are on disk (bubblewrap, for real)', () => {
  const ws = useWorkspace();

  function setUp() {
    const root = path.join(ws.dir(), 'project');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.txt'), 'hi\n');
    const config = ws.file('config/toolgate.toml', CONFIG);
    return { root, config };
  }

  it('ls -A in a fresh workspace shows exactly what is on disk', () => {
    const { root, config } = setUp();
    const content = runCommand(root, config, 'ls -A', ['--no-journal']);
    expect(content.trim().split('\n')).toEqual(readdirSync(root).sort());
    expect(content.trim()).toBe('a.txt');
  });

  it('names on disk stay masked: an existing .profile is unwritable, its content kept', () => {
    const { root, config } = setUp();
    writeFileSync(path.join(root, '.profile'), 'export KEPT=1\n');
    const content = runCommand(root, config, 'ls -A; echo planted >> .profile; echo "rc=$?"', [
      '--no-journal',
    ]);
    expect(content).toContain('.profile\na.txt\n');
    expect(content).toContain('rc=1');
    expect(content).toMatch(/\.profile: Read-only file system/);
    expect(readFileSync(path.join(root, '.profile'), 'utf8')).toBe('export KEPT=1\n');
  });

  it("a database's absent side file stays masked, so it cannot be planted; absent others are not shown", () => {
    const { root, config } = setUp();
    mkdirSync(path.join(root, 'state'));
    const content = runCommand(
      root,
      config,
      // Named through the glob, so the command line names no state file itself.
      'ls -A; for f in state/*.db; do touch "$f-journal"; echo "rc=$?"; done',
      ['--journal', 'state/j.db'],
    );
    expect(content.split('\n').slice(0, 3)).toEqual(['a.txt', 'state', 'rc=1']);
    expect(content).toMatch(/cannot touch 'state\/j\.db-journal': Permission denied/);
  });
});
