import type { GovernanceMode } from './tier.js';
import type { AnyToolDefinition } from './tool-definition.js';

/**
 * Name → tool. `register` rejects duplicates (seed 000); replacing is explicit.
 * `definitions()` is sorted by name and cached until the set changes.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyToolDefinition>();
  #sorted: readonly AnyToolDefinition[] | undefined;

  constructor(tools: Iterable<AnyToolDefinition> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyToolDefinition): void {
    if (this.#tools.has(tool.name)) {
      throw new Error(`tool "${tool.name}" is already registered; use replace() to swap it`);
    }
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
  }

  replace(tool: AnyToolDefinition): void {
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
  }

  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) this.#sorted = undefined;
    return removed;
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  get size(): number {
    return this.#tools.size;
  }

  names(): string[] {
    return this.definitions().map((tool) => tool.name);
  }

  definitions(): readonly AnyToolDefinition[] {
    this.#sorted ??= Object.freeze(
      [...this.#tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
    return this.#sorted;
  }

  byCategory(category: string): AnyToolDefinition[] {
    return this.definitions().filter((tool) => tool.category === category);
  }

  /** Tools that may run in a governance mode (their own allowedModes; config may forbid more). */
  forMode(mode: GovernanceMode): AnyToolDefinition[] {
    return this.definitions().filter(
      (tool) => tool.allowedModes === undefined || tool.allowedModes.includes(mode),
    );
  }
}
