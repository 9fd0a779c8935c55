import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import {
  DEFINITION_FORMATS,
  type DefinitionFormat,
  type ExportableTool,
  exportDefinitions,
} from '../../src/core/export-definitions.js';
import { ToolRegistry } from '../../src/core/registry.js';
import type { AnyToolDefinition, JsonSchema } from '../../src/core/tool-definition.js';
import { toOpenAiAgentsTools } from '../../src/integrations/openai-agents.js';
import { toVercelAiTools } from '../../src/integrations/vercel-ai.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { createToolgate } from '../../src/toolgate.js';
import { useWorkspace } from '../helpers/workspace.js';

/**
 * Seed 001, Property 5 (issue #31 §4): for any set of registered tools, every export gives exactly
 * one schema per tool with its name, description and parameters preserved. Every export toolgate
 * has: the five provider/MCP formats of `exportDefinitions` (what `toolgate tools --format` and the
 * provider adapters send), the MCP server's `tools/list` as a real client receives it, and the
 * OpenAI Agents and Vercel AI SDK integrations.
 */

/** One generated parameter: its kind, with what its JSON Schema must keep. */
type Param =
  | { kind: 'string'; minLength: number | undefined }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: [string, ...string[]] }
  | { kind: 'array'; maxItems: number }
  | { kind: 'object' };

interface ParamSpec {
  name: string;
  description: string;
  presence: 'required' | 'optional' | 'default';
  param: Param;
}

interface ToolSpecGen {
  name: string;
  description: string;
  params: ParamSpec[];
}

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
/** Tool names: any the registry accepts, Object.prototype's own names often (each broke an export once). */
const toolName = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/), weight: 4 },
  {
    arbitrary: fc.constantFrom('__proto__', 'valueOf', 'constructor', 'toString', 'hasOwnProperty'),
    weight: 1,
  },
);
const param: fc.Arbitrary<Param> = fc.oneof(
  fc.record({ kind: fc.constant('string' as const), minLength: fc.option(fc.nat(20), { nil: undefined }) }),
  fc
    .tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.nat(1_000_000))
    .map(([min, span]) => ({ kind: 'integer' as const, min, max: min + span })),
  fc.constant({ kind: 'number' as const }),
  fc.constant({ kind: 'boolean' as const }),
  fc
    .uniqueArray(text, { minLength: 1, maxLength: 5 })
    .map((values) => ({ kind: 'enum' as const, values: values as [string, ...string[]] })),
  fc.record({ kind: fc.constant('array' as const), maxItems: fc.integer({ min: 1, max: 50 }) }),
  fc.constant({ kind: 'object' as const }),
);
const paramSpec: fc.Arbitrary<Omit<ParamSpec, 'name'>> = fc.record({
  description: text,
  presence: fc.constantFrom('required', 'optional', 'default'),
  param,
});
const toolSpecs: fc.Arbitrary<ToolSpecGen[]> = fc.uniqueArray(
  fc.record({
    name: toolName,
    description: text,
    params: fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/), paramSpec), {
        maxLength: 6,
        selector: ([name]) => name,
      })
      .map((list) => list.map(([name, rest]) => ({ name, ...rest }))),
  }),
  { minLength: 1, maxLength: 6, selector: (t) => t.name },
);

/** A value of the parameter's type, for `.default(…)`. */
function sample(p: Param): unknown {
  switch (p.kind) {
    case 'string':
      return 'x'.repeat(p.minLength ?? 0);
    case 'integer':
      return p.min;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'enum':
      return p.values[0];
    case 'array':
      return [];
    case 'object':
      return { inner: 'v' };
  }
}

function zodOf(p: Param): z.ZodType {
  switch (p.kind) {
    case 'string':
      return p.minLength === undefined ? z.string() : z.string().min(p.minLength);
    case 'integer':
      return z.number().int().min(p.min).max(p.max);
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(p.values);
    case 'array':
      return z.array(z.string()).max(p.maxItems);
    case 'object':
      return z.strictObject({ inner: z.string() });
  }
}

/** What the parameter's JSON Schema must say: its type, bounds, values and description. */
function expectedProperty(spec: ParamSpec): Record<string, unknown> {
  const p = spec.param;
  const base = {
    description: spec.description,
    ...(spec.presence === 'default' ? { default: sample(p) } : {}),
  };
  switch (p.kind) {
    case 'string':
      return { ...base, type: 'string', ...(p.minLength === undefined ? {} : { minLength: p.minLength }) };
    case 'integer':
      return { ...base, type: 'integer', minimum: p.min, maximum: p.max };
    case 'number':
      return { ...base, type: 'number' };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'enum':
      return { ...base, type: 'string', enum: p.values };
    case 'array':
      return { ...base, type: 'array', items: { type: 'string' }, maxItems: p.maxItems };
    case 'object':
      return {
        ...base,
        type: 'object',
        properties: { inner: { type: 'string' } },
        required: ['inner'],
        additionalProperties: false,
      };
  }
}

function toolOf(spec: ToolSpecGen): AnyToolDefinition {
  const shape: Record<string, z.ZodType> = {};
  for (const p of spec.params) {
    const described = zodOf(p.param).describe(p.description);
    shape[p.name] =
      p.presence === 'optional'
        ? described.optional()
        : p.presence === 'default'
          ? (described as z.ZodType<unknown>).default(sample(p.param))
          : described;
  }
  return defineTool({
    name: spec.name,
    description: spec.description,
    args: z.strictObject(shape),
    tier: 'read_only',
    summary: () => spec.name,
    execute: () => 'ok',
  }) as AnyToolDefinition;
}

