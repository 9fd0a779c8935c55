import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testTool } from '../../test/helpers/tools.js';
import { exportDefinitions } from './export-definitions.js';
import { ToolRegistry } from './registry.js';

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), { minLength: 1, maxLength: 15 });

describe('ToolRegistry', () => {
  it('Property 1: a registered tool is retrieved as the same instance', () => {
    fc.assert(
      fc.property(names, (list) => {
        const registry = new ToolRegistry();
        const tools = list.map((n) => testTool(n));
        for (const t of tools) registry.register(t);
        for (const t of tools) expect(registry.get(t.name)).toBe(t);
      }),
    );
  });

  it('register rejects a duplicate name (seed 000); replace is explicit', () => {
    const registry = new ToolRegistry([testTool('a')]);
    expect(() => registry.register(testTool('a'))).toThrow(/already registered/);
  });

  it('Property 2: replace leaves only the second tool retrievable', () => {
    // DESIGN §3 overrides seed 001 here: `register` rejects a duplicate name (seed 000), replacing
    // is explicit (`replace`); so the property is tested on `replace`.
    fc.assert(
      fc.property(names, (list) => {
        const registry = new ToolRegistry(list.map((n) => testTool(n)));
        const second = testTool(list[0] as string);
        registry.replace(second);
        expect(registry.get(second.name)).toBe(second);
        expect(registry.size).toBe(list.length);
      }),
    );
  });

  it('Property 3: an unregistered tool is no longer retrievable', () => {
    fc.assert(
      fc.property(names, (list) => {
        const registry = new ToolRegistry(list.map((n) => testTool(n)));
        const gone = list[list.length - 1] as string;
        expect(registry.unregister(gone)).toBe(true);
        expect(registry.get(gone)).toBeUndefined();
        expect(registry.definitions().some((t) => t.name === gone)).toBe(false);
      }),
    );
  });

  it('Property 4: definitions() is sorted by name and stable across calls', () => {
    // Seed 001's list() is `definitions()` (DESIGN §3: sorted by name, schemas built once).
    fc.assert(
      fc.property(names, (list) => {
        const registry = new ToolRegistry(list.map((n) => testTool(n)));
        const first = registry.definitions().map((t) => t.name);
        expect(first).toEqual([...list].sort());
        expect(registry.definitions().map((t) => t.name)).toEqual(first);
        expect(registry.definitions()).toBe(registry.definitions()); // built once, cached
      }),
    );
  });

  // Property 5 (every export keeps each tool's name, description and parameters) is tested over
  // generated schemas, through every export toolgate has: test/conformance/property-5-schema-exports.test.ts.

  it('exports each provider shape', () => {
    const tools = new ToolRegistry([
      testTool('b', undefined, { tier: 'privileged' }),
      testTool('a'),
    ]).definitions();
    expect(exportDefinitions(tools, 'anthropic')).toEqual([
      { name: 'a', description: 'test tool a', input_schema: expect.objectContaining({ type: 'object' }) },
      { name: 'b', description: 'test tool b', input_schema: expect.objectContaining({ type: 'object' }) },
    ]);
    const responses = exportDefinitions(tools, 'openai-responses') as Record<string, unknown>[];
    expect(responses[0]).toMatchObject({ type: 'function', name: 'a' });
    const gemini = exportDefinitions(tools, 'gemini') as {
      functionDeclarations: Record<string, unknown>[];
    }[];
    expect(gemini[0]?.functionDeclarations[1]).toMatchObject({
      name: 'b',
      parametersJsonSchema: { type: 'object' },
    });
    const mcp = exportDefinitions(tools, 'mcp') as { annotations: Record<string, boolean> }[];
    expect(mcp[0]?.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(mcp[1]?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    // No "$schema" keyword sent to providers.
    expect(JSON.stringify(exportDefinitions(tools, 'openai-chat'))).not.toContain('$schema');
  });

  it('lists by category and by governance mode', () => {
    const registry = new ToolRegistry([testTool('x'), testTool('y', undefined, { tier: 'privileged' })]);
    expect(registry.byCategory('privileged').map((t) => t.name)).toEqual(['y']);
    expect(registry.forMode('NORMAL').map((t) => t.name)).toEqual(['x', 'y']);
  });

  it('defineTool derives the input JSON Schema once, with defaults optional (io: input)', () => {
    const tool = testTool('z');
    expect(tool.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
    });
    expect(tool.inputSchema.required).toBeUndefined();
    expect(tool.risk).toBe('low');
  });
});
