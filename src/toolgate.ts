import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { defaultGrantStore, Grants } from './approval/grants.js';
import { noApproverSet } from './batch/approve-calls.js';
import { type BatchStage, batchStage } from './batch/batch-stage.js';
import type { ExecuteBatchOptions } from './batch/execute-batch-options.js';
import { executeNewBatch } from './batch/execute-new-batch.js';
import { resumePendingBatch } from './batch/resume-pending-batch.js';
import { takeOverBatch } from './batch/take-over-batch.js';
import type { ToolgateConfig } from './config/config-schema.js';
import { defaultConfig } from './config/load-config.js';
import type { Approver } from './core/confirmation.js';
import type { GrantStore } from './core/grant.js';
import type { PlannedCall } from './core/planned-call.js';
import { ToolRegistry } from './core/registry.js';
import type { GovernanceMode } from './core/tier.js';
import type { ToolCall } from './core/tool-call.js';
import type { AnyToolDefinition } from './core/tool-definition.js';
import type { ToolResult } from './core/tool-result.js';
import type { BatchRecord, Journal, Lease, ModeRecord } from './journal/journal.js';
import { JournalRateCounter } from './journal/journal-rate-counter.js';
import { JournalReadCache } from './journal/journal-read-cache.js';
import { JournalTodoStore } from './journal/journal-todo-store.js';
import { DEFAULT_LEASE_MS } from './journal/keep-lease.js';
import { thisProcess } from './journal/process-identity.js';
import type { AutoGovernor } from './policy/auto-governor.js';
import { configWhere } from './policy/config-where.js';
import { autoGovernorFor, Governance } from './policy/governance.js';
import { PolicyEngine } from './policy/policy-engine.js';
import { type RateCounter, SlidingWindowCounter } from './policy/rate-limiter.js';
import { ownStateDenies } from './sandbox/own-state-denies.js';
import { Sandbox } from './sandbox/sandbox.js';
import type { EventLogger } from './telemetry/event-log.js';
import { builtinTools, switchedOffTools } from './tools/builtin-tools.js';
import { MemoryReadCache, type ReadCache } from './tools/fs/read-cache.js';
import { MemoryTodoStore, type Todo, type TodoStore } from './tools/todos/todo-store.js';

export type { ExecuteBatchOptions } from './batch/execute-batch-options.js';

export interface ToolgateOptions {
  config?: ToolgateConfig;
  /** The config file the config came from: named in decisions and denied to the tools. */
  configFile?: string;
  /**
   * Said after the config file wherever a denial tells how to allow a call: for a project config
   * that is not trusted yet, the `toolgate trust` that makes a new line there apply.
   */
  configNote?: string;
  /** Allowed roots; default the config's `allowed_roots`, resolved against `baseDir`. */
  roots?: readonly string[];
  /** Base for relative roots (default: process.cwd()). */
  baseDir?: string;
  /** Answers confirmations; default: deny every one (fail closed). */
  approver?: Approver;
  /** Extra tools next to (or instead of, with `builtins: false`) the built-ins. */
  tools?: readonly AnyToolDefinition[];
  builtins?: boolean;
  rates?: RateCounter;
  /** The session's read-before-write cache (the journal persists it per session). */
  readCache?: ReadCache;
  /** Files the tools must never touch besides the defaults (e.g. the journal). */
  deniedFiles?: readonly string[];
  /** Durable store: every call journaled before it runs, every result before the next starts. */
  journal?: Journal;
  /** Conversation identity: the read cache and journal rows are kept per session. */
  session?: string;
  /** Where "always allow" grants live (default: the journal, else memory). */
  grants?: GrantStore;
  /**
   * false: the journal keeps batches, calls and results but no conversation messages (an MCP client
   * keeps its own conversation, so they would only store every result twice). Default true.
   */
  conversation?: boolean;
  /** Whose memory the memory tools use (`--user`); default `[tools.memory] user`, else the login name. */
  user?: string;
  /** Structured log lines (tool_call_started, …, approval_decided): a pino logger, or anything alike. */
  logger?: EventLogger;
  /**
   * The automatic governor of an earlier gate of the same session (an MCP server rebuilds its gate
   * when the client's roots change): its count of refusals must not start again from zero.
   */
  autoGovernor?: AutoGovernor;
  /**
   * The worker running this gate's batches (issue #17 §2): each journaled batch is leased to it
   * for `ttlMs` at a time, renewed while it runs; a batch whose worker dies is taken over when the
   * lease expires. Default: this process (`host:pid:start`), 30 s. false: no leases.
   */
  lease?: Partial<Lease> | false;
}

