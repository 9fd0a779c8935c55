import type { AnyToolDefinition } from '../core/tool-definition.js';

/**
 * Arguments MCP hosts add to every tool call on their own account, never meant for the tool:
 * gemini-cli adds `wait_for_previous` to every tool's schema, tells its model to set it, and passes
 * it on. Only these names, and only where the tool does not declare them itself, are taken out
 * before validation; every other unknown argument stays an error.
 */
const HOST_INJECTED = ['wait_for_previous'] as const;

export function withoutHostArguments(
  tool: AnyToolDefinition | undefined,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; dropped: Record<string, unknown> | undefined } {
  const declared =
    (tool?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  let dropped: Record<string, unknown> | undefined;
  let rest = args;
  for (const name of HOST_INJECTED) {
    if (!(name in args) || name in declared) continue;
    dropped ??= {};
    dropped[name] = args[name];
    if (rest === args) rest = { ...args };
    delete rest[name];
  }
  return { args: rest, dropped };
}
