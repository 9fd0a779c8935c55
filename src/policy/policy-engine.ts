import { grantedPrefixes, grantsCover } from '../approval/grant-coverage.js';
import type { PolicyRule, ToolgateConfig } from '../config/config-schema.js';
import type { CommandFacts } from '../core/command-facts.js';
import type { Grant } from '../core/grant.js';
import type { PolicyAction, PolicyDecision } from '../core/policy-decision.js';
import { type GovernanceMode, riskOf } from '../core/tier.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import type { ToolError } from '../core/tool-error.js';
import type { ResolvedPath } from '../sandbox/sandbox.js';
import { evaluateConditions } from './evaluate-conditions.js';
import { governanceDefault } from './governance-defaults.js';
import { GovernancePaths, governancePathProblem } from './governance-paths.js';
import { type NameMatcher, nameMatcher, specificity } from './match-name.js';
import { PatternCache } from './pattern-cache.js';
import { judgeShell, type ShellVerdict } from './shell-policy.js';

export interface PolicyInput {
  tool: AnyToolDefinition;
  /** Schema-valid arguments as the model sent them (conditions look at these). */
  args: Record<string, unknown>;
  /** Sandbox preflight results for the tool's locations. */
  paths: readonly ResolvedPath[];
  /** The preflight failure, if any: a denial at precedence step 3. */
  sandboxError?: ToolError;
  /** Calls of this tool in the last hour, including earlier ones in this batch. */
  recentCalls: number;
  /** For command tools: the parsed command line (every sub-command is judged). */
  commandFacts?: CommandFacts;
  /** "Always allow" grants in force for this session (and project). */
  grants?: readonly Grant[];
  /** The call removes a file or directory (delete_file, an apply_patch `*** Delete File:`). */
  deletes?: boolean;
}

type PolicyConfig = Pick<ToolgateConfig['tools'], 'approval' | 'policy' | 'governance'> & {
  run_command?: ToolgateConfig['tools']['run_command'];
};

const DEFAULTS_FILE = '(built-in defaults)';

/**
 * The one policy decision point (DESIGN §3). Precedence, first match wins:
 * 1 disabled → 2 denylist → governance mode forbids → rate limit → 3 sandbox → governance paths →
 * rules (tool-specific before glob before `*`; deny > ask > allow at the same level) →
 * governance asks → 4 approval mode / allowlist → 5 tool `requiresApproval` → 6 allow.
 * An exception anywhere is a denial (fail closed).
 */
export class PolicyEngine {
  readonly #config: PolicyConfig;
  readonly #patterns = new PatternCache();
  readonly #governancePaths = new GovernancePaths();
  readonly #file: string;
  readonly #allowlist: NameMatcher;
  readonly #denylist: NameMatcher;
  readonly #rules: readonly { rule: PolicyRule; index: number; level: number; matches: NameMatcher }[];
  /** Per governance mode configured in [tools.governance.modes], its name lists compiled once. */
  readonly #modeMatchers: ReadonlyMap<
    GovernanceMode,
    { forbidden: NameMatcher; ask: NameMatcher; allowed?: NameMatcher }
  >;
  #mode: GovernanceMode;

