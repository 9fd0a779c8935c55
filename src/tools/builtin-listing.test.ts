import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, validateConfig } from '../config/load-config.js';
import { approveAll, denyAll } from '../core/confirmation.js';
import { listingOf } from '../core/lazy-tool.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import type { ToolResult } from '../core/tool-result.js';
import { createToolgate } from '../toolgate.js';
import { BUILTIN_LISTING } from './builtin-listing.js';
import { builtinToolMakers, builtinTools } from './builtin-tools.js';

const REGENERATE = 'run `npm run generate:listing` and commit src/tools/builtin-listing.ts';

// Settings that change every tool's construction (timeouts, limits, the OS sandbox): the listing
// must not depend on them, since it is computed once for every config.
const otherConfig = validateConfig({
  tools: {
    timeouts: { file_operations_seconds: 7, shell_commands_seconds: 9 },
    output: { max_bytes: 9000 },
    edit: { require_read_before_write: false, max_file_bytes: 12345 },
    run_command: { sandbox: 'os', grace_ms: 300 },
    approval: { denylist: [] },
  },
});

describe('built-in listing (precomputed JSON Schemas)', () => {
  it('is exactly what the built-in tools produce from their zod schemas, for any config', () => {
    for (const config of [defaultConfig(), otherConfig]) {
      const made = builtinToolMakers(config).map(([name, make]) => [name, make()] as const);
      expect(Object.keys(BUILTIN_LISTING).sort(), REGENERATE).toEqual(made.map(([name]) => name).sort());
      for (const [name, tool] of made) {
        expect(tool.name).toBe(name);
        expect(BUILTIN_LISTING[name], `${name}: ${REGENERATE}`).toEqual(listingOf(tool));
      }
    }
  });

  it("issue #31 §1: no integer parameter carries zod's default bound (Number.MAX_SAFE_INTEGER): real bounds or none", () => {
    const text = JSON.stringify(BUILTIN_LISTING);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(text).not.toContain(String(Number.MIN_SAFE_INTEGER));
  });

  it('each lazily constructed built-in answers every field as the tool constructed at once does', () => {
    for (const config of [defaultConfig(), otherConfig]) {
      const lazy = builtinTools(config);
      const eager = builtinToolMakers(config).map(([, make]) => make());
      expect(lazy.map((t) => t.name)).toEqual(eager.map((t) => t.name));
      for (const [i, tool] of lazy.entries()) {
        const real = eager[i] as AnyToolDefinition;
        for (const key of [
          'name',
          'description',
          'tier',
          'risk',
          'category',
          'requiresApproval',
          'timeoutMs',
          'allowedModes',
          'rateLimitPerHour',
          'inputSchema',
          'outputSchema',
          'schemaFromParser',
        ] as const)
          expect(tool[key], `${tool.name}.${key}`).toEqual(real[key]);
        for (const hook of ['commandFacts', 'approvalDetail', 'prepare'] as const)
          expect(typeof tool[hook], `${tool.name}.${hook}`).toBe(typeof real[hook]);
      }
    }
  });

  it('a gate with lazily constructed built-ins validates, decides, denies and runs exactly as one constructed at once', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lazy-')));
    writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\n');
    mkdirSync(path.join(root, '.ssh'));
    writeFileSync(path.join(root, '.ssh', 'id_rsa'), 'secret');
    writeFileSync(path.join(root, 'toolgate.toml'), '');
    const config = validateConfig({ tools: { approval: { denylist: ['delete_file'] } } });
    const calls = [
      { id: '1', name: 'read_file', arguments: { path: 'a.txt', start_line: 2, end_line: 2 } },
      { id: '2', name: 'read_file', arguments: { path: 'a.txt', start_line: 3, end_line: 1 } },
      { id: '3', name: 'read_file', arguments: { path: '', zz_extra: 1 } },
      { id: '4', name: 'read_file', arguments: '{not json' },
      { id: '5', name: 'list_directory', arguments: { path: '.ssh' } },
      { id: '6', name: 'read_file', arguments: { path: 'toolgate.toml' } },
      { id: '7', name: 'read_file', arguments: { path: '../outside' } },
      { id: '8', name: 'delete_file', arguments: { path: 'a.txt' } },
      { id: '9', name: 'write_file', arguments: { path: 'b.txt', content: 'x' } },
      { id: '10', name: 'run_command', arguments: { command: 'echo hi > c.txt' } },
      { id: '11', name: 'glob', arguments: { pattern: '*.txt' } },
      { id: '12', name: 'grep', arguments: { pattern: 'two', max_results: 'many' } },
      { id: '13', name: 'edit_file', arguments: { path: 'a.txt', edits: [] } },
      { id: '14', name: 'check_process_health', arguments: { pids: [0] } },
      { id: '15', name: 'no_such_tool', arguments: {} },
    ];
    const stable = (results: ToolResult[]) => results.map(({ latencyMs: _latency, ...rest }) => rest);
    for (const approver of [denyAll, approveAll]) {
      const lazyGate = createToolgate({ config, roots: [root], approver });
      const eagerGate = createToolgate({
        config,
        roots: [root],
        approver,
        builtins: false,
        tools: builtinToolMakers(config).map(([, make]) => make()),
      });
      // Planned alike (one decision per call, the same arguments refused with the same words) …
      const plan = (gate: typeof lazyGate) =>
        gate.plan(calls).map((p) => ({ kind: p.disposition.kind, decision: p.decision, summary: p.summary }));
      expect(plan(lazyGate)).toEqual(plan(eagerGate));
      // … and run alike: only calls that change nothing run twice here.
      const readOnly = calls.filter((c) => !['delete_file', 'write_file', 'run_command'].includes(c.name));
      expect(stable(await lazyGate.execute(readOnly))).toEqual(stable(await eagerGate.execute(readOnly)));
      if (approver === denyAll) {
        const denied = calls.filter((c) => ['delete_file', 'write_file', 'run_command'].includes(c.name));
        const lazy = stable(await lazyGate.execute(denied));
        expect(lazy).toEqual(stable(await eagerGate.execute(denied)));
        expect(lazy.every((r) => !r.ok)).toBe(true);
      }
      await lazyGate.close();
      await eagerGate.close();
    }
  });
});
