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
 * apply_patch scenarios through the real tool and pipeline, each input file read first as a model
 * would: toolgate's own (test/fixtures/apply-patch-scenarios, always) and the 23 codex scenarios
 * (shared/codex-apply-patch-scenarios, where ../shared exists: always in CI). A scenario is a folder
 * with `input/`, `patch.txt` and `expected/`; a rejected patch leaves the input unchanged. Codex's
 * scenario 015 must leave the input unchanged too, because toolgate is atomic.
 */
const OWN = path.join(REPO, 'test/fixtures/apply-patch-scenarios');
const CORPUS = path.resolve(REPO, '../shared/codex-apply-patch-scenarios');
const present = existsSync(CORPUS);
if (!present)
  console.warn(
    `apply_patch scenario corpus not found at ${CORPUS}: the codex scenarios are not run here (they are in CI); toolgate's own scenarios are`,
  );
const scenariosIn = (dir: string) =>
  readdirSync(dir)
    .filter((d) => /^\d{3}_/.test(d))
    .sort();
const ATOMIC_FLIPS = new Set(['015_failure_after_partial_success_leaves_changes']);

async function runScenario(corpus: string, name: string): Promise<void> {
  const dir = path.join(corpus, name);
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
    // A scenario whose expected tree is its input is a rejection: the tool must say it failed.
    if (existsSync(input) && snapshotTree(input).size > 0) {
      const unchanged =
        JSON.stringify([...before]) === JSON.stringify([...snapshotTree(path.join(dir, 'expected'))]);
      if (unchanged) expect(result?.ok).toBe(false);
    }
  }
}

describe("apply_patch conformance: toolgate's own scenarios", () => {
  it.each(scenariosIn(OWN))('%s', (name) => runScenario(OWN, name));
});

if (present) {
  describe('apply_patch conformance: codex scenarios', () => {
    it('has all 23 scenarios', () => {
      expect(scenariosIn(CORPUS)).toHaveLength(23);
    });

    it.each(present ? scenariosIn(CORPUS) : [])('%s', (name) => runScenario(CORPUS, name));
  });
}
