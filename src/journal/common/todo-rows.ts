import type { Todo } from '../../tools/todos/todo-store.js';

/** A todo as every store keeps it (`todos`; `completed` is 0/1 in SQLite, a boolean in PostgreSQL). */
export type TodoRow = { id: string; task: string; completed: number | boolean; created_at: number };

export function todoFromRow(r: TodoRow): Todo {
  return {
    id: r.id,
    task: r.task,
    completed: r.completed === true || r.completed === 1,
    createdAt: r.created_at,
  };
}
