import type { Todo } from '../../tools/todos/todo-store.js';
import { type TodoRow, todoFromRow } from '../common/todo-rows.js';
import type { TodoLists } from '../roles/todo-lists.js';
import type { PgContext } from './pg-context.js';
import type { PgStatement } from './sync-pg.js';

/** Each session's todo list (write_todos), on PostgreSQL. */
export class PgTodos implements TodoLists {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  todos(session: string): Todo[] {
    return this.#ctx
      .query<TodoRow>(
        'SELECT id, task, completed, created_at FROM todos WHERE session_id = $1 ORDER BY position',
        [session],
      )
      .map(todoFromRow);
  }

  saveTodos(session: string, todos: readonly Todo[]): void {
    this.#ctx.write([
      { text: 'DELETE FROM todos WHERE session_id = $1', values: [session] },
      ...todos.map(
        (t, i): PgStatement => ({
          text: 'INSERT INTO todos (session_id, position, id, task, completed, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          values: [session, i, t.id, t.task, t.completed, t.createdAt],
        }),
      ),
    ]);
  }
}
