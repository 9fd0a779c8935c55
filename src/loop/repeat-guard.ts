import type { AssistantToolCall } from '../core/conversation.js';
import type { ToolResult } from '../core/tool-result.js';

/** Same call = same tool and same arguments, whatever the key order or spacing. */
function signature(call: AssistantToolCall): string {
  let args = call.arguments.trim();
  try {
    args = JSON.stringify(sortKeys(JSON.parse(args === '' ? '{}' : args)));
  } catch {
    // not JSON: compared as sent
  }
  return `${call.name}\u0000${args}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

/**
 * Self-correction has a limit (seed 003): errors go back to the model so it can fix its call,
 * but the same call failing `limit` times in one user turn ends the turn with a clear message.
 */
export class RepeatGuard {
  readonly #failures = new Map<string, number>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Returns the stop message once a call has failed `limit` times, else undefined. */
  record(call: AssistantToolCall, result: ToolResult): string | undefined {
    if (result.ok) return undefined;
    const key = signature(call);
    const count = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, count);
    if (count < this.#limit) return undefined;
    return `stopped: the model sent the same failing ${call.name} call ${count} times (max_repeated_failures = ${this.#limit}); last error: ${result.error?.message ?? result.content}`;
  }
}