  constructor(config: PolicyConfig, file: string | undefined) {
    this.#config = config;
    this.#file = file ?? DEFAULTS_FILE;
    this.#allowlist = nameMatcher(config.approval.allowlist);
    this.#denylist = nameMatcher(config.approval.denylist);
    this.#rules = config.policy.rules.map((rule, index) => ({
      rule,
      index,
      level: specificity(rule.tool),
      matches: nameMatcher([rule.tool]),
    }));
    this.#mode = config.governance.mode;
    this.#modeMatchers = new Map(
      Object.entries(config.governance.modes).flatMap(([mode, m]) =>
        m
          ? [
              [
                mode as GovernanceMode,
                {
                  forbidden: nameMatcher(m.forbidden),
                  ask: nameMatcher(m.ask),
                  ...(m.allowed.length > 0 ? { allowed: nameMatcher(m.allowed) } : {}),
                },
              ] as const,
            ]
          : [],
      ),
    );
  }

  get mode(): GovernanceMode {
    return this.#mode;
  }

  /** Governance mode changes at run time (e.g. an operator raises ALERT). */
  setMode(mode: GovernanceMode): void {
    this.#mode = mode;
  }

  /** Whether the current governance mode lets a tool run at all (what an MCP server lists). */
  allowedInMode(tool: AnyToolDefinition): boolean {
    return this.#modeDenial(tool) === undefined;
  }

  /** The rule by which the current mode asks for approval of a tool it allows, if it does. */
  #modeAsks(tool: AnyToolDefinition): { rule: string; file: string } | undefined {
    const mode = this.#mode;
    const modeMatch = this.#modeMatchers.get(mode);
    if (modeMatch)
      return modeMatch.ask(tool.name)
        ? { rule: `tools.governance.modes.${mode}`, file: this.#file }
        : undefined;
    return governanceDefault(mode, tool.tier) === 'ask'
      ? { rule: `governance mode ${mode} default for ${tool.tier} tools`, file: DEFAULTS_FILE }
      : undefined;
  }

  /** Why the current mode forbids the tool (its own modes, the config's, the mode's default), if it does. */
  #modeDenial(tool: AnyToolDefinition): { reason: string; rule: string; file: string } | undefined {
    const mode = this.#mode;
    const file = this.#file;
    const gov = this.#governanceOf(tool.name);
    if (tool.allowedModes && !tool.allowedModes.includes(mode))
      return {
        reason: `"${tool.name}" may not run in ${mode} mode`,
        rule: `tool ${tool.name} allowedModes`,
        file: DEFAULTS_FILE,
      };
    if (gov?.forbidden_in_modes.includes(mode))
      return {
        reason: `"${tool.name}" is forbidden in ${mode} mode`,
        rule: `tools.governance.tools.${tool.name}.forbidden_in_modes`,
        file,
      };
    if (gov?.allowed_in_modes && !gov.allowed_in_modes.includes(mode))
      return {
        reason: `"${tool.name}" is not allowed in ${mode} mode`,
        rule: `tools.governance.tools.${tool.name}.allowed_in_modes`,
        file,
      };
    const modeMatch = this.#modeMatchers.get(mode);
    if (modeMatch) {
      const forbidden =
        modeMatch.forbidden(tool.name) ||
        (!modeMatch.ask(tool.name) && modeMatch.allowed !== undefined && !modeMatch.allowed(tool.name));
      return forbidden
        ? {
            reason: `"${tool.name}" is forbidden in ${mode} mode`,
            rule: `tools.governance.modes.${mode}`,
            file,
          }
        : undefined;
    }
    return governanceDefault(mode, tool.tier) === 'forbid'
      ? {
          reason: `"${tool.name}" is forbidden in ${mode} mode`,
          rule: `governance mode ${mode} default for ${tool.tier} tools`,
          file: DEFAULTS_FILE,
        }
      : undefined;
  }

  /**
   * The config's governance settings for a tool: its own entry only, so a tool named `valueOf` or
   * `constructor` does not read Object.prototype's (which crashed tools/list; Property 5's test).
   */
  #governanceOf(name: string) {
    const tools = this.#config.governance.tools;
    return Object.hasOwn(tools, name) ? tools[name] : undefined;
  }

  /** The per-hour limit that applies to a tool, if any (only then are its recent calls counted). */
  rateLimitOf(tool: AnyToolDefinition): number | undefined {
    return minDefined(tool.rateLimitPerHour, this.#governanceOf(tool.name)?.rate_limit_per_hour);
  }

  decide(input: PolicyInput): PolicyDecision {
    try {
      return this.#decide(input);
    } catch (error) {
      return {
        action: 'deny',
        reason: `policy evaluation failed (${(error as Error).message}); denied to stay safe`,
        rule: 'fail-closed',
        file: this.#file,
        errorType: 'Denied',
        risk: 'high', // nothing about the call can be trusted here, not even its tier
      };
    }
  }

  #decide(input: PolicyInput): PolicyDecision {
    const { tool } = input;
    const risk = riskOf(tool.tier);
    const { approval } = this.#config;
    const mode = this.#mode;
    const file = this.#file;
    const deny = (
      reason: string,
      rule: string,
      errorType: PolicyDecision['errorType'] = 'Denied',
      from = file,
    ) => ({
      action: 'deny' as const,
      reason,
      rule,
      file: from,
      errorType,
      risk,
    });

    if (!approval.enabled) return deny('Tool execution disabled by policy', 'tools.approval.enabled');
    if (this.#denylist(tool.name)) {
      return deny(`"${tool.name}" is on the denylist`, 'tools.approval.denylist');
    }

    const gov = this.#governanceOf(tool.name);
    const modeDenial = this.#modeDenial(tool);
    if (modeDenial) {
      const inConfig = this.#config.governance.mode === mode;
      return {
        ...deny(modeDenial.reason, modeDenial.rule, 'Denied', modeDenial.file),
        mode: { name: mode, inConfig },
      };
    }

    const limit = this.rateLimitOf(tool);
    if (limit !== undefined && input.recentCalls >= limit) {
      return deny(
        `rate limit reached: "${tool.name}" may run ${limit} times per hour; try again later`,
        gov?.rate_limit_per_hour === limit
          ? `tools.governance.tools.${tool.name}.rate_limit_per_hour`
          : `tool ${tool.name} rateLimitPerHour`,
        'LimitExceeded',
        gov?.rate_limit_per_hour === limit ? file : DEFAULTS_FILE,
      );
    }

    if (input.sandboxError) {
      return deny(input.sandboxError.message, 'tools.sandbox', 'SandboxViolation');
    }

    if (gov && input.paths.length > 0) {
      // A pattern that cannot be honoured (config loading refuses it too) denies every path of the
      // tool: a rule the user wrote never silently stops applying (issue #30 §12).
      for (const key of ['forbidden_paths', 'allowed_paths'] as const) {
        for (const g of gov[key]) {
          const problem = governancePathProblem(g);
          if (problem)
            return deny(
              `${problem}; until then ${tool.name} is denied every path`,
              `tools.governance.tools.${tool.name}.${key}`,
            );
        }
      }
      for (const p of input.paths) {
        // Root-relative patterns see the path inside its root; absolute, `~/` and `$HOME/` ones the
        // absolute resolved path.
        const forbidden = gov.forbidden_paths.find((g) => this.#governancePaths.test(g)(p));
        if (forbidden) {
          return deny(
            `"${p.relative}" matches the forbidden path "${forbidden}" for ${tool.name}`,
            `tools.governance.tools.${tool.name}.forbidden_paths`,
          );
        }
        if (
          gov.allowed_paths.length > 0 &&
          !gov.allowed_paths.some((g) => this.#governancePaths.test(g)(p))
        ) {
          return deny(
            `"${p.relative}" is not in the allowed paths for ${tool.name}`,
            `tools.governance.tools.${tool.name}.allowed_paths`,
          );
        }
      }
    }

    // Command tools: every parsed sub-command is judged; `command` conditions apply per sub-command.
    let shell: ShellVerdict = { action: 'none' };
    if (input.commandFacts) {
      const rc = this.#config.run_command;
      shell = judgeShell(
        input.commandFacts,
        {
          // A granted sub-command counts as allowed, exactly as narrow as it was granted.
          allow: [...(rc?.allow ?? []), ...grantedPrefixes(input.grants ?? [], tool.name)],
          deny: rc?.deny ?? [],
          ask: rc?.ask ?? [],
          autoAllowReadOnly: rc?.auto_allow_read_only ?? false,
          onRisky: rc?.on_risky ?? 'ask',
        },
        this.#rules.filter(
          (r) => r.matches(tool.name) && r.rule.conditions.some((c) => c.param === 'command'),
        ),
        input.args,
        input.paths,
        this.#patterns,
      );
      if (shell.action === 'deny') return deny(shell.reason, shell.rule);
    }
    const ruleHit = this.#matchRule(input);
    if (ruleHit?.action === 'deny') {
      return deny(
        ruleHit.rule.message ?? `denied by policy rule ${ruleHit.index}`,
        `tools.policy.rules[${ruleHit.index}]`,
      );
    }
    const ruleRisk = ruleHit?.rule.risk ?? risk;
    const ask = (reason: string, rule: string, from = file, message?: string): PolicyDecision => ({
      action: 'ask',
      reason,
      rule,
      file: from,
      risk: ruleRisk,
      ...(message === undefined ? {} : { message }),
    });
    if (ruleHit?.action === 'ask') {
      return ask(
        `policy rule ${ruleHit.index} asks for confirmation`,
        `tools.policy.rules[${ruleHit.index}]`,
        file,
        ruleHit.rule.message,
      );
    }
    if (shell.action === 'ask') return ask(shell.reason, shell.rule);
    // A rule that allows specific arguments is the user's standing approval for exactly those (DESIGN §3).
    // So is a command line whose every sub-command an allow rule covers (run_command).
    const shellAllowed = shell.action === 'allow';
    // A grant covering this call: its files, its origin, its exact arguments (issue #30 §5).
    const toolGrant =
      !input.commandFacts &&
      grantsCover(input.grants ?? [], {
        tool: tool.name,
        args: input.args,
        paths: input.paths,
        ...(input.deletes ? { deletes: true } : {}),
      });
    const standingApproval =
      shellAllowed || (ruleHit?.action === 'allow' && ruleHit.rule.conditions.length > 0);

    if (gov?.requires_approval_in_modes.includes(mode)) {
      return ask(
        `"${tool.name}" needs approval in ${mode} mode`,
        `tools.governance.tools.${tool.name}.requires_approval_in_modes`,
      );
    }
    const modeAsks = this.#modeAsks(tool);
    if (modeAsks) return ask(`"${tool.name}" needs approval in ${mode} mode`, modeAsks.rule, modeAsks.file);

    const allowedByRule = ruleHit?.action === 'allow' || shellAllowed || toolGrant;
    const allowlisted = this.#allowlist(tool.name);
    if (!allowedByRule) {
      if (approval.mode === 'deny' && !allowlisted) {
        return deny(
          `approval mode is "deny" and "${tool.name}" is not on the allowlist`,
          'tools.approval.mode',
        );
      }
      if (
        approval.mode === 'prompt' &&
        !allowlisted &&
        approval.prompt_side_effects &&
        tool.tier !== 'read_only' &&
        // write_todos, memory: only toolgate's own state changes (a session's todos, its memory)
        tool.category !== 'session' &&
        tool.category !== 'memory'
      ) {
        return ask(
          tool.tier === 'network'
            ? `"${tool.name}" reaches the network and prompt_side_effects is on`
            : `"${tool.name}" has side effects and prompt_side_effects is on`,
          'tools.approval.prompt_side_effects',
        );
      }
    }

    // Deletions always ask, whichever tool performs them and whatever allows the tool (README).
    if (input.deletes) {
      return ask(
        `"${tool.name}" deletes files, and deletions always ask`,
        'deletions always ask',
        DEFAULTS_FILE,
      );
    }
    if (tool.requiresApproval && !standingApproval) {
      return ask(
        `"${tool.name}" always requires approval (${tool.tier} tool)`,
        `tool ${tool.name} requiresApproval`,
        DEFAULTS_FILE,
      );
    }

    if (shell.action === 'allow')
      return { action: 'allow', reason: shell.reason, rule: shell.rule, file, risk: ruleRisk };
    if (ruleHit) {
      return {
        action: 'allow',
        reason: `allowed by policy rule ${ruleHit.index}`,
        rule: `tools.policy.rules[${ruleHit.index}]`,
        file,
        risk: ruleRisk,
      };
    }
    if (toolGrant && !allowlisted) {
      // Said as what it is, so the journal and `policy explain` show the grant, not a mode.
      return {
        action: 'allow',
        reason: `"${tool.name}" was granted "always allow" by a person (this session or project)`,
        rule: 'grant (always allow)',
        file: 'the journal',
        risk,
      };
    }
    if (allowlisted) {
      return {
        action: 'allow',
        reason: `"${tool.name}" is on the allowlist`,
        rule: 'tools.approval.allowlist',
        file,
        risk,
      };
    }
    return {
      action: 'allow',
      reason: tool.tier === 'read_only' ? 'read-only tool' : `approval mode "${approval.mode}" allows it`,
      rule: tool.tier === 'read_only' ? 'read-only tools run without asking' : 'tools.approval.mode',
      file: tool.tier === 'read_only' ? DEFAULTS_FILE : file,
      risk,
    };
  }

  #matchRule(input: PolicyInput): { rule: PolicyRule; index: number; action: PolicyAction } | undefined {
    let best: { rule: PolicyRule; index: number; level: number } | undefined;
    const rank = { deny: 3, ask: 2, allow: 1 } as const;
    for (const entry of this.#rules) {
      if (!entry.matches(input.tool.name)) continue;
      // With parsed commands, `command` conditions were applied per sub-command by judgeShell.
      if (input.commandFacts && entry.rule.conditions.some((c) => c.param === 'command')) continue;
      if (!evaluateConditions(entry.rule.conditions, input.args, input.paths, this.#patterns)) continue;
      if (
        !best ||
        entry.level > best.level ||
        (entry.level === best.level && rank[entry.rule.action] > rank[best.rule.action])
      ) {
        best = entry;
      }
    }
    return best && { rule: best.rule, index: best.index, action: best.rule.action };
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
