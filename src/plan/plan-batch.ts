import path from 'node:path';
import { lookAlikeHostNotes } from '../approval/look-alike-hosts.js';
import type { CommandFacts } from '../core/command-facts.js';
import type { ConfirmationRequest } from '../core/confirmation.js';
import { type Denial, denialMetadata } from '../core/denial.js';
import type { Grant } from '../core/grant.js';
import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolRegistry } from '../core/registry.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolLocation } from '../core/tool-definition.js';
import { ToolError } from '../core/tool-error.js';
import { redactSecrets } from '../output/redact-secrets.js';
import { capTitle, showExact } from '../output/show-exact.js';
import { hintForDenial } from '../policy/allow-hint.js';
import type { PolicyEngine, PolicyInput } from '../policy/policy-engine.js';
import type { RateCounter } from '../policy/rate-limiter.js';
import type { ResolvedPath, Sandbox } from '../sandbox/sandbox.js';
import { checkCommandArgs } from './check-command-args.js';
import type { SchemaValidator } from './schema-validator.js';

export type ToolsMode = 'disabled' | 'parse_only' | 'enabled';

export interface PlanLimits {
  mode: ToolsMode;
  maxCallsPerBatch: number;
  maxArgsBytes: number;
}

export interface PlanDeps {
  registry: ToolRegistry;
  policy: PolicyEngine;
  sandbox: Sandbox;
  validator: SchemaValidator;
  rates: RateCounter;
  limits: PlanLimits;
  now?: number;
  /** Standing grants of this session and project ("always allow" answers). */
  grants?: readonly Grant[];
  /** The config file in use, or where one would be read: named in denials that say how to allow. */
  configWhere?: string;
  /** For command tools: the repository-controlled git settings at a directory that run programs. */
  gitDangers?: (cwd: string) => string[];
  /** Tools switched off by the config, with why: a call to one is told so, not "unknown". */
  switchedOff?: ReadonlyMap<string, string>;
  /** Commands run under the OS sandbox ([tools.run_command] sandbox = "os"): denied files are fenced there. */
  commandsFenced?: boolean;
}

const ONE_LINE = { oneLine: true } as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function argsBytes(args: ToolCall['arguments']): number {
  return Buffer.byteLength(typeof args === 'string' ? args : JSON.stringify(args), 'utf8');
}

/**
 * Plans one batch (seed 000 FR-LIM, FR-VAL-02/02a, FR-APR-05/06): limits → duplicate ids →
 * lookup → JSON-Schema validation → typed parse → summary → sandbox preflight → policy.
 * Every call gets a disposition; failures are pre-resolved error results and never prompt.
 */
