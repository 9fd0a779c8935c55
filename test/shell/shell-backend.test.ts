import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

describe('[tools.shell] backend = "disabled" (issue #16 §10)', () => {
  it('run_command and read_job_output are listed nowhere; a call is told why, and nothing runs', async () => {
    const root = makeTempDir('toolgate-shell-off-');
    const gate = createToolgate({
      config: validateConfig({
        tools: { approval: { mode: 'auto', denylist: [] }, shell: { backend: 'disabled' } },
      }),
      roots: [root],
      approver: approveAll,
    });
    expect(gate.registry.names()).not.toContain('run_command');
    expect(gate.registry.names()).not.toContain('read_job_output');
    expect(gate.registry.names()).toContain('read_file');
    const [r] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command: 'touch ran' } }]);
    expect(r?.error?.type).toBe('Denied');
    expect(r?.content).toMatch(/run_command is switched off .*\[tools\.shell\] backend = "disabled"/);
    expect(existsSync(path.join(root, 'ran'))).toBe(false);
  });

  it('over MCP the tool is not in tools/list', async () => {
    const root = makeTempDir('toolgate-shell-off-mcp-');
    writeFileSync(path.join(root, 'toolgate.toml'), '[tools.shell]\nbackend = "disabled"\n');
    const client = new Client({ name: 't', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(REPO, 'bin', 'toolgate.js'), 'mcp', '--no-journal'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('run_command');
      expect(names).toContain('read_file');
    } finally {
      await client.close();
    }
  });
});
