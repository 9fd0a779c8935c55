import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import type { Tier } from '../../src/core/tier.js';
import type { ToolContext, ToolOutput } from '../../src/core/tool-definition.js';

/** A small real tool for pipeline tests; its behaviour is given by `run`. */
export function testTool(
  name: string,
  run: (
    args: { value?: string; ms?: number },
    ctx: ToolContext,
  ) => Promise<string | ToolOutput> | string | ToolOutput = async (a) => `echo:${a.value ?? ''}`,
  options: {
    tier?: Tier;
    timeoutMs?: number;
    requiresApproval?: boolean;
    rateLimitPerHour?: number;
    path?: boolean;
  } = {},
) {
  return defineTool({
    name,
    description: `test tool ${name}`,
    args: z.strictObject({
      value: z.string().optional(),
      ms: z.number().int().min(0).optional(),
      path: z.string().optional(),
    }),
    tier: options.tier ?? 'read_only',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.requiresApproval === undefined ? {} : { requiresApproval: options.requiresApproval }),
    ...(options.rateLimitPerHour === undefined ? {} : { rateLimitPerHour: options.rateLimitPerHour }),
    summary: (a) => `${name} ${a.value ?? ''}`,
    locations: (a) => (a.path ? [{ path: a.path, access: 'read' as const }] : []),
    execute: run,
  });
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
