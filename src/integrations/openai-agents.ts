import { withoutDialect } from '../core/export-definitions.js';
import type { Toolgate } from '../toolgate.js';
import { runOneCall } from './run-one-call.js';

/** The options the OpenAI Agents SDK's `tool()` takes for a JSON-Schema tool. */
export interface OpenAiAgentsToolOptions {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
  execute: (
    input: unknown,
    context?: unknown,
    details?: { toolCall?: { callId?: string }; signal?: AbortSignal },
  ) => Promise<string>;
}

/**
 * The registry as OpenAI Agents SDK tools, each call run by toolgate. Pass the SDK's own `tool`
 * so toolgate needs no dependency on it:
 *
 *   import { Agent, tool } from '@openai/agents';
 *   new Agent({ name: 'coder', tools: toOpenAiAgentsTools(gate, { tool }) });
 *
 * Errors come back as the result text (`<tool> failed: …`), as the Agents SDK expects.
 */
export function toOpenAiAgentsTools<T>(gate: Toolgate, sdk: { tool: (options: never) => T }): T[] {
  const makeTool = sdk.tool as unknown as (options: OpenAiAgentsToolOptions) => T;
  return gate.registry.definitions().map((def) => {
    const parameters = withoutDialect(def.inputSchema);
    return makeTool({
      name: def.name,
      description: def.description,
      // toolgate validates every call itself; strict mode would reject optional parameters.
      parameters,
      strict: false,
      execute: async (input, _context, details) => {
        const result = await runOneCall(gate, def.name, input, {
          ...(details?.toolCall?.callId ? { callId: details.toolCall.callId } : {}),
          ...(details?.signal ? { signal: details.signal } : {}),
        });
        return result.content;
      },
    });
  });
}
