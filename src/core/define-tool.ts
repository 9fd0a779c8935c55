import { z } from 'zod';
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

/** Formats zod issues as `path: message` lines a model can act on. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/** Defines a tool from a zod schema; the JSON Schema is derived once, for input (defaults optional). */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolDefinition<z.output<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(`tool name "${spec.name}" must be 1-64 characters of letters, digits, _ or -`);
  }
  const inputSchema = z.toJSONSchema(spec.args, { io: 'input' }) as JsonSchema;
  const tier = spec.tier;
  return Object.freeze({
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
    inputSchema,
    ...(spec.output ? { outputSchema: z.toJSONSchema(spec.output, { io: 'output' }) as JsonSchema } : {}),
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
  });
}
