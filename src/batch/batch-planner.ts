import type { Grants } from '../approval/grants.js';
import type { ToolgateConfig } from '../config/config-schema.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolRegistry } from '../core/registry.js';
import type { ToolCall } from '../core/tool-call.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';
import type { BatchLog } from '../journal/roles/batch-log.js';
import { planBatch } from '../plan/plan-batch.js';
import { SchemaValidator } from '../plan/schema-validator.js';
import type { Governance } from '../policy/governance.js';
import type { PolicyEngine } from '../policy/policy-engine.js';
import type { RateCounter } from '../policy/rate-limiter.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { gitConfigDangers } from '../tools/git/repo-config.js';
import { scrubEnv } from '../tools/shell/env-scrub.js';

export interface BatchPlannerDeps {
  registry: ToolRegistry;
  policy: PolicyEngine;
  sandbox: Sandbox;
  rates: RateCounter;
  tools: Pick<
    ToolgateConfig['tools'],
    'mode' | 'max_tool_calls_per_batch' | 'max_tool_args_bytes' | 'environment' | 'run_command'
  >;
  /** The mode in force, applied to the policy before every plan. */
  governance: Pick<Governance, 'refreshMode'>;
  /** Standing grants read for the plan, and the "always" offered with each waiting call. */
  grants: Pick<Grants, 'list' | 'withOffers'>;
  configWhere: string;
  /** Tools switched off by the config, with why. */
  switchedOff: ReadonlyMap<string, string>;
  /** Planning's reads as of one moment, where the journal can. */
  journal: Pick<BatchLog, 'atOneMoment'> | undefined;
}

/** A gate's planning (seed 000 FR-LIM, FR-VAL, FR-APR-05/06): pure, nothing runs or changes. */
export class BatchPlanner {
  readonly #deps: BatchPlannerDeps;
  readonly #validator = new SchemaValidator();

  constructor(deps: BatchPlannerDeps) {
    this.#deps = deps;
  }

  /** The set-up the batch's tools still need, or undefined when there is none (no await needed). */
  setUps(calls: readonly ToolCall[]): Promise<unknown> | undefined {
    let tools: Set<AnyToolDefinition> | undefined;
    for (const c of calls) {
      const tool = this.#deps.registry.get(typeof c?.name === 'string' ? c.name : '');
      if (!tool?.prepare) continue;
      tools ??= new Set();
      tools.add(tool);
    }
    // A failed set-up shows up as a fail-closed plan.
    return tools && Promise.all([...tools].map((t) => t.prepare?.().catch(() => {})));
  }

  /** Plans a batch without running anything (also what `toolgate policy explain` shows). */
  plan(calls: readonly ToolCall[]): PlannedCall[] {
    const journal = this.#deps.journal;
    return journal?.atOneMoment ? journal.atOneMoment(() => this.#plan(calls)) : this.#plan(calls);
  }

  #plan(calls: readonly ToolCall[]): PlannedCall[] {
    const deps = this.#deps;
    deps.governance.refreshMode();
    const tools = deps.tools;
    return deps.grants.withOffers(
      planBatch(calls, {
        registry: deps.registry,
        policy: deps.policy,
        sandbox: deps.sandbox,
        validator: this.#validator,
        rates: deps.rates,
        limits: {
          mode: tools.mode,
          maxCallsPerBatch: tools.max_tool_calls_per_batch,
          maxArgsBytes: tools.max_tool_args_bytes,
        },
        grants: deps.grants.list(),
        configWhere: deps.configWhere,
        switchedOff: deps.switchedOff,
        gitDangers: (cwd) => gitConfigDangers(cwd, scrubEnv(process.env, tools.environment.denylist)),
        commandsFenced: tools.run_command.sandbox === 'os',
      }),
    );
  }
}

/** What the batch lifecycle needs of planning: the tools' set-up, then the plan. */
export type Planning = Pick<BatchPlanner, 'setUps' | 'plan'>;
