import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

const run = async (sandbox: 'none' | 'os', root: string, command: string) => {
  const gate = createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: { sandbox },
        governance: { tools: { run_command: { requires_sandbox: true } } },
      },
    }),
    roots: [root],
    approver: approveAll,
  });
  const [r] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
  await gate.close();
  if (!r) throw new Error('no result');
  return r;
};

describe('requires_sandbox (issue #16 §7; seed 002 §5.1)', () => {
  it('run_command with requires_sandbox refuses to run outside the OS sandbox, naming what to set; nothing runs', async () => {
    const root = makeTempDir('toolgate-requires-');
    const r = await run('none', root, 'touch ran.txt');
    expect(r.error?.type).toBe('SandboxViolation');
    expect(r.content).toMatch(/requires the OS sandbox .* set \[tools\.run_command\] sandbox = "os"/);
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });

  it('under the OS sandbox (bubblewrap) it runs', async () => {
    const root = makeTempDir('toolgate-requires-');
    const r = await run('os', root, 'touch ran.txt && echo done');
    expect(r.ok, r.content).toBe(true);
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(true);
  });

  it('on a tool that runs inside toolgate it is a config error that says why', () => {
    let error: unknown;
    try {
      validateConfig({ tools: { governance: { tools: { read_file: { requires_sandbox: true } } } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/requires_sandbox applies to run_command only/);
  });
});
