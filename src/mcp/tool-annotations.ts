import type { AnyToolDefinition } from '../core/tool-definition.js';

/** MCP tool annotations derived from the tier and category (hints for clients, never a security boundary). */
export function toolAnnotations(tool: AnyToolDefinition) {
  return {
    title: tool.name,
    readOnlyHint: tool.tier === 'read_only',
    destructiveHint: tool.tier === 'privileged',
    idempotentHint: tool.tier === 'read_only',
    openWorldHint: tool.category === 'shell' || tool.category === 'network',
  };
}