export function planBatch(calls: readonly ToolCall[], deps: PlanDeps): PlannedCall[] {
  const seen = new Set<string>();
  const inBatch = new Map<string, number>();
  const now = deps.now ?? Date.now();
  return calls.map((call, index) => {
    const resolve = (
      type: Parameters<typeof errorResult>[2],
      message: string,
      extra: Partial<PlannedCall> = {},
      denial?: Denial,
    ) => ({
      call,
      index,
      ...extra,
      disposition: {
        kind: 'resolved' as const,
        result: errorResult(call.id, call.name, type, message, 0, denial && denialMetadata(denial)),
      },
    });
    if (deps.limits.mode === 'disabled') {
      const reason = 'tools are disabled (tools.mode = "disabled"); no tool calls are run';
      return resolve('Denied', reason, {}, { kind: 'disabled', reason, rule: 'tools.mode' });
    }
    const duplicate = seen.has(call.id);
    seen.add(call.id);
    if (duplicate) {
      return resolve(
        'DuplicateToolCallId',
        `tool call id "${call.id}" is used more than once in this batch; each call needs its own id`,
      );
    }
    const bytes = argsBytes(call.arguments);
    if (bytes > deps.limits.maxArgsBytes) {
      return resolve(
        'LimitExceeded',
        `arguments are ${bytes} bytes, more than the ${deps.limits.maxArgsBytes} allowed ([tools] max_tool_args_bytes raises it)`,
        {},
        {
          kind: 'limits_exceeded',
          reason: `${bytes} bytes of arguments, over max_tool_args_bytes`,
          rule: 'tools.max_tool_args_bytes',
        },
      );
    }
    const tool = deps.registry.get(call.name);
    const off = tool ? undefined : deps.switchedOff?.get(call.name);
    if (off) return resolve('Denied', off);
    if (!tool) {
      const known = deps.registry.names();
      return resolve(
        'UnknownTool',
        `unknown tool "${call.name}"; available tools: ${known.join(', ') || '(none)'}`,
      );
    }
    let raw: unknown = call.arguments;
    if (typeof raw === 'string') {
      try {
        raw = raw.trim() === '' ? {} : JSON.parse(raw);
      } catch (error) {
        return resolve(
          'BadArgs',
          `arguments are not valid JSON (${(error as Error).message}); send a JSON object`,
          {
            tool,
          },
        );
      }
    }
    if (!isPlainObject(raw)) return resolve('BadArgs', 'arguments must be a JSON object', { tool });
    // FR-VAL-01: JSON Schema first. When the schema was derived from the tool's own parser, a
    // successful parse already proves it, and the schema is consulted only to explain a failure.
    let parsed: { args: unknown } | undefined;
    if (tool.schemaFromParser) {
      try {
        parsed = { args: tool.parse(raw) };
      } catch {
        parsed = undefined;
      }
    }
    if (!parsed) {
      const schemaProblem = deps.validator.check(tool, raw);
      if (schemaProblem) return resolve('BadArgs', `invalid arguments: ${schemaProblem}`, { tool });
    }
    let args: unknown;
    let summary: string;
    let summaryFull: string | undefined;
    let locations: ToolLocation[];
    let commandFacts: CommandFacts | undefined;
    try {
      args = parsed ? parsed.args : tool.parse(raw);
      // Shown exactly (issue #30 §1): a secret in the arguments is the person's to see; redaction is
      // for logs and what goes back to the model. Cut only as a title, saying so; whole beside it.
      const full = showExact(tool.summary(args), ONE_LINE);
      summary = capTitle(full);
      if (summary !== full) summaryFull = full;
      locations = tool.locations(args);
      commandFacts = tool.commandFacts?.(args);
    } catch (error) {
      const message = ToolError.isInstance(error)
        ? error.message
        : `invalid arguments: ${(error as Error).message}`;
      return resolve('BadArgs', message, { tool });
    }
    // Past the batch limit a call is not run, but its own mistakes (checked above) are still the
    // more useful thing to report.
    if (index >= deps.limits.maxCallsPerBatch) {
      const max = deps.limits.maxCallsPerBatch;
      const reason = `too many tool calls in one batch: this is call ${index + 1} of ${calls.length} and at most ${max} run`;
      return resolve(
        'LimitExceeded',
        `${reason}; send the rest in a later turn ([tools] max_tool_calls_per_batch raises the limit)`,
        { tool, args, summary },
        { kind: 'limits_exceeded', reason, rule: 'tools.max_tool_calls_per_batch' },
      );
    }
    if (deps.limits.mode === 'parse_only') {
      return resolve(
        'Denied',
        'tools.mode is "parse_only": the call was recorded but not run; supply its result yourself',
        {
          tool,
          args,
          summary,
        },
      );
    }
    const paths: ResolvedPath[] = [];
    let sandboxError: ToolError | undefined;
    for (const location of locations) {
      try {
        // A deletion removes the entry itself (a link stays a link), so its link is not followed.
        paths.push(
          location.access === 'delete'
            ? deps.sandbox.resolveEntry(location.path)
            : deps.sandbox.resolve(location.path),
        );
      } catch (error) {
        sandboxError = ToolError.isInstance(error) ? error : new ToolError('SandboxViolation', String(error));
        break;
      }
    }
    // Command lines: every argument judged as a path would be, git against the repository's config.
    const cwd = paths[0];
    if (commandFacts && cwd && !sandboxError) {
      checkCommandArgs(commandFacts, {
        sandbox: deps.sandbox,
        cwd: cwd.absolute,
        gitDangers: deps.gitDangers ?? (() => ['the git configuration cannot be checked here']),
        fenced: deps.commandsFenced === true,
      });
    }
    let recentCalls = 0;
    try {
      // Counted only where a limit applies: counting reads the journal.
      if (deps.policy.rateLimitOf(tool) !== undefined)
        recentCalls = deps.rates.count(tool.name, now) + (inBatch.get(tool.name) ?? 0);
    } catch (error) {
      // Fail closed: a limit that cannot be checked is not a limit that passed.
      return resolve('Denied', `the rate limit could not be checked (${(error as Error).message}); not run`, {
        tool,
        args,
        summary,
      });
    }
    // Built by assignment, not conditional spreads: this runs for every call (cheaper before V8 optimizes it).
    const input: PolicyInput = { tool, args: raw, paths, recentCalls };
    if (sandboxError) input.sandboxError = sandboxError;
    if (commandFacts) input.commandFacts = commandFacts;
    if (deps.grants?.length) input.grants = deps.grants;
    if (locations.some((l) => l.access === 'delete')) input.deletes = true;
    const decision = deps.policy.decide(input);
    const planned: PlannedCall = {
      call,
      index,
      tool,
      args,
      decision,
      summary,
      disposition: { kind: 'execute' },
    };
    if (commandFacts) planned.commandFacts = commandFacts;
    if (!sandboxError) planned.paths = paths;
    if (decision.action === 'deny') {
      const type = decision.errorType ?? 'Denied';
      const hint = deps.configWhere ? hintForDenial(decision, tool.name, deps.configWhere) : undefined;
      // Told to the model: a reason quoting the call (`mysql --password=…`) is redacted here.
      const message = redactSecrets(
        type === 'SandboxViolation'
          ? decision.reason
          : // The fix first (issue #31 §1: hosts shorten results), then why.
            `denied by policy. ${hint ? `To allow it: ${hint}. ` : ''}Why: ${decision.reason} (${decision.rule} in ${fileName(decision.file)})`,
      );
      const denial = denialOf(decision, locations, paths, sandboxError);
      denial.reason = redactSecrets(denial.reason);
      if (hint) denial.allow = redactSecrets(hint);
      planned.disposition = {
        kind: 'resolved',
        result: errorResult(call.id, call.name, type, message, 0, denialMetadata(denial)),
      };
      return planned;
    }
    inBatch.set(tool.name, (inBatch.get(tool.name) ?? 0) + 1);
    if (decision.action === 'ask') {
      // Everything a person reads, exact and made visible (issue #30 §1): never redacted, never cut.
      const request: ConfirmationRequest = {
        callId: call.id,
        toolName: tool.name,
        summary,
        risk: decision.risk,
        locations: locations.map((l, i) => ({
          ...l,
          path: showExact(paths[i]?.relative ?? l.path, ONE_LINE),
        })),
        reason: showExact(decision.reason, ONE_LINE),
        rule: decision.rule,
        index,
      };
      if (summaryFull !== undefined) request.summaryFull = summaryFull;
      // A command's look-alike hosts are named as web_fetch names its own (issue #30 §3).
      const notes = [
        ...(decision.message !== undefined ? [decision.message] : []),
        ...(commandFacts ? lookAlikeHostNotes(commandFacts.commands.map((c) => c.text).join('\n')) : []),
      ];
      if (notes.length > 0) request.message = showExact(notes.join('; '), ONE_LINE);
      if (tool.approvalDetail) request.detail = showExact(tool.approvalDetail(args));
      // A command line as the policy parsed it: each sub-command it judged (the console shows them).
      if (commandFacts && commandFacts.commands.length > 1)
        request.commands = commandFacts.commands.map((c) => showExact(c.text, ONE_LINE));
      planned.disposition = { kind: 'needs_approval', request };
    }
    return planned;
  });
}

