import * as z from 'zod';
import type { CommandFacts } from './command-facts.js';
import { type GovernanceMode, riskOf, type Tier } from './tier.js';
import type { JsonSchema, ToolContext, ToolDefinition, ToolLocation, ToolOutput } from './tool-definition.js';
import { ToolError } from './tool-error.js';

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  args: S;
  /** The JSON object the tool's content holds, for tools that answer in JSON (MCP outputSchema). */
  output?: z.ZodType;
  tier: Tier;
  category?: string;
  requiresApproval?: boolean;
  timeoutMs?: number;
  allowedModes?: readonly GovernanceMode[];
  rateLimitPerHour?: number;
  summary(args: z.output<S>): string;
  locations?(args: z.output<S>): ToolLocation[];
  execute(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput | string> | ToolOutput | string;
  commandFacts?(args: z.output<S>): CommandFacts;
  approvalDetail?(args: z.output<S>): string;
  prepare?(): Promise<void>;
  dispose?(): Promise<void>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool's arguments as JSON Schema draft 2020-12: what a caller may send (defaults optional). */
export function inputJsonSchema(args: z.ZodType): JsonSchema {
  return z.toJSONSchema(args, { io: 'input' }) as JsonSchema;
}

/** A tool's answer as JSON Schema draft 2020-12 (MCP outputSchema). */
export function outputJsonSchema(output: z.ZodType): JsonSchema {
  return z.toJSONSchema(output, { io: 'output' }) as JsonSchema;
}

/** Formats zod issues as `path: message` lines a model can act on. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Defines a tool from a zod schema. Its JSON Schema (for input: defaults optional) and output schema
 * are derived on first use and kept: converting zod costs milliseconds per tool, and a command that
 * only runs calls needs neither (the planner parses with zod and asks the schema only to explain a
 * failure). The built-ins' schemas are computed ahead of time (src/tools/builtin-listing.ts).
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolDefinition<z.output<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(`tool name "${spec.name}" must be 1-64 characters of letters, digits, _ or -`);
  }
  let inputSchema: JsonSchema | undefined;
  const tier = spec.tier;
  const tool = {
    name: spec.name,
    description: spec.description,
    tier,
    risk: riskOf(tier),
    category: spec.category ?? tier,
    // Privileged tools always ask unless a conditioned rule is standing approval (DESIGN §3).
    requiresApproval: spec.requiresApproval ?? tier === 'privileged',
    timeoutMs: spec.timeoutMs,
    allowedModes: spec.allowedModes,
    rateLimitPerHour: spec.rateLimitPerHour,
    get inputSchema(): JsonSchema {
      inputSchema ??= inputJsonSchema(spec.args);
      return inputSchema;
    },
    schemaFromParser: true,
    parse(raw: unknown): z.output<S> {
      const parsed = spec.args.safeParse(raw);
      if (!parsed.success) {
        throw new ToolError('BadArgs', `invalid arguments: ${formatZodIssues(parsed.error)}`);
      }
      return parsed.data;
    },
    summary: spec.summary,
    locations: spec.locations ?? (() => []),
    execute: spec.execute,
    ...(spec.commandFacts ? { commandFacts: spec.commandFacts } : {}),
    ...(spec.prepare ? { prepare: spec.prepare } : {}),
    ...(spec.dispose ? { dispose: spec.dispose } : {}),
    ...(spec.approvalDetail ? { approvalDetail: spec.approvalDetail } : {}),
  };
  const output = spec.output;
  if (output) {
    let outputSchema: JsonSchema | undefined;
    Object.defineProperty(tool, 'outputSchema', {
      enumerable: true,
      get: () => {
        outputSchema ??= outputJsonSchema(output);
        return outputSchema;
      },
    });
  }
  return Object.freeze(tool);
}
