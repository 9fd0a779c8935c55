import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { defineTool } from '../../src/core/define-tool.js';
import type { Tier } from '../../src/core/tier.js';
import { ToolError } from '../../src/core/tool-error.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A tool that fails with `failures` errors in turn, then answers. */
function flaky(name: string, tier: Tier, failures: ToolError[]) {
  let calls = 0;
  const tool = defineTool({
    name,
    description: 'flaky',
    args: z.strictObject({}),
    tier,
    category: 'test',
    summary: () => name,
    execute: () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return 'answer';
    },
  });
  return { tool, calls: () => calls };
}

describe('one retry of transient failures, read-only tools only (issue #16 §8; seed 002 §6.2)', () => {
  it('a read-only call that failed with EAGAIN runs once more; the retry is in the result and in the journal', async () => {
    const root = makeTempDir('toolgate-retry-');
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    const read = flaky('flaky_read', 'read_only', [
      new ToolError('ExecutionFailed', 'read failed (try again)', { code: 'EAGAIN' }),
    ]);
    const stubborn = flaky('stubborn_read', 'read_only', [
      new ToolError('ExecutionFailed', 'busy', { code: 'EBUSY' }),
      new ToolError('ExecutionFailed', 'busy', { code: 'EBUSY' }),
    ]);
    const write = flaky('flaky_write', 'side_effecting', [
      new ToolError('ExecutionFailed', 'failed', { code: 'EAGAIN' }),
    ]);
    // The errno word in the message only (a path a model chose): not the system's answer, no retry.
    const named = flaky('named_read', 'read_only', [
      new ToolError('ExecutionFailed', 'cannot read "EAGAIN-EBUSY.txt"'),
    ]);
    const missing = flaky('missing_read', 'read_only', [new ToolError('NotFound', 'no such thing')]);
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      tools: [read.tool, stubborn.tool, write.tool, missing.tool, named.tool],
      approver: approveAll,
      journal,
    });
    const results = await gate.execute(
      ['flaky_read', 'stubborn_read', 'flaky_write', 'missing_read', 'named_read'].map((name, i) => ({
        id: `c${i}`,
        name,
        arguments: {},
      })),
    );
    expect(results.map((r) => r.ok)).toEqual([true, false, false, false, false]);
    expect(results[0]?.content).toBe('answer');
    expect(results[0]?.metadata).toEqual({ retried: { after: 'ExecutionFailed', cause: 'EAGAIN' } });
    expect(results[1]?.metadata).toMatchObject({ retried: { cause: 'EBUSY' } }); // twice, then it stands
    expect([read.calls(), stubborn.calls(), write.calls(), missing.calls(), named.calls()]).toEqual([
      2, 2, 1, 1, 1,
    ]);
    const [batch] = journal.recentBatches(1);
    const recorded = journal.batch(batch?.id ?? '')?.calls[0]?.result;
    expect(recorded?.metadata).toEqual({ retried: { after: 'ExecutionFailed', cause: 'EAGAIN' } });
  });
});
