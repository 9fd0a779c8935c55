import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { listFiles, snapshotTree } from '../helpers/tree.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The 23 codex apply_patch scenarios (shared/codex-apply-patch-scenarios), through the real tool
 * and pipeline, each input file read first as a model would. Scenario 015 must leave the input
 * unchanged, because toolgate is atomic. Runs where ../shared exists (always in CI).
 */
const CORPUS = path.resolve(REPO, '../shared/codex-apply-patch-scenarios');
const present = existsSync(CORPUS);
if (!present)
  console.warn(
    `apply_patch scenario corpus not found at ${CORPUS}: that suite is not run here (it runs in CI)`,
  );
const scenarios = present
  ? readdirSync(CORPUS)
      .filter((d) => /^\d{3}_/.test(d))
      .sort()
  : [];
const ATOMIC_FLIPS = new Set(['015_failure_after_partial_success_leaves_changes']);

if (present) {
  describe('apply_patch conformance: codex scenarios', () => {
    it('has all 23 scenarios', () => {
      expect(scenarios).toHaveLength(23);
    });

    it.each(scenarios)('%s', async (name) => {
      const dir = path.join(CORPUS, name);
      const work = makeTempDir('toolgate-scenario-');
      const input = path.join(dir, 'input');
      if (existsSync(input)) cpSync(input, work, { recursive: true });
      const before = snapshotTree(work);
      const gate = createToolgate({ config: validateConfig({}), roots: [work], approver: approveAll });
      const reads = listFiles(work).map((f, i) => ({
        id: `r${i}`,
        name: 'read_file',
        arguments: { path: f },
      }));
      if (reads.length) {
        const results = await gate.execute(reads);
        expect(results.every((r) => r.ok)).toBe(true);
      }
      const patch = readFileSync(path.join(dir, 'patch.txt'), 'utf8');
      const [result] = await gate.execute([{ id: 'p', name: 'apply_patch', arguments: { patch } }]);
      expect(result).toBeDefined();
      const after = snapshotTree(work);
      if (ATOMIC_FLIPS.has(name)) {
        expect(result?.ok).toBe(false);
        expect(after).toEqual(before);
      } else {
        expect(after).toEqual(snapshotTree(path.join(dir, 'expected')));
      }
    });
  });
} else {
  describe('apply_patch conformance: codex scenarios (corpus absent)', () => {
    it('says the shared corpus is missing; src/tools/patch/*.test.ts cover the same behaviour', () => {
      expect(existsSync(CORPUS)).toBe(false);
    });
  });
}
