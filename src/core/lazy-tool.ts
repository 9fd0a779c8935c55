import { riskOf, type Tier } from './tier.js';
import type { AnyToolDefinition, JsonSchema } from './tool-definition.js';

/**
 * What a listing shows of a tool (tools/list, `toolgate tools`, a provider's tool shapes), known
 * without constructing it: for the built-ins, computed ahead of time from the tools themselves
 * (src/tools/builtin-listing.ts, checked against them by a test).
 */
export interface ToolListing {
  description: string;
  tier: Tier;
  category: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/**
 * A tool that is constructed the first time it is used (parsed, planned, run, or asked about
 * anything a listing does not hold), from its listing until then. Everything it answers comes from
 * the constructed tool except the listing, which must describe that tool; so it validates, decides
 * and runs exactly as the tool itself does. `dispose` releases it only if it was constructed.
 */
export function lazyTool(
  name: string,
  listing: ToolListing,
  construct: () => AnyToolDefinition,
): AnyToolDefinition {
  let built: AnyToolDefinition | undefined;
  const tool = (): AnyToolDefinition => {
    if (built) return built;
    built = construct();
    if (built.name !== name) throw new Error(`lazy tool "${name}" constructed "${built.name}"`);
    return built;
  };
  const lazy = {
    name,
    description: listing.description,
    tier: listing.tier,
    risk: riskOf(listing.tier),
    category: listing.category,
    inputSchema: listing.inputSchema,
    schemaFromParser: true,
    get requiresApproval() {
      return tool().requiresApproval;
    },
    get timeoutMs() {
      return tool().timeoutMs;
    },
    get allowedModes() {
      return tool().allowedModes;
    },
    get rateLimitPerHour() {
      return tool().rateLimitPerHour;
    },
    // The optional hooks exist exactly when the tool has them (the pipeline asks whether they do).
    get commandFacts() {
      return tool().commandFacts;
    },
    get approvalDetail() {
      return tool().approvalDetail;
    },
    get prepare() {
      return tool().prepare;
    },
    parse: (raw: unknown) => tool().parse(raw),
    summary: (args: unknown) => tool().summary(args),
    locations: (args: unknown) => tool().locations(args),
    execute: (args: unknown, ctx: Parameters<AnyToolDefinition['execute']>[1]) => tool().execute(args, ctx),
    dispose: async () => {
      await built?.dispose?.();
    },
    ...(listing.outputSchema ? { outputSchema: listing.outputSchema } : {}),
  };
  return Object.freeze(lazy);
}

/** A tool's listing, read from the tool (for the built-ins: how builtin-listing.ts is generated). */
export function listingOf(tool: AnyToolDefinition): ToolListing {
  return {
    description: tool.description,
    tier: tool.tier,
    category: tool.category,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  };
}
