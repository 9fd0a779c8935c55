import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { useWorkspace } from '../helpers/workspace.js';

/**
 * Issue #31 §3 asked to hide or document the ~13 masked names `ls -la` shows under sandbox = "os"
 * (.bashrc, .gitconfig, .mcp.json, .vscode, toolgate.toml, .toolgate, … as character devices that
 * are not on disk). Hiding them was tried and a hostile review undid it: the masks over absent
 * names are what stop a sandboxed command from planting files that programs outside the sandbox
 * run from the project root (VS Code's tasks on folder open, an MCP host's .mcp.json, git's
 * .gitmodules, toolgate's own config and journal with a trigger in it). So they stay, documented
 * (docs/SECURITY.md, "The masked names under sandbox = os"), and this proves they hold: real
 * bubblewrap, through the built CLI run from the root, as a person runs it.
 */

const CONFIG = '[tools.approval]\ndenylist = []\n[tools.run_command]\nsandbox = "os"\n';

function runCommand(root: string, config: string, command: string) {
  const run = runCli(['exec', '--root', '.', '--config', config, '--approve', 'all', '--no-journal'], {
    cwd: root,
    input: JSON.stringify([{ id: 'c1', name: 'run_command', arguments: { command } }]),
  });
  if (run.stdout === '') throw new Error(run.stderr);
  const [result] = JSON.parse(run.stdout) as { ok: boolean; content: string }[];
  if (!result) throw new Error('no result');
  return result.content;
}

describe('issue #31 §3: absent names in the root stay masked under sandbox = "os" (bubblewrap, for real)', () => {
  const ws = useWorkspace();

  it('a command cannot plant .vscode/tasks.json, .mcp.json, .gitmodules, .bashrc, toolgate.toml or .toolgate/ in the root: nothing reaches the disk', () => {
    const root = path.join(ws.dir(), 'project');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.txt'), 'hi\n');
    const config = ws.file('config/toolgate.toml', CONFIG);
    // Names built at run time, so the command line names none of them (the path check would).
    const names = [
      '.vscode/tasks.json',
      '.mcp.json',
      '.gitmodules',
      '.bashrc',
      'toolgate.toml',
      '.toolgate/journal.db',
    ];
    const script = names
      .map((n, i) => {
        const [head, ...rest] = n.split('/');
        const built = `"$(printf '%s' '${(head as string).slice(0, 2)}')${(head as string).slice(2)}"`;
        const whole = rest.length ? `${built}/${rest.join('/')}` : built;
        return `{ mkdir -p "$(dirname ${whole})" 2>/dev/null; printf x > ${whole}; } 2>/dev/null; echo "${i} rc=$?"`;
      })
      .join('; ');
    const content = runCommand(root, config, script);
    for (const [i, n] of names.entries()) {
      expect(content, n).toMatch(new RegExp(`^${i} rc=[1-9]`, 'm'));
      expect(existsSync(path.join(root, n)), n).toBe(false);
    }
    expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
  });
});
