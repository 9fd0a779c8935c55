import { withoutDialect } from '../core/export-definitions.js';
import type { Toolgate } from '../toolgate.js';
import { runOneCall } from './run-one-call.js';

/** A Vercel AI SDK tool as `tool()` would build it: the SDK reads these three fields. */
export interface VercelAiTool<S> {
  description: string;
  inputSchema: S;
  execute: (input: unknown, options: { toolCallId?: string; abortSignal?: AbortSignal }) => Promise<string>;
}

/**
 * The registry as Vercel AI SDK tools (`generateText` / `streamText` `tools`), each call run by
 * toolgate. Pass the SDK's own `jsonSchema` so toolgate needs no dependency on it:
 *
 *   import { jsonSchema, streamText } from 'ai';
 *   streamText({ model, tools: toVercelAiTools(gate, { jsonSchema }), prompt });
 *
 * A failed call throws its message, so the SDK reports it to the model as a tool error.
 */
export function toVercelAiTools<S>(
  gate: Toolgate,
  sdk: { jsonSchema: (schema: never) => S },
): Record<string, VercelAiTool<S>> {
  const makeSchema = sdk.jsonSchema as unknown as (schema: unknown) => S;
  const tools: Record<string, VercelAiTool<S>> = {};
  for (const def of gate.registry.definitions()) {
    const schema = withoutDialect(def.inputSchema);
    // Defined, not assigned: a tool named `__proto__` would otherwise set the object's prototype
    // and be missing from the tools the SDK offers (found by Property 5's test).
    Object.defineProperty(tools, def.name, {
      enumerable: true,
      writable: true,
      configurable: true,
      value: {
        description: def.description,
        inputSchema: makeSchema(schema),
        execute: async (input, options) => {
          const result = await runOneCall(gate, def.name, input, {
            ...(options?.toolCallId ? { callId: options.toolCallId } : {}),
            ...(options?.abortSignal ? { signal: options.abortSignal } : {}),
          });
          if (!result.ok) throw new Error(result.content);
          return result.content;
        },
      } satisfies VercelAiTool<S>,
    });
  }
  return tools;
}