/**
 * The pipeline for one session: plan → approve → run → output. Create one per session (or MCP
 * server); it holds that session's state and nothing is shared through module globals. A facade:
 * governance (src/policy/governance.ts), grants (src/approval/grants.ts), planning and the batch
 * lifecycle (src/batch/) do the work.
 */
export class Toolgate {
  readonly config: ToolgateConfig;
  readonly registry: ToolRegistry;
  readonly sandbox: Sandbox;
  readonly policy: PolicyEngine;
  readonly journal: Journal | undefined;
  readonly #conversation: boolean;
  /** The session's todo list (write_todos): in the journal when there is one, so it survives a restart. */
  readonly #todos: TodoStore;
  readonly #governance: Governance;
  /** Planning, running and journaling batches (src/batch/). */
  readonly #batches: BatchStage;
  readonly #lease: Lease | undefined;
  readonly session: string;
  /** The config file in use, or where one would be read (named in denials that say how to allow). */
  readonly configWhere: string;

  constructor(options: ToolgateOptions = {}) {
    this.config = options.config ?? defaultConfig();
    const sandboxConfig = this.config.tools.sandbox;
    const baseDir = options.baseDir ?? process.cwd();
    this.journal = options.journal;
    this.#conversation = options.conversation !== false;
    this.session = options.session ?? randomUUID();
    this.#todos = this.journal ? new JournalTodoStore(this.journal, this.session) : new MemoryTodoStore();
    this.#lease =
      options.lease === false
        ? undefined
        : { worker: options.lease?.worker ?? thisProcess(), ttlMs: options.lease?.ttlMs ?? DEFAULT_LEASE_MS };
    const { deniedFiles, ownDirs, vaults, vaultBase } = ownStateDenies({
      baseDir,
      deniedFiles: options.deniedFiles,
      journalFile: options.journal?.file,
      configFile: options.configFile,
      roots: options.roots ?? sandboxConfig.allowed_roots,
      memoryFile: this.config.tools.memory.file,
      vaultRoots: this.config.tools.vault.roots,
    });
    this.sandbox = new Sandbox({
      roots: options.roots ?? sandboxConfig.allowed_roots,
      baseDir,
      deniedPatterns: sandboxConfig.denied_patterns,
      allowAbsolute: sandboxConfig.allow_absolute,
      includeDefaultDenies: sandboxConfig.include_default_denies,
      deniedFiles,
      deniedDirs: vaults,
      ownDirs,
    });
    this.policy = new PolicyEngine(this.config.tools, options.configFile);
    const journalFile = this.journal?.file ? path.resolve(baseDir, this.journal.file) : undefined;
    this.#governance = new Governance({
      journal: this.journal,
      policy: this.policy,
      configMode: this.config.tools.governance.mode,
      auto:
        options.autoGovernor ??
        autoGovernorFor(
          this.config.tools.governance.auto,
          () => [...this.sandbox.roots, ...(journalFile ? [path.dirname(journalFile)] : [])],
          this.journal,
        ),
      session: this.session,
      logger: options.logger,
    });
    this.configWhere = configWhere(
      options.configFile ? path.resolve(baseDir, options.configFile) : undefined,
      this.sandbox.roots[0] ?? baseDir,
      options.configNote,
    );
    const journal = this.journal;
    const session = this.session;
    const builtins =
      options.builtins === false
        ? []
        : builtinTools(this.config, {
            readCache:
              options.readCache ?? (journal ? new JournalReadCache(journal, session) : new MemoryReadCache()),
            roots: this.sandbox.roots,
            // The OS sandbox hides a denied directory as it hides a file.
            deniedFiles: [...deniedFiles, ...ownDirs],
            deniedDirs: vaults,
            baseDir: vaultBase,
            todos: this.#todos,
            user: options.user,
            // The session's messages for memory_search, when the journal keeps them.
            conversation: journal && this.#conversation ? () => journal.messages(session) : undefined,
          });
    this.registry = new ToolRegistry([...builtins, ...(options.tools ?? [])]);
    this.#batches = batchStage({
      registry: this.registry,
      policy: this.policy,
      sandbox: this.sandbox,
      rates: options.rates ?? (journal ? new JournalRateCounter(journal) : new SlidingWindowCounter()),
      tools: this.config.tools,
      governance: this.#governance,
      grants: new Grants(options.grants ?? defaultGrantStore(journal), session, this.policy),
      configWhere: this.configWhere,
      switchedOff: switchedOffTools(this.config),
      journal,
      session,
      logger: options.logger,
      lease: this.#lease,
      approver: options.approver ?? noApproverSet(),
      conversation: this.#conversation,
    });
  }

  /** This gate's worker lease (issue #17 §2), or undefined when leases are off. */
  get lease(): Lease | undefined {
    return this.#lease;
  }

  /**
   * The governance mode in force: the last one set on the journal (`toolgate mode set`, any
   * process), else one set on this gate, else the config's. Read before every plan; cheap when
   * nothing changed (the journal caches it by data_version).
   */
  governanceMode(): { mode: GovernanceMode; source: 'journal' | 'set' | 'config'; record?: ModeRecord } {
    return this.#governance.mode();
  }

  /**
   * Changes the governance mode: on the journal when there is one (every process using it follows,
   * durably), else for this gate. Logged as `mode_changed`.
   */
  async setMode(mode: GovernanceMode, reason: string, actor = 'library'): Promise<void> {
    await this.#governance.setMode(mode, reason, actor);
  }

  /** This gate's automatic governor, if `[tools.governance.auto]` is enabled. */
  get autoGovernor(): AutoGovernor | undefined {
    return this.#governance.auto;
  }

  /** Applies the mode in force to the policy; logs `mode_changed` when it changed. Returns it. */
  refreshMode(): GovernanceMode {
    return this.#governance.refreshMode();
  }

  /** The session's todo list as write_todos keeps it (what `toolgate chat` shows). */
  todos(): Todo[] {
    return this.#todos.list();
  }

  /** Releases what the tools hold between calls (the OS sandbox's helpers): call it when done. */
  async close(): Promise<void> {
    await Promise.all([
      ...this.registry.definitions().map((t) => t.dispose?.().catch(() => {})),
      // Files written by the last calls reach the disk before the process goes.
      this.sandbox.pendingSyncs.drained(),
    ]);
  }

  /** Awaits the async set-up of the tools a batch uses (e.g. the shell parser), before planning. */
  async prepare(calls: readonly ToolCall[]): Promise<void> {
    const pending = this.#batches.planner.setUps(calls);
    if (pending) await pending;
  }

  /** Plans a batch without running anything (also what `toolgate policy explain` shows). */
  plan(calls: readonly ToolCall[]): PlannedCall[] {
    return this.#batches.planner.plan(calls);
  }

  /** Runs one batch: exactly one result per call, in call order. */
  async execute(calls: readonly ToolCall[], options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    if (calls.length === 0) return []; // nothing to plan, ask, run or journal
    const b = this.#batches;
    const governance = this.#governance;
    const auto = governance.auto;
    if (!auto) return await executeNewBatch(b.planner, b.runner, b.newBatches, calls, options);
    await governance.beforeBatch(auto);
    const results = await executeNewBatch(b.planner, b.runner, b.newBatches, calls, options);
    await governance.afterBatch(auto, results);
    return results;
  }

  /**
   * Answers a batch that was waiting for approval when toolgate stopped (recorded in the journal):
   * nothing of it ran, so it is planned again under today's policy, asked, and run.
   */
  async resumePending(batchId: string, options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    const b = this.#batches;
    return await resumePendingBatch(b.planner, b.runner, this.journal, batchId, options);
  }

  /**
   * Finishes a batch this worker took over from one that died (claimExpiredBatch; issue #17 §2),
   * under the rules recovery keeps (src/batch/take-over-batch.ts): committed results stand, a
   * call with side effects that was running is not run again (outcome unknown), the rest is
   * planned again under today's policy and runs. The batch is then complete.
   */
  async takeOver(record: BatchRecord, options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    const b = this.#batches;
    return await takeOverBatch(b.planner, b.runner, this.journal, record, options);
  }
}

export function createToolgate(options: ToolgateOptions = {}): Toolgate {
  return new Toolgate(options);
}
