import type { Todo } from '../../tools/todos/todo-store.js';

/**
 * Each session's todo list (write_todos).
 */
export interface TodoLists {
  /** The session's todo list (write_todos), in order. */
  todos(session: string): Todo[];
  /** Replaces the session's todo list in one commit. */
  saveTodos(session: string, todos: readonly Todo[]): void;
}
