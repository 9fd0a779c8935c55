/** One entry of a session's todo list (seed 001 write_todos). */
export interface Todo {
  id: string;
  task: string;
  completed: boolean;
  /** ms since the epoch */
  createdAt: number;
}

/** Where a session's todo list lives: the journal (survives a restart) or memory (no journal). */
export interface TodoStore {
  list(): Todo[];
  /** Replaces the whole list, in order, at once. */
  save(todos: readonly Todo[]): void;
}

export class MemoryTodoStore implements TodoStore {
  #todos: Todo[] = [];

  list(): Todo[] {
    return this.#todos.map((t) => ({ ...t }));
  }

  save(todos: readonly Todo[]): void {
    this.#todos = todos.map((t) => ({ ...t }));
  }
}
