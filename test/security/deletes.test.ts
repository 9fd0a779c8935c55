import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll, denyAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Issue #13 item 12: deletions ask whichever tool performs them; denied files are never deleted. */
describe('deletions (issue #13)', () => {
  it('ask whichever tool deletes, whatever allows that tool', async () => {
    const root = makeTempDir('toolgate-del-');
    writeFileSync(path.join(root, 'victim.txt'), 'keep me\n');
    const config = validateConfig({
      tools: {
        approval: { allowlist: ['apply_patch', 'delete_file'], mode: 'auto' },
        policy: {
          rules: [
            {
              tool: 'delete_file',
              action: 'allow',
              conditions: [{ param: 'path', operator: 'path-glob', value: '**' }],
            },
            { tool: 'apply_patch', action: 'allow' },
          ],
        },
      },
    });
    const gate = createToolgate({ config, roots: [root], approver: denyAll });
    await gate.execute([{ id: 'r', name: 'read_file', arguments: { path: 'victim.txt' } }]);
    const patch = '*** Begin Patch\n*** Delete File: victim.txt\n*** End Patch';
    const unified = '--- a/victim.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep me\n';
    const results = await gate.execute([
      { id: '1', name: 'apply_patch', arguments: { patch } },
      { id: '2', name: 'apply_patch', arguments: { patch: unified } },
      { id: '3', name: 'delete_file', arguments: { path: 'victim.txt' } },
    ]);
    expect(results.map((r) => r.error?.type)).toEqual(['Denied', 'Denied', 'Denied']);
    for (const r of results) expect(r.content).toMatch(/deletions always ask/);
    expect(existsSync(path.join(root, 'victim.txt'))).toBe(true);
    // An edit that deletes nothing still runs without asking under the same rules.
    const [edit] = await gate.execute([
      {
        id: '4',
        name: 'apply_patch',
        arguments: {
          patch: '*** Begin Patch\n*** Update File: victim.txt\n@@\n-keep me\n+kept\n*** End Patch',
        },
      },
    ]);
    expect(edit?.ok).toBe(true);
  });

  it('a recursive delete leaves denied files (keys, toolgate state and config) and says so', async () => {
    const root = makeTempDir('toolgate-del-');
    const dir = path.join(root, 'project');
    for (const rel of [
      '.ssh/id_rsa',
      'sub/toolgate.toml',
      '.toolgate/journal.db',
      'a.txt',
      'sub/b.txt',
      'empty/.keep',
    ]) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), 'x');
    }
    const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
    const [r] = await gate.execute([
      { id: '1', name: 'delete_file', arguments: { path: 'project', recursive: true } },
    ]);
    expect(r?.ok).toBe(true);
    expect(r?.content).toMatch(/kept 3 denied entries/);
    for (const rel of ['.ssh/id_rsa', 'sub/toolgate.toml', '.toolgate/journal.db']) {
      expect(existsSync(path.join(dir, rel)), rel).toBe(true);
    }
    for (const rel of ['a.txt', 'sub/b.txt', 'empty'])
      expect(existsSync(path.join(dir, rel)), rel).toBe(false);
  });
});