/** The generated parameters, kept in the tool's own JSON Schema (what every export starts from). */
function expectParametersKept(schema: JsonSchema, spec: ToolSpecGen): void {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  expect(Object.keys(properties).sort()).toEqual(spec.params.map((p) => p.name).sort());
  for (const p of spec.params) expect(properties[p.name]).toEqual(expectedProperty(p));
  const required = spec.params.filter((p) => p.presence === 'required').map((p) => p.name);
  expect([...((schema.required as string[] | undefined) ?? [])].sort()).toEqual(required.sort());
  expect(schema.type).toBe('object');
  expect(schema.additionalProperties).toBe(false);
}

interface Exported {
  name: string;
  description: string;
  parameters: unknown;
}

/** Each format's entries, read back as name, description and parameters. */
function readBack(format: DefinitionFormat, exported: unknown): Exported[] {
  const list = exported as Record<string, unknown>[];
  switch (format) {
    case 'openai-chat':
      return list.map((d) => {
        expect(d.type).toBe('function');
        const f = d.function as Record<string, unknown>;
        return { name: f.name as string, description: f.description as string, parameters: f.parameters };
      });
    case 'openai-responses':
      return list.map((d) => {
        expect(d.type).toBe('function');
        return { name: d.name as string, description: d.description as string, parameters: d.parameters };
      });
    case 'anthropic':
      return list.map((d) => ({
        name: d.name as string,
        description: d.description as string,
        parameters: d.input_schema,
      }));
    case 'gemini': {
      expect(list).toHaveLength(1);
      const declarations = (list[0] as { functionDeclarations: Record<string, unknown>[] })
        .functionDeclarations;
      return declarations.map((d) => ({
        name: d.name as string,
        description: d.description as string,
        parameters: d.parametersJsonSchema,
      }));
    }
    case 'mcp':
      return list.map((d) => ({
        name: d.name as string,
        description: d.description as string,
        parameters: d.inputSchema,
      }));
  }
}

/** Exactly one entry per tool, in the registry's order, each with all three fields as they are. */
function expectComplete(exported: Exported[], tools: readonly ExportableTool[]): void {
  // Sent as JSON text: what arrives is what counts.
  const arrived = JSON.parse(JSON.stringify(exported)) as Exported[];
  const sent = tools.map((t) => {
    const { $schema: _dialect, ...parameters } = t.inputSchema;
    return { name: t.name, description: t.description, parameters };
  });
  // Compared as JSON on both sides (-0 is 0 there), key order aside.
  expect(arrived).toEqual(JSON.parse(JSON.stringify(sent)));
}

async function mcpToolsList(tools: AnyToolDefinition[], root: string) {
  const mcp = createMcpServer({ builtins: false, tools, roots: [root], baseDir: root });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'property-5', version: '0' });
  await mcp.server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await mcp.server.close();
  }
}

describe('Property 5: every export has exactly one schema per tool, name, description and parameters preserved', () => {
  const ws = useWorkspace();

  it('for generated tools, in the five formats of exportDefinitions', () => {
    fc.assert(
      fc.property(toolSpecs, (specs) => {
        const registry = new ToolRegistry(specs.map(toolOf));
        const tools = registry.definitions();
        const byName = new Map(specs.map((s) => [s.name, s]));
        for (const t of tools) expectParametersKept(t.inputSchema, byName.get(t.name) as ToolSpecGen);
        for (const format of DEFINITION_FORMATS) {
          expectComplete(readBack(format, exportDefinitions(tools, format)), tools);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('for config-defined tools (JSON Schema only, any keywords) in the five formats', () => {
    const schema = fc
      .dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
      .map((properties) => ({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties,
      }));
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            name: toolName,
            description: text,
            inputSchema: schema,
          }),
          {
            minLength: 1,
            maxLength: 6,
            selector: (t) => t.name,
          },
        ),
        (tools: ExportableTool[]) => {
          for (const format of DEFINITION_FORMATS) {
            expectComplete(readBack(format, exportDefinitions(tools, format)), tools);
          }
        },
      ),
    );
  });

  it("through the MCP server's tools/list, as a real client receives it", async () => {
    await fc.assert(
      fc.asyncProperty(toolSpecs, async (specs) => {
        const tools = specs.map(toolOf);
        const listed = await mcpToolsList(tools, ws.dir());
        const sorted = new ToolRegistry(tools).definitions();
        expectComplete(
          listed.map((t) => ({
            name: t.name,
            description: t.description as string,
            parameters: t.inputSchema,
          })),
          sorted,
        );
      }),
      { numRuns: 100 },
    );
  });

  it('through the OpenAI Agents and Vercel AI SDK integrations', () => {
    fc.assert(
      fc.property(toolSpecs, (specs) => {
        const tools = specs.map(toolOf);
        const gate = createToolgate({ builtins: false, tools, roots: [ws.dir()] });
        const sorted = gate.registry.definitions();
        // The SDKs' own `tool` and `jsonSchema` are given what toolgate hands them, unchanged.
        const agents = toOpenAiAgentsTools(gate, { tool: (options: never) => options });
        expectComplete(
          agents.map((o) => {
            const options = o as { name: string; description: string; parameters: unknown };
            return { name: options.name, description: options.description, parameters: options.parameters };
          }),
          sorted,
        );
        const vercel = toVercelAiTools(gate, { jsonSchema: (schema: never) => schema as unknown });
        expect(Object.keys(vercel)).toHaveLength(sorted.length);
        expectComplete(
          sorted.map((t) => {
            const entry = vercel[t.name];
            return {
              name: t.name,
              description: entry?.description as string,
              parameters: entry?.inputSchema,
            };
          }),
          sorted,
        );
      }),
    );
  });
});
