import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { sleep, testTool } from '../helpers/tools.js';
import { makeTempDir } from '../helpers/workspace.js';

function setup() {
  const root = makeTempDir('toolgate-pj-');
  const file = path.join(root, '.toolgate', 'journal.db');
  return { root, file };
}

describe('pipeline with the journal (FR-RES-01, 04a-c)', () => {
  it('a call with side effects is journaled before it runs, is `running` while it runs, and earlier results are committed', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const seen: string[][] = [];
    const probe = testTool(
      'probe',
      async () => {
        // Another connection sees what is committed right now.
        const other = SqliteJournal.open(file);
        const [batch] = other.incompleteBatches();
        seen.push(batch?.calls.map((c) => `${c.id}:${c.status}${c.result ? '+result' : ''}`) ?? []);
        other.close();
        return 'ok';
      },
      { tier: 'side_effecting' },
    );
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      journal,
      session: 's',
      builtins: false,
      tools: [probe],
    });
    const results = await gate.execute([
      { id: 'a', name: 'probe', arguments: {} },
      { id: 'b', name: 'nope', arguments: {} },
      { id: 'c', name: 'probe', arguments: {} },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(seen).toEqual([
      ['a:running', 'b:planned', 'c:planned'],
      ['a:done+result', 'b:done+result', 'c:running'],
    ]);
    const [summary] = journal.recentBatches(1);
    expect(summary).toMatchObject({ status: 'complete', calls: 3, failed: 1 });
    journal.close();
  });

  it('a read-only batch is journaled whole in one commit after it ran, before any result is returned', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const seen: number[] = [];
    const probe = testTool('probe', async () => {
      const other = SqliteJournal.open(file);
      seen.push(other.recentBatches(10).length); // nothing of this batch is in the journal yet
      other.close();
      return 'ok';
    });
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal,
      session: 's',
      builtins: false,
      tools: [probe],
    });
    const results = await gate.execute([
      { id: 'a', name: 'probe', arguments: {} },
      { id: 'b', name: 'nope', arguments: {} },
      { id: 'c', name: 'probe', arguments: {} },
    ]);
    expect(seen).toEqual([0, 0]);
    // Read through another connection: committed by the time execute() returned.
    const other = SqliteJournal.open(file);
    const [summary] = other.recentBatches(1);
    expect(summary).toMatchObject({ status: 'complete', calls: 3, failed: 1 });
    const batch = other.batch(summary?.id as string);
    expect(batch?.calls.map((c) => [c.id, c.status, c.result?.ok])).toEqual([
      ['a', 'done', true],
      ['b', 'done', false], // an unknown tool is an error result, not a denial
      ['c', 'done', true],
    ]);
    expect(batch?.calls[0]?.startedAt).toBeTypeOf('number');
    expect(batch?.calls[1]?.startedAt).toBeUndefined(); // refused at planning: never started
    expect(batch?.calls[0]?.decision).toMatchObject({ action: 'allow' });
    // The conversation: the assistant message, then one tool message per call, in call order.
    expect(other.messages('s').map((m) => [m.role, m.callId ?? null])).toEqual([
      ['assistant', null],
      ['tool', 'a'],
      ['tool', 'b'],
      ['tool', 'c'],
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    other.close();
    journal.close();
  });

  it("a read-only batch records each call's own start and finish", async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal,
      builtins: false,
      tools: [testTool('fast'), testTool('slow', async () => sleep(80).then(() => 'slow'))],
    });
    await gate.execute([
      { id: 'f', name: 'fast', arguments: {} },
      { id: 's', name: 'slow', arguments: {} },
    ]);
    const batch = journal.batch(journal.recentBatches(1)[0]?.id as string);
    const took = (i: number) => (batch?.calls[i]?.finishedAt ?? 0) - (batch?.calls[i]?.startedAt ?? 0);
    expect(took(1)).toBeGreaterThanOrEqual(70); // slow's own 80 ms
    expect(took(0)).toBeLessThan(took(1)); // fast finished when it finished, not when the batch did
    journal.close();
  });

  it('conversation: false keeps batches, calls and results but no messages (the MCP server)', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      journal,
      session: 'm',
      conversation: false,
      builtins: false,
      tools: [testTool('r'), testTool('w', undefined, { tier: 'side_effecting' })],
    });
    await gate.execute([{ id: 'r1', name: 'r', arguments: { value: 'x' } }]);
    await gate.execute([{ id: 'w1', name: 'w', arguments: { value: 'y' } }]);
    expect(journal.messages('m')).toEqual([]);
    const batches = journal.recentBatches(5).map((b) => journal.batch(b.id));
    expect(batches.flatMap((b) => b?.calls.map((c) => [c.id, c.status, c.result?.content]) ?? [])).toEqual([
      ['w1', 'done', 'echo:y'],
      ['r1', 'done', 'echo:x'],
    ]);
    journal.close();
  });

  it('denials are recorded as `denied` with the deciding rule', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const gate = createToolgate({ config: validateConfig({}), roots: [root], journal });
    await gate.execute([
      { id: 'w', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      { id: 'r', name: 'read_file', arguments: { path: '../escape' } },
    ]);
    const id = journal.recentBatches(1)[0]?.id as string;
    const batch = journal.batch(id);
    expect(batch?.calls.map((c) => c.status)).toEqual(['denied', 'denied']);
    expect(batch?.calls[0]?.decision).toMatchObject({
      action: 'ask',
      rule: 'tools.approval.prompt_side_effects',
    });
    expect(batch?.calls[0]?.approval).toMatchObject({
      toolName: 'write_file',
      summary: 'Create x.txt (1 bytes)',
    });
    journal.close();
  });

  it('the read-before-write cache persists per session across restarts', async () => {
    const { root, file } = setup();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const first = SqliteJournal.open(file);
    await createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: first,
      session: 's1',
    }).execute([{ id: '1', name: 'read_file', arguments: { path: 'a.txt' } }]);
    first.close();
    const second = SqliteJournal.open(file);
    const other = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: second,
      session: 's2',
      approver: approveAll,
    });
    const [stale] = await other.execute([
      {
        id: '2',
        name: 'edit_file',
        arguments: { path: 'a.txt', edits: [{ target: 'one', replacement: 'two' }] },
      },
    ]);
    expect(stale?.error?.type).toBe('StaleFile');
    const same = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: second,
      session: 's1',
      approver: approveAll,
    });
    const [edited] = await same.execute([
      {
        id: '3',
        name: 'edit_file',
        arguments: { path: 'a.txt', edits: [{ target: 'one', replacement: 'two' }] },
      },
    ]);
    expect(edited?.ok).toBe(true);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
    second.close();
  });

  it('a batch waiting for approval survives a restart; answered later, only the approved calls run', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    const never: Approver = () => new Promise(() => {});
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { timeout_seconds: 3600 } } }),
      roots: [root],
      journal,
      session: 's',
      approver: never,
    });
    void gate.execute([
      { id: 'a', name: 'write_file', arguments: { path: 'a.txt', content: 'A' } },
      { id: 'b', name: 'write_file', arguments: { path: 'b.txt', content: 'B' } },
      { id: 'c', name: 'list_directory', arguments: { path: '.' } },
    ]);
    await new Promise((r) => setTimeout(r, 50));
    // "Restart": a new connection, a new pipeline; the old one is simply abandoned.
    const after = SqliteJournal.open(file);
    const [pending] = after.incompleteBatches();
    expect(pending?.status).toBe('awaiting_approval');
    expect(pending?.calls.map((c) => c.status)).toEqual([
      'awaiting_approval',
      'awaiting_approval',
      'planned',
    ]);
    const later = createToolgate({ config: validateConfig({}), roots: [root], journal: after, session: 's' });
    const results = await later.resumePending(pending?.id as string, {
      approver: async () => ({ kind: 'approve_selected', ids: ['b'] }),
    });
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['a', false],
      ['b', true],
      ['c', true],
    ]);
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(root, 'a.txt'))).toBe(false);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('B');
    expect(after.batch(pending?.id as string)?.calls.map((c) => c.status)).toEqual([
      'denied',
      'done',
      'done',
    ]);
    after.close();
  });

  it('rate limits count calls across runs through the journal', async () => {
    const { root, file } = setup();
    const config = validateConfig({
      tools: { governance: { tools: { read_file: { rate_limit_per_hour: 2 } } } },
    });
    for (let run = 0; run < 3; run++) {
      const journal = SqliteJournal.open(file);
      const [r] = await createToolgate({ config, roots: [root], journal })
        .execute([
          { id: 'x', name: 'list_directory', arguments: { path: '.' } },
          { id: 'y', name: 'read_file', arguments: { path: 'missing' } },
        ])
        .then((rs) => rs.slice(1));
      expect(r?.error?.type).toBe(run < 2 ? 'NotFound' : 'LimitExceeded');
      journal.close();
    }
    // The index that counting uses was made by the first count (a journal without rate limits has none).
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'calls_name_started'").get()).toBeTruthy();
    db.close();
  });

  it('a journal without rate limits has no rate index: each commit writes one page fewer', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    await createToolgate({ config: validateConfig({}), roots: [root], journal }).execute([
      { id: 'x', name: 'list_directory', arguments: { path: '.' } },
    ]);
    journal.close();
    const db = new Database(file, { readonly: true });
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls'")
      .all();
    db.close();
    expect(indexes).toEqual([{ name: 'sqlite_autoindex_calls_1' }]);
  });

  it("a journal that cannot record withholds a read-only batch's results (nothing unjournaled is handed out)", async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    journal.close(); // every write now fails
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal,
      builtins: false,
      tools: [testTool('t', async () => 'secret')],
    });
    const results = await gate.execute([
      { id: '1', name: 't', arguments: {} },
      { id: '2', name: 't', arguments: {} },
    ]);
    expect(results.map((r) => [r.id, r.ok, r.error?.type])).toEqual([
      ['1', false, 'Internal'],
      ['2', false, 'Internal'],
    ]);
    expect(results[0]?.content).toMatch(/result withheld: .*journal.*read-only; nothing changed/);
    expect(JSON.stringify(results)).not.toContain('secret');
  });

  it('a journal that cannot record stops a batch with side effects before anything runs', async () => {
    const { root, file } = setup();
    const journal = SqliteJournal.open(file);
    journal.close(); // every write now fails
    let ran = false;
    const tool = testTool(
      't',
      async () => {
        ran = true;
        return 'x';
      },
      { tier: 'side_effecting' },
    );
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      journal,
      builtins: false,
      tools: [tool],
    });
    const results = await gate.execute([
      { id: '1', name: 't', arguments: {} },
      { id: '2', name: 't', arguments: {} },
    ]);
    expect(ran).toBe(false);
    expect(results.map((r) => [r.id, r.error?.type])).toEqual([
      ['1', 'Internal'],
      ['2', 'Internal'],
    ]);
    expect(results[0]?.content).toMatch(/not executed: .*journal/);
  });
});
