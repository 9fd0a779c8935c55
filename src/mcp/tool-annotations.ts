import { isRepeatable } from '../core/tier.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';

/** MCP tool annotations derived from the tier and category (hints for clients, never a security boundary). */
export function toolAnnotations(tool: AnyToolDefinition) {
  return {
    title: tool.name,
    readOnlyHint: isRepeatable(tool.tier),
    destructiveHint: tool.tier === 'privileged',
    idempotentHint: isRepeatable(tool.tier),
    openWorldHint: tool.category === 'shell' || tool.tier === 'network',
  };
}
