import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { testTool } from '../../test/helpers/tools.js';
import { defineTool } from './define-tool.js';
import { DEFINITION_FORMATS, exportDefinitions } from './export-definitions.js';
import { lazyTool, listingOf } from './lazy-tool.js';
import { ToolRegistry } from './registry.js';
import type { AnyToolDefinition } from './tool-definition.js';

/** A tool with every optional hook, and a count of how often it was constructed. */
function counted(name = 'probe') {
  const made = { count: 0, disposed: 0 };
  const make = () => {
    made.count++;
    return defineTool({
      name,
      description: `the ${name} tool`,
      args: z.strictObject({ n: z.number().int() }),
      output: z.object({ doubled: z.number() }),
      tier: 'privileged',
      category: 'test',
      timeoutMs: 1234,
      rateLimitPerHour: 7,
      allowedModes: ['NORMAL'],
      summary: (a) => `n=${a.n}`,
      locations: () => [{ path: 'x', access: 'read' }],
      execute: (a) => JSON.stringify({ doubled: a.n * 2 }),
      commandFacts: () => ({ commands: [], risks: [] }),
      approvalDetail: (a) => `detail ${a.n}`,
      prepare: async () => {},
      dispose: async () => {
        made.disposed++;
      },
    });
  };
  return { made, make };
}

describe('lazyTool', () => {
  it('lists a tool without constructing it, in every export format, and constructs it once on first use', async () => {
    const { made, make } = counted();
    const tool = lazyTool('probe', listingOf(make()), make);
    made.count = 0;
    const registry = new ToolRegistry([tool]);
    for (const format of DEFINITION_FORMATS) exportDefinitions(registry.definitions(), format);
    expect([tool.name, tool.description, tool.tier, tool.risk, tool.category]).toEqual([
      'probe',
      'the probe tool',
      'privileged',
      'high',
      'test',
    ]);
    expect(tool.outputSchema).toBeDefined();
    await tool.dispose?.(); // nothing constructed: nothing to release
    expect(made).toEqual({ count: 0, disposed: 0 });

    expect(tool.parse({ n: 2 })).toEqual({ n: 2 });
    expect(() => tool.parse({ n: 'x' })).toThrow(/invalid arguments: n:/);
    expect(tool.summary({ n: 2 })).toBe('n=2');
    expect(await tool.execute({ n: 2 }, {} as never)).toBe('{"doubled":4}');
    expect(made.count).toBe(1);
    await tool.dispose?.();
    expect(made.disposed).toBe(1);
  });

  it('answers every field and hook as the constructed tool does', () => {
    const { make } = counted();
    const eager = make();
    const lazy = lazyTool('probe', listingOf(eager), make);
    for (const key of [
      'name',
      'description',
      'tier',
      'risk',
      'category',
      'requiresApproval',
      'timeoutMs',
      'allowedModes',
      'rateLimitPerHour',
      'inputSchema',
      'outputSchema',
      'schemaFromParser',
    ] as const)
      expect(lazy[key], key).toEqual(eager[key]);
    expect(lazy.approvalDetail?.({ n: 3 })).toBe('detail 3');
    expect(lazy.commandFacts?.({ n: 3 })).toEqual({ commands: [], risks: [] });
    expect(typeof lazy.prepare).toBe('function');

    // A tool without the optional hooks has none lazily either (the pipeline asks whether it has).
    const plain = testTool('plain');
    const lazyPlain = lazyTool('plain', listingOf(plain), () => testTool('plain'));
    expect([lazyPlain.commandFacts, lazyPlain.approvalDetail, lazyPlain.prepare]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(lazyPlain.outputSchema).toBeUndefined();
    expect('outputSchema' in lazyPlain).toBe(false);
  });

  it('refuses a constructor that makes another tool', () => {
    const other: AnyToolDefinition = testTool('other');
    const tool = lazyTool('probe', listingOf(other), () => other);
    expect(() => tool.parse({})).toThrow(/lazy tool "probe" constructed "other"/);
  });
});

describe('defineTool', () => {
  it('derives its JSON Schemas on first use, once, as zod gives them', () => {
    const args = z.strictObject({ path: z.string().min(1).describe('where'), n: z.number().default(3) });
    const output = z.object({ ok: z.boolean() });
    const tool = defineTool({
      name: 't',
      description: 'd',
      args,
      output,
      tier: 'read_only',
      summary: () => 's',
      execute: () => 'x',
    });
    expect(tool.inputSchema).toEqual(z.toJSONSchema(args, { io: 'input' }));
    expect(tool.inputSchema).toBe(tool.inputSchema);
    expect(tool.outputSchema).toEqual(z.toJSONSchema(output, { io: 'output' }));
    expect(tool.outputSchema).toBe(tool.outputSchema);
    expect(Object.isFrozen(tool)).toBe(true);
    expect((tool.inputSchema as { required: string[] }).required).toEqual(['path']); // defaults optional
  });
});
