import type { ResolvedPath, Sandbox } from '../sandbox/sandbox.js';
import type { CommandFacts } from './command-facts.js';
import type { GovernanceMode, RiskLevel, Tier } from './tier.js';

/** A path or resource a call touches: what sandbox preflight checks and approval shows. */
export interface ToolLocation {
  path: string;
  /** `delete` names the entry itself: a symlink there is not followed when it is checked. */
  access: 'read' | 'write' | 'delete' | 'list';
}

/**
 * How the pipeline cleared a call to run (issue #29). A person approved it: it runs as they saw it.
 * A rule allowed it with nobody asked: a command tool runs only what the policy judged, the
 * command line as toolgate rebuilt it (`rebuilt`; undefined when there is none, and then nothing runs).
 */
export type Clearance = { by: 'person' } | { by: 'policy'; rebuilt?: string };

/** Built fresh for every call (seed 000 FR-REG-04a). */
export interface ToolContext {
  /** How the call was cleared to run; undefined when a tool is run outside the pipeline. */
  readonly clearance?: Clearance | undefined;
  callId: string;
  /** Aborted on cancel or timeout; long work must stop when it fires. */
  signal: AbortSignal;
  sandbox: Sandbox;
  /** Bytes the final content may take (the framework truncates above this unless a tool self-limits). */
  outputLimit: number;
  /**
   * The call's locations as the planner resolved and checked them (sandbox and policy), one per
   * `locations()` entry, in order. What was approved; a tool may use them instead of resolving
   * again only where it verifies the file it opened is that path (safe-fs does on Linux).
   */
  paths?: readonly ResolvedPath[] | undefined;
  /**
   * The W3C `traceparent` of this call's span when a trace is being recorded: a tool that starts a
   * process or sends a request passes it on (run_command sets TRACEPARENT), so the trace continues.
   */
  readonly traceparent?: string | undefined;
  /** True when someone receives `emit()`: a tool may skip preparing live output nobody reads. */
  readonly streaming: boolean;
  /**
   * Output as it happens (UI only); raw bytes are fine, they are decoded and sanitized for the UI
   * before `emit` returns (the tool may reuse the buffer). A returned promise means the consumer is behind: produce no more until it settles (backpressure).
   */
  emit(stream: 'stdout' | 'stderr', chunk: string | Uint8Array): undefined | PromiseLike<void>;
}

/** What a tool returns; a plain string is shorthand for `{content}`. */
export interface ToolOutput {
  content: string;
  display?: string;
  /**
   * Facts about the result. `structured`: for a tool with an outputSchema whose `content` is not
   * the JSON itself (grep's text with context), the answer as that schema describes it.
   */
  metadata?: Record<string, unknown>;
  /** false when the tool limited its own output and framework truncation would corrupt it (binary). */
  allowTruncation?: boolean;
}

export type JsonSchema = Record<string, unknown>;

/** The one shape every tool has once defined, whether from zod, JSON Schema (config/MCP) or code. */
export interface ToolDefinition<A = unknown> {
  readonly name: string;
  readonly description: string;
  readonly tier: Tier;
  readonly risk: RiskLevel;
  readonly category: string;
  readonly requiresApproval: boolean;
  readonly timeoutMs: number | undefined;
  /** Governance modes the tool may run in; undefined = every mode. */
  readonly allowedModes: readonly GovernanceMode[] | undefined;
  readonly rateLimitPerHour: number | undefined;
  /** JSON Schema draft 2020-12 of the arguments, derived once. */
  readonly inputSchema: JsonSchema;
  /**
   * For tools that answer in JSON: its JSON Schema (MCP `outputSchema`). The answer is the content
   * itself when that is one JSON object, else `metadata.structured`; the tool keeps it whole and
   * valid within the output limit.
   */
  readonly outputSchema?: JsonSchema;
  /** The single parse boundary: schema-valid JSON → typed args (throws ToolError BadArgs). */
  parse(raw: unknown): A;
  /**
   * True when `inputSchema` was derived from the parser (defineTool): whatever `parse` accepts the
   * schema accepts, so the planner runs the schema check only to explain a parse failure.
   */
  readonly schemaFromParser?: boolean;
  /** Approval summary: derived from typed args, no I/O. The planner redacts and caps it. */
  summary(args: A): string;
  locations(args: A): ToolLocation[];
  /** The work. A tool that finishes without waiting may return its output directly (no timer is armed then). */
  execute(args: A, ctx: ToolContext): Promise<ToolOutput | string> | ToolOutput | string;
  /** The whole thing to approve when the 200-character summary cannot hold it (a long command). */
  approvalDetail?(args: A): string;
  /** For command tools: the parsed command, so policy judges every sub-command (run_command). */
  commandFacts?(args: A): CommandFacts;
  /** Async set-up awaited before a batch holding this tool is planned (e.g. loading a parser). */
  prepare?(): Promise<void>;
  /** Releases what the tool holds between calls (helpers that would keep the process alive). */
  dispose?(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
export type AnyToolDefinition = ToolDefinition<any>;
