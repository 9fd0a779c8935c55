import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll, type ConfirmationRequest } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { governancePathProblem } from '../../src/policy/governance-paths.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Seed 002 governance through the real pipeline, on real files: path rules written the seed's way
 * (absolute, `~/`, `$HOME/`) are honoured, patterns that cannot be are refused, and the per-tool
 * mode lists govern. Each fixture lives under the real home, since that is what `~` means.
 */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project under the real home: `secret/key.txt`, `docs/a.md`, `src/b.ts`. */
function homeProject(): { root: string; name: string } {
  const root = realpathSync(mkdtempSync(path.join(os.homedir(), '.toolgate-gov-')));
  made.push(root);
  for (const [rel, text] of [
    ['secret/key.txt', 'KEY'],
    ['docs/a.md', 'DOC'],
    ['src/b.ts', 'SRC'],
  ] as const) {
    mkdirSync(path.join(root, path.dirname(rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return { root, name: path.relative(realpathSync(os.homedir()), root) };
}

function gate(root: string, tools: Record<string, unknown>, approver: Approver = approveAll) {
  const g = createToolgate({ config: validateConfig({ tools }), roots: [root], approver });
  let n = 0;
  return async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const [r] = await g.execute([{ id: `c${n++}`, name, arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
}

const governed = (rules: Record<string, unknown>) => ({ governance: { tools: { read_file: rules } } });

describe('issue #30 §12: governance path rules written absolute, ~/ or $HOME/ are honoured', () => {
  it('issue #30 §12: forbidden_paths as absolute, ~/ and $HOME/ patterns (braced too) deny the file they name', async () => {
    const { root, name } = homeProject();
    for (const pattern of [
      `${root}/secret/**`,
      `~/${name}/secret/**`,
      `$HOME/${name}/secret/**`,
      `\${HOME}/${name}/secret/**`,
      `~/${name}/secret/key.txt`,
    ]) {
      const call = gate(root, governed({ forbidden_paths: [pattern] }));
      const secret = await call('read_file', { path: 'secret/key.txt' });
      expect(secret.ok, pattern).toBe(false);
      expect(secret.error?.type).toBe('Denied');
      expect(secret.content).toContain('forbidden path');
      expect(secret.content).not.toContain('KEY');
      const doc = await call('read_file', { path: 'docs/a.md' });
      expect(doc.content, pattern).toContain('DOC');
    }
  });

  it('issue #30 §12: allowed_paths as ~/ and $HOME/ patterns allow what they name and deny the rest', async () => {
    const { root, name } = homeProject();
    for (const pattern of [`$HOME/${name}/docs/**`, `~/${name}/docs/**`, `${root}/docs/**`]) {
      const call = gate(root, governed({ allowed_paths: [pattern] }));
      const doc = await call('read_file', { path: 'docs/a.md' });
      expect(doc.ok, `${pattern}: ${doc.content}`).toBe(true);
      expect(doc.content).toContain('DOC');
      const src = await call('read_file', { path: 'src/b.ts' });
      expect(src.error?.type, pattern).toBe('Denied');
      expect(src.content).toContain('not in the allowed paths');
    }
  });

  it('issue #30 §12: a root reached through a link is judged by its resolved path, whichever form the pattern names', async () => {
    const { root } = homeProject();
    const links = makeTempDir('toolgate-gov-link-');
    made.push(links);
    const link = path.join(links, 'project');
    symlinkSync(root, link);
    for (const pattern of [`${link}/secret/**`, `${root}/secret/**`]) {
      const call = gate(link, governed({ forbidden_paths: [pattern] }));
      const secret = await call('read_file', { path: 'secret/key.txt' });
      expect(secret.error?.type, pattern).toBe('Denied');
      expect(secret.content).not.toContain('KEY');
      expect((await call('read_file', { path: 'src/b.ts' })).content).toContain('SRC');
    }
  });

  it('issue #30 §12: a pattern that cannot be honoured denies every path of the tool and says how to write it', async () => {
    const { root } = homeProject();
    for (const [pattern, fix] of [
      ['$XDG_DATA_HOME/secret/**', 'only $HOME is expanded'],
      ['~someone/secret/**', '~user is not expanded'],
      ['../secret/**', 'without ".."'],
    ] as const) {
      expect(governancePathProblem(pattern)).toContain(fix);
      // Alone in forbidden_paths, or beside a pattern that would allow the file in allowed_paths.
      for (const [key, list] of [
        ['forbidden_paths', [pattern]],
        ['allowed_paths', [pattern, 'docs/**']],
      ] as const) {
        // config check refuses it (load-config.ts) …
        expect(() => validateConfig({ tools: governed({ [key]: list }) }), `${key} ${pattern}`).toThrow(fix);
        // … and a config built past the check (a library caller's object) still fails closed.
        const config = validateConfig({ tools: governed({ [key]: ['placeholder/**'] }) });
        const rules = config.tools.governance.tools.read_file as unknown as Record<string, string[]>;
        rules[key] = [...list];
        const g = createToolgate({ config, roots: [root], approver: approveAll });
        const [doc] = await g.execute([{ id: 'c', name: 'read_file', arguments: { path: 'docs/a.md' } }]);
        if (!doc) throw new Error('no result');
        expect(doc.error?.type, `${key} ${pattern}`).toBe('Denied');
        expect(doc.content).toContain(fix);
        expect(doc.content).not.toContain('DOC');
      }
    }
    for (const fine of ['docs/**', '/abs/**', '~', '~/x/**', '$HOME/x', `\${HOME}/x/*.md`])
      expect(governancePathProblem(fine), fine).toBeUndefined();
  });

  it('issue #30 §12: relative patterns still match inside every root, as before', async () => {
    const { root } = homeProject();
    const call = gate(root, governed({ forbidden_paths: ['secret/**'] }));
    expect((await call('read_file', { path: 'secret/key.txt' })).error?.type).toBe('Denied');
    expect((await call('read_file', { path: './docs/a.md' })).content).toContain('DOC');
  });
});

describe('issue #30 §12: allowed_in_modes and requires_approval_in_modes, through the real pipeline', () => {
  it('issue #30 §12: allowed_in_modes lets the tool run in the modes it names and denies it in others, nothing written', async () => {
    const root = makeTempDir('toolgate-gov-modes-');
    made.push(root);
    const tools = (mode: string) => ({
      governance: { mode, tools: { write_file: { allowed_in_modes: ['NORMAL', 'RECOVERY'] } } },
    });
    const normal = await gate(root, tools('NORMAL'))('write_file', { path: 'n.txt', content: 'n' });
    expect(normal.ok, normal.content).toBe(true);
    const recovery = await gate(root, tools('RECOVERY'))('write_file', { path: 'r.txt', content: 'r' });
    expect(recovery.ok, recovery.content).toBe(true);
    const alert = await gate(root, tools('ALERT'))('write_file', { path: 'a.txt', content: 'a' });
    expect(alert.error?.type).toBe('Denied');
    expect(alert.content).toContain('not allowed in ALERT mode');
    expect(() => realpathSync(path.join(root, 'a.txt'))).toThrow();
    expect(realpathSync(path.join(root, 'n.txt'))).toBe(path.join(root, 'n.txt'));
  });

  it('issue #30 §12: requires_approval_in_modes asks in the modes it names (a denial leaves the file unread) and not in others', async () => {
    const { root } = homeProject();
    const asked: ConfirmationRequest[] = [];
    const denyAndRecord: Approver = async (requests) => {
      asked.push(...requests);
      return { kind: 'deny_all', reason: 'not now' };
    };
    const tools = (mode: string) => ({
      governance: { mode, tools: { read_file: { requires_approval_in_modes: ['ALERT'] } } },
    });
    const inAlert = await gate(root, tools('ALERT'), denyAndRecord)('read_file', { path: 'docs/a.md' });
    expect(asked.map((r) => [r.toolName, r.rule])).toEqual([
      ['read_file', 'tools.governance.tools.read_file.requires_approval_in_modes'],
    ]);
    expect(inAlert.ok).toBe(false);
    expect(inAlert.content).not.toContain('DOC');
    const inNormal = await gate(root, tools('NORMAL'), denyAndRecord)('read_file', { path: 'docs/a.md' });
    expect(inNormal.content).toContain('DOC');
    expect(asked).toHaveLength(1);
  });
});
