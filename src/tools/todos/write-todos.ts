import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { oneLine } from '../../output/one-line.js';
import type { Todo, TodoStore } from './todo-store.js';

const args = z.strictObject({
  action: z.enum(['add', 'complete', 'remove', 'list']).describe('What to do with the todo list.'),
  task: z.string().min(1).max(2000).optional().describe('The task (for add).'),
  id: z.string().min(1).optional().describe('The todo id, from add or list (for complete and remove).'),
});

const MAX_TODOS = 200;

/**
 * The list as the model reads it: `[x] id: task`, one per line, in the order they were added. A
 * task's own line breaks show as ⏎: they cannot forge entries with ids that do not exist.
 */
export function formatTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  return todos.map((t) => `[${t.completed ? 'x' : ' '}] ${t.id}: ${oneLine(t.task, '⏎')}`).join('\n');
}

/**
 * write_todos (seed 001 §Persistent Storage, Properties 53–56): the session's own todo list, kept
 * with the session (in the journal when there is one). It touches nothing outside toolgate's own
 * session state, so it never asks (category `session`); every change is a journaled call.
 */
export function createWriteTodosTool(store: TodoStore) {
  return defineTool({
    name: 'write_todos',
    description:
      'Keep a todo list for this session: add a task, complete or remove one by id, or list them all with their status.',
    args,
    tier: 'side_effecting',
    category: 'session',
    summary: (a) =>
      a.action === 'add'
        ? `Add todo: ${oneLine(a.task ?? '', '⏎')}`
        : a.action === 'list'
          ? 'List todos'
          : `${a.action} todo ${a.id ?? ''}`,
    execute(a) {
      const todos = store.list();
      const find = (verb: string) => {
        if (!a.id)
          throw new ToolError('BadArgs', `${verb} needs the todo's id; list the todos to see the ids`);
        const at = todos.findIndex((t) => t.id === a.id);
        if (at < 0)
          throw new ToolError('NotFound', `no todo has the id ${a.id}; list the todos to see the ids`);
        return at;
      };
      switch (a.action) {
        case 'add': {
          if (!a.task) throw new ToolError('BadArgs', 'add needs a task');
          if (todos.length >= MAX_TODOS)
            throw new ToolError('LimitExceeded', `the list holds ${MAX_TODOS} todos; remove done ones first`);
          const todo: Todo = {
            id: `todo-${randomUUID().slice(0, 8)}`,
            task: a.task,
            completed: false,
            createdAt: Date.now(),
          };
          while (todos.some((t) => t.id === todo.id)) todo.id = `todo-${randomUUID().slice(0, 8)}`;
          store.save([...todos, todo]);
          return { content: `Added todo ${todo.id}: ${oneLine(todo.task, '⏎')}`, metadata: { todo } };
        }
        case 'complete': {
          const at = find('complete');
          const done = { ...(todos[at] as Todo), completed: true };
          store.save(todos.map((t, i) => (i === at ? done : t)));
          return {
            content: `Completed todo ${done.id}: ${oneLine(done.task, '⏎')}`,
            metadata: { todo: done },
          };
        }
        case 'remove': {
          const at = find('remove');
          const removed = todos[at] as Todo;
          store.save(todos.filter((_, i) => i !== at));
          return {
            content: `Removed todo ${removed.id}: ${oneLine(removed.task, '⏎')}`,
            metadata: { todo: removed },
          };
        }
        case 'list':
          return {
            content: formatTodos(todos),
            display: `${todos.length} todos, ${todos.filter((t) => t.completed).length} done`,
            metadata: { todos },
          };
      }
    },
  });
}
