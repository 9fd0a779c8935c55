import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const INSPECTOR = path.join(REPO, 'node_modules', '.bin', 'mcp-inspector');
const BIN = path.join(REPO, 'bin', 'toolgate.js');

function inspect(root: string, args: string[]) {
  const out = spawnSync(INSPECTOR, ['--cli', process.execPath, BIN, 'mcp', '--no-journal', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

describe('the MCP Inspector CLI against toolgate mcp (issue #6)', () => {
  it('lists the tools and calls one', () => {
    const root = makeTempDir('toolgate-inspector-');
    writeFileSync(path.join(root, 'a.txt'), 'inspected\n');
    const listed = inspect(root, ['--method', 'tools/list']) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toContain('read_file');
    const called = inspect(root, [
      '--method',
      'tools/call',
      '--tool-name',
      'read_file',
      '--tool-arg',
      'path=a.txt',
    ]);
    expect(called).toEqual({ content: [{ type: 'text', text: 'inspected\n' }], isError: false });
  });
});
