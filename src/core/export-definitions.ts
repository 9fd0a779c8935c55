import { isRepeatable, type Tier } from './tier.js';
import type { AnyToolDefinition, JsonSchema } from './tool-definition.js';

/** What an export needs of a tool: registry tools and config-defined ones (no tier) alike. */
export type ExportableTool = Pick<AnyToolDefinition, 'name' | 'description' | 'inputSchema'> & {
  tier?: Tier;
};

/** Provider tool-definition shapes (shared/research/providers.md). */
export type DefinitionFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';
export const DEFINITION_FORMATS: readonly DefinitionFormat[] = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'mcp',
];

/** Providers reject the `$schema` keyword in places; the dialect is fixed by us anyway. */
export function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

export function exportDefinitions(tools: readonly ExportableTool[], format: DefinitionFormat): unknown {
  switch (format) {
    case 'openai-chat':
      return tools.map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: withoutDialect(tool.inputSchema),
        },
      }));
    case 'openai-responses':
      return tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: withoutDialect(tool.inputSchema),
      }));
    case 'anthropic':
      return tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: withoutDialect(tool.inputSchema),
      }));
    case 'gemini':
      // parametersJsonSchema takes plain JSON Schema, unlike the OpenAPI-subset `parameters`.
      return [
        {
          functionDeclarations: tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: withoutDialect(tool.inputSchema),
          })),
        },
      ];
    case 'mcp':
      return tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: withoutDialect(tool.inputSchema),
        annotations: {
          readOnlyHint: tool.tier !== undefined && isRepeatable(tool.tier),
          destructiveHint: tool.tier === 'privileged',
          ...(tool.tier === 'network' ? { openWorldHint: true } : {}),
        },
      }));
  }
}
