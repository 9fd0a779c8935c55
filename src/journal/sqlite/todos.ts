import type { Todo } from '../../tools/todos/todo-store.js';
import { type TodoRow, todoFromRow } from '../common/todo-rows.js';
import type { TodoLists } from '../roles/todo-lists.js';
import type { SqliteContext } from './sqlite-context.js';

/** Each session's todo list (write_todos), on SQLite. */
export class SqliteTodos implements TodoLists {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  todos(session: string): Todo[] {
    return (this.#ctx.stmt.todos.all(session) as TodoRow[]).map(todoFromRow);
  }

  saveTodos(session: string, todos: readonly Todo[]): void {
    const stmt = this.#ctx.stmt;
    this.#ctx.write(() => {
      stmt.clearTodos.run(session);
      for (const [i, t] of todos.entries())
        stmt.putTodo.run(session, i, t.id, t.task, t.completed ? 1 : 0, t.createdAt);
    });
  }
}
