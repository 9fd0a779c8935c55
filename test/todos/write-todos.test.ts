import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import type { Todo } from '../../src/tools/todos/todo-store.js';
import { makeTempDir } from '../helpers/workspace.js';

const root = makeTempDir('toolgate-todos-');
/** No approver: write_todos must run without asking anyone. */
const freshGate = () => createToolgate({ config: validateConfig({}), roots: [root] });

async function call(gate: Toolgate, args: Record<string, unknown>) {
  const [r] = await gate.execute([{ id: '1', name: 'write_todos', arguments: args }]);
  if (!r) throw new Error('no result');
  return r;
}
function meta(r: { metadata?: Record<string, unknown> | undefined }): Record<string, unknown> {
  if (!r.metadata) throw new Error('the result has no metadata');
  return r.metadata;
}
const todosOf = (r: { metadata?: Record<string, unknown> | undefined }) => meta(r).todos as Todo[];
const todoOf = (r: { metadata?: Record<string, unknown> | undefined }) => meta(r).todo as Todo;
const list = async (gate: Toolgate) => todosOf(await call(gate, { action: 'list' }));
/** A fresh list of `tasks`, and one of them picked by `pick`. */
async function listWithOnePicked(tasks: string[], pick: number) {
  const gate = freshGate();
  for (const t of tasks) await call(gate, { action: 'add', task: t });
  const before = await list(gate);
  return { gate, before, target: before[pick % before.length] as Todo };
}
const task = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);

describe('write_todos (issue #15; seed 001 Properties 53-56)', () => {
  it('Property 53: adding any task puts it on the list with a new unique id, not completed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(task, { minLength: 1, maxLength: 8 }), async (tasks) => {
        const gate = freshGate();
        const ids = new Set<string>();
        for (const t of tasks) {
          const r = await call(gate, { action: 'add', task: t });
          expect(r.ok).toBe(true);
          const added = todoOf(r);
          expect(ids.has(added.id)).toBe(false);
          ids.add(added.id);
          expect((await list(gate)).find((x) => x.id === added.id)).toMatchObject({
            task: t,
            completed: false,
          });
        }
      }),
      { numRuns: 100 },
    );
  });

  it('Property 54: completing any todo by id marks that one completed and no other', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(task, { minLength: 1, maxLength: 6 }), fc.nat(), async (tasks, pick) => {
        const { gate, target } = await listWithOnePicked(tasks, pick);
        expect((await call(gate, { action: 'complete', id: target.id })).ok).toBe(true);
        for (const t of await list(gate)) expect(t.completed).toBe(t.id === target.id);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 55: removing any todo by id takes that one off and keeps the rest in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(task, { minLength: 1, maxLength: 6 }), fc.nat(), async (tasks, pick) => {
        const { gate, before, target } = await listWithOnePicked(tasks, pick);
        expect((await call(gate, { action: 'remove', id: target.id })).ok).toBe(true);
        expect(await list(gate)).toEqual(before.filter((t) => t.id !== target.id));
      }),
      { numRuns: 100 },
    );
  });

  it('Property 56: listing returns every todo with its current status, for any sequence of actions', async () => {
    type Op = { kind: 'add'; task: string } | { kind: 'complete' | 'remove'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      task.map((t) => ({ kind: 'add' as const, task: t })),
      fc.record({ kind: fc.constantFrom('complete' as const, 'remove' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const gate = freshGate();
        const model: { id: string; task: string; completed: boolean }[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            const r = await call(gate, { action: 'add', task: o.task });
            model.push({ id: todoOf(r).id, task: o.task, completed: false });
          } else if (model.length > 0) {
            const target = model[o.pick % model.length] as (typeof model)[number];
            await call(gate, { action: o.kind, id: target.id });
            if (o.kind === 'complete') target.completed = true;
            else model.splice(model.indexOf(target), 1);
          }
        }
        const r = await call(gate, { action: 'list' });
        expect(todosOf(r).map(({ id, task: t, completed }) => ({ id, task: t, completed }))).toEqual(model);
        const text = model.map((t) => `[${t.completed ? 'x' : ' '}] ${t.id}: ${t.task}`).join('\n');
        expect(r.content).toBe(model.length ? text : 'The todo list is empty.');
      }),
      { numRuns: 100 },
    );
  });

  it('bad requests are clear errors: add without a task, an unknown id, complete without an id', async () => {
    const gate = freshGate();
    expect((await call(gate, { action: 'add' })).error?.type).toBe('BadArgs');
    expect((await call(gate, { action: 'complete' })).error?.type).toBe('BadArgs');
    const unknown = await call(gate, { action: 'remove', id: 'todo-nope' });
    expect(unknown.error?.type).toBe('NotFound');
    expect(unknown.content).toMatch(/list the todos/);
  });

  it("the list is kept in the journal per session: it survives a restart, and another session's list is its own", async () => {
    const file = path.join(makeTempDir('toolgate-todos-j-'), 'journal.db');
    const open = (session: string) => {
      const journal = SqliteJournal.open(file);
      return {
        journal,
        gate: createToolgate({ config: validateConfig({}), roots: [root], journal, session }),
      };
    };
    const first = open('s1');
    await call(first.gate, { action: 'add', task: 'write the tide tables' });
    const second = await call(first.gate, { action: 'add', task: 'check the moon' });
    await call(first.gate, { action: 'complete', id: todoOf(second).id });
    first.journal.close();
    const again = open('s1');
    expect((await list(again.gate)).map((t) => [t.task, t.completed])).toEqual([
      ['write the tide tables', false],
      ['check the moon', true],
    ]);
    const other = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: again.journal,
      session: 's2',
    });
    expect(await list(other)).toEqual([]);
    again.journal.close();
  });
});
