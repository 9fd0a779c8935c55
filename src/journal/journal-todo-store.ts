import type { Todo, TodoStore } from '../tools/todos/todo-store.js';
import type { TodoLists } from './journal.js';

/** A session's todo list kept in the journal: it survives a restart; `toolgate journal show` shows the calls that changed it. */
export class JournalTodoStore implements TodoStore {
  constructor(
    private readonly journal: TodoLists,
    private readonly session: string,
  ) {}

  list(): Todo[] {
    return this.journal.todos(this.session);
  }

  save(todos: readonly Todo[]): void {
    this.journal.saveTodos(this.session, todos);
  }
}