/** The structured reason of a policy denial (NFR-ERR-02): rule, file, and the paths involved. */
function denialOf(
  decision: { reason: string; rule: string; file: string; errorType?: string },
  locations: readonly ToolLocation[],
  paths: readonly ResolvedPath[],
  sandboxError: ToolError | undefined,
): Denial {
  const base = { reason: decision.reason, rule: decision.rule, file: fileName(decision.file) };
  if (decision.errorType === 'SandboxViolation') {
    const meta = sandboxError?.metadata ?? {};
    const attempted = typeof meta.attempted === 'string' ? meta.attempted : locations[paths.length]?.path;
    const denial: Denial = {
      ...base,
      kind: typeof meta.pattern === 'string' ? 'denied_pattern' : 'path_outside_sandbox',
    };
    if (attempted !== undefined) denial.attempted = attempted;
    if (typeof meta.resolved === 'string') denial.resolved = meta.resolved;
    if (typeof meta.pattern === 'string') denial.pattern = meta.pattern;
    return denial;
  }
  if (decision.rule === 'tools.approval.denylist') return { ...base, kind: 'denylisted' };
  if (decision.rule === 'tools.approval.enabled') return { ...base, kind: 'disabled' };
  if (decision.errorType === 'LimitExceeded') return { ...base, kind: 'limits_exceeded' };
  const first = paths[0];
  return first
    ? { ...base, kind: 'policy', attempted: first.input, resolved: first.relative }
    : { ...base, kind: 'policy' };
}

/**
 * The config file a decision came from, as the model is told it: its name, never the absolute path
 * of the user's machine (issue #31 §1); the hint beside it says where it is relative to the root.
 */
function fileName(file: string): string {
  return path.isAbsolute(file) ? path.basename(file) : file;
}
