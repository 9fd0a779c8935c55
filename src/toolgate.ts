import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type Context, context } from '@opentelemetry/api';
import { approveBatch } from './approval/approve-batch.js';
import { defaultGrantStore, Grants } from './approval/grants.js';
import type { ToolgateConfig } from './config/config-schema.js';
import { defaultConfig } from './config/load-config.js';
import { type Approver, denyWith } from './core/confirmation.js';
import type { Denial } from './core/denial.js';
import type { GrantStore } from './core/grant.js';
import { errorResult } from './core/make-result.js';
import type { PlannedCall } from './core/planned-call.js';
import { ToolRegistry } from './core/registry.js';
import { type GovernanceMode, isRepeatable } from './core/tier.js';
import type { ToolCall } from './core/tool-call.js';
import type { AnyToolDefinition } from './core/tool-definition.js';
import type { ToolEventSink } from './core/tool-event.js';
import type { ToolResult } from './core/tool-result.js';
import {
  type BatchRecord,
  type BeginBatchOptions,
  type Journal,
  JournalError,
  type Lease,
  type ModeRecord,
  type PlanEntry,
} from './journal/journal.js';
import { journalObserver, journalStatus, recordableAfter } from './journal/journal-observer.js';
import { JournalRateCounter } from './journal/journal-rate-counter.js';
import { JournalReadCache } from './journal/journal-read-cache.js';
import { JournalTodoStore } from './journal/journal-todo-store.js';
import { DEFAULT_LEASE_MS, keepLease } from './journal/keep-lease.js';
import { thisProcess } from './journal/process-identity.js';
import { StagingFiles } from './journal/staging-files.js';
import { planBatch } from './plan/plan-batch.js';
import { SchemaValidator } from './plan/schema-validator.js';
import { hintForAsk } from './policy/allow-hint.js';
import type { AutoGovernor } from './policy/auto-governor.js';
import { configWhere } from './policy/config-where.js';
import { autoGovernorFor, Governance } from './policy/governance.js';
import { PolicyEngine } from './policy/policy-engine.js';
import { type RateCounter, SlidingWindowCounter } from './policy/rate-limiter.js';
import { type BatchObserver, executeBatch } from './run/execute-batch.js';
import { canonicalOrNot, Sandbox } from './sandbox/sandbox.js';
import { BatchEvents } from './telemetry/batch-events.js';
import { BatchTrace } from './telemetry/batch-trace.js';
import { callFields, type EventLogger, logEvent } from './telemetry/event-log.js';
import { toolMetrics } from './telemetry/tool-metrics.js';
import { contextWithTraceparent } from './telemetry/traceparent.js';
import { builtinTools, switchedOffTools } from './tools/builtin-tools.js';
import { MemoryReadCache, type ReadCache } from './tools/fs/read-cache.js';
import { gitConfigDangers } from './tools/git/repo-config.js';
import { memoryFileLocation } from './tools/memory/memory-file.js';
import { scrubEnv } from './tools/shell/env-scrub.js';
import { MemoryTodoStore, type Todo, type TodoStore } from './tools/todos/todo-store.js';

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

export interface ExecuteBatchOptions {
  signal?: AbortSignal;
  /** The assistant text that came with the calls (journaled with them, FR-RES-01). */
  assistantText?: string;
  /** More of the assistant message for the journal (provider, model, raw turn). */
  assistant?: Record<string, unknown>;
  /** A tighter cap on each result than `tools.output.max_bytes` (the model's free context, FR-REG-04b). */
  outputLimit?: number;
  /** The batch id under which calls were already journaled while streaming (recordStreamedCall). */
  batchId?: string;
  /** Events while the batch runs; return a promise from an output event to slow the tool down. */
  onEvent?: ToolEventSink;
  observer?: BatchObserver;
  approver?: Approver;
  /** The trace this batch belongs to (default: the active context, when a context manager keeps one). */
  traceContext?: Context;
  /** A W3C traceparent naming the batch's parent span (from TRACEPARENT or an MCP request's _meta). */
  traceparent?: string;
}

/**
 * The pipeline for one session: plan → approve → run → output. Create one per session (or MCP
 * server); it holds that session's state and nothing is shared through module globals.
 */
export class Toolgate {
  readonly config: ToolgateConfig;
  readonly registry: ToolRegistry;
  readonly sandbox: Sandbox;
  readonly policy: PolicyEngine;
  readonly #validator = new SchemaValidator();
  readonly #rates: RateCounter;
  readonly #approver: Approver;
  readonly journal: Journal | undefined;
  readonly #conversation: boolean;
  /** The session's todo list (write_todos): in the journal when there is one, so it survives a restart. */
  readonly #todos: TodoStore;
  readonly #logger: EventLogger | undefined;
  readonly #governance: Governance;
  readonly #lease: Lease | undefined;

  /** This gate's worker lease (issue #17 §2), or undefined when leases are off. */
  get lease(): Lease | undefined {
    return this.#lease;
  }
  readonly #switchedOff: ReadonlyMap<string, string>;
  readonly session: string;
  readonly #grants: Grants;
  /** The config file in use, or where one would be read (named in denials that say how to allow). */
  readonly configWhere: string;

  constructor(options: ToolgateOptions = {}) {
    this.config = options.config ?? defaultConfig();
    const sandboxConfig = this.config.tools.sandbox;
    const baseDir = options.baseDir ?? process.cwd();
    const deniedFiles = [...(options.deniedFiles ?? [])];
    this.journal = options.journal;
    this.#conversation = options.conversation !== false;
    this.session = options.session ?? randomUUID();
    this.#todos = this.journal ? new JournalTodoStore(this.journal, this.session) : new MemoryTodoStore();
    this.#logger = options.logger;
    this.#lease =
      options.lease === false
        ? undefined
        : { worker: options.lease?.worker ?? thisProcess(), ttlMs: options.lease?.ttlMs ?? DEFAULT_LEASE_MS };
    this.#switchedOff = switchedOffTools(this.config);
    // The journal file (and its WAL/SHM companions, its staging files) is toolgate's own state: never a tool's.
    const ownDirs: string[] = [];
    if (options.journal?.file) {
      const file = path.resolve(baseDir, options.journal.file);
      deniedFiles.push(file, `${file}-wal`, `${file}-shm`, `${file}-journal`);
      ownDirs.push(StagingFiles.dirFor(file));
    }
    if (options.configFile) deniedFiles.push(path.resolve(baseDir, options.configFile));
    // So is the memory store, wherever [tools.memory] file puts it (the default is under .toolgate/).
    const firstRoot = canonicalOrNot(
      path.resolve(baseDir, (options.roots ?? sandboxConfig.allowed_roots)[0] ?? '.'),
    );
    const memoryFile = memoryFileLocation(this.config.tools.memory.file, firstRoot);
    if (memoryFile)
      deniedFiles.push(memoryFile, `${memoryFile}-wal`, `${memoryFile}-shm`, `${memoryFile}-journal`);
    // Vaults: read by vault_copyto alone, through its own sandbox; denied to every other tool.
    // Relative vault roots are the config file's business: they resolve against its directory.
    const vaultBase = options.configFile ? path.dirname(path.resolve(baseDir, options.configFile)) : baseDir;
    const vaults = this.config.tools.vault.roots.map((root) => path.resolve(vaultBase, root));
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
    const sandbox = this.sandbox;
    this.#governance = new Governance({
      journal: this.journal,
      policy: this.policy,
      configMode: this.config.tools.governance.mode,
      auto:
        options.autoGovernor ??
        autoGovernorFor(
          this.config.tools.governance.auto,
          () => [...sandbox.roots, ...(journalFile ? [path.dirname(journalFile)] : [])],
          this.journal,
        ),
      session: this.session,
      logger: this.#logger,
    });
    this.configWhere = configWhere(
      options.configFile ? path.resolve(baseDir, options.configFile) : undefined,
      this.sandbox.roots[0] ?? baseDir,
      options.configNote,
    );
    const builtins =
      options.builtins === false
        ? []
        : builtinTools(this.config, {
            readCache: options.readCache ?? this.#defaultReadCache(),
            roots: this.sandbox.roots,
            // The OS sandbox hides a denied directory as it hides a file.
            deniedFiles: [...deniedFiles, ...ownDirs],
            deniedDirs: vaults,
            baseDir: vaultBase,
            todos: this.#todos,
            user: options.user,
            conversation: this.#conversationSource(),
          });
    this.registry = new ToolRegistry([...builtins, ...(options.tools ?? [])]);
    this.#grants = new Grants(options.grants ?? defaultGrantStore(this.journal), this.session, this.policy);
    this.#rates =
      options.rates ?? (this.journal ? new JournalRateCounter(this.journal) : new SlidingWindowCounter());
    this.#approver =
      options.approver ??
      denyWith(
        'nobody was asked: no approver is set (createToolgate({ approver })), so confirmations are denied',
      );
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

  /** The session's messages for memory_search, when the journal keeps them. */
  #conversationSource() {
    const journal = this.journal;
    if (!journal || !this.#conversation) return undefined;
    return () => journal.messages(this.session);
  }

  #defaultReadCache(): ReadCache {
    return this.journal ? new JournalReadCache(this.journal, this.session) : new MemoryReadCache();
  }

  /** Puts the calls that need it to a person (the approver), counted and, when traced, timed. */
  async #approve(
    planned: PlannedCall[],
    options: ExecuteBatchOptions,
    tracing: BatchTrace | undefined,
    batchId?: string,
  ): Promise<PlannedCall[]> {
    const ask = () =>
      approveBatch(planned, options.approver ?? this.#approver, {
        context: { session: this.session, ...(batchId !== undefined ? { batchId } : {}) },
        timeoutMs: this.config.tools.approval.timeout_seconds * 1000,
        remember: (p, choice) => this.#grants.remember(p, choice),
        allowHint: (request) => hintForAsk(request, this.configWhere),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    const counts = (approved: PlannedCall[]) => {
      let asked = 0;
      let granted = 0;
      for (const [i, p] of planned.entries()) {
        if (p.disposition.kind !== 'needs_approval') continue;
        asked++;
        if (approved[i]?.disposition.kind === 'execute') granted++;
      }
      return { asked, granted };
    };
    const log = this.#logger;
    if (log) {
      for (const p of planned)
        if (p.disposition.kind === 'needs_approval')
          logEvent(
            log,
            'info',
            'approval_requested',
            { session: this.session, ...callFields(p) },
            tracing?.span,
          );
    }
    const approved = tracing
      ? await tracing.stepAsync('toolgate.approval', ask, (a) => {
          const { asked, granted } = counts(a);
          return { 'toolgate.approval.asked': asked, 'toolgate.approval.granted': granted };
        })
      : await ask();
    const { asked, granted } = counts(approved);
    if (log)
      logEvent(
        log,
        'info',
        'approval_decided',
        { session: this.session, asked, granted, denied: asked - granted },
        tracing?.span,
      );
    const m = toolMetrics().approvals;
    m.add(asked, { decision: 'asked' });
    if (granted) m.add(granted, { decision: 'granted' });
    if (asked > granted) m.add(asked - granted, { decision: 'denied' });
    return approved;
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
    const pending = this.#setUps(calls);
    if (pending) await pending;
  }

  /** The set-up the batch's tools still need, or undefined when there is none (no await needed). */
  #setUps(calls: readonly ToolCall[]): Promise<unknown> | undefined {
    let tools: Set<AnyToolDefinition> | undefined;
    for (const c of calls) {
      const tool = this.registry.get(typeof c?.name === 'string' ? c.name : '');
      if (!tool?.prepare) continue;
      tools ??= new Set();
      tools.add(tool);
    }
    // A failed set-up shows up as a fail-closed plan.
    return tools && Promise.all([...tools].map((t) => t.prepare?.().catch(() => {})));
  }

  /** Plans a batch without running anything (also what `toolgate policy explain` shows). */
  plan(calls: readonly ToolCall[]): PlannedCall[] {
    const journal = this.journal;
    return journal?.atOneMoment ? journal.atOneMoment(() => this.#plan(calls)) : this.#plan(calls);
  }

  #plan(calls: readonly ToolCall[]): PlannedCall[] {
    this.refreshMode();
    const tools = this.config.tools;
    return this.#grants.withOffers(
      planBatch(calls, {
        registry: this.registry,
        policy: this.policy,
        sandbox: this.sandbox,
        validator: this.#validator,
        rates: this.#rates,
        limits: {
          mode: tools.mode,
          maxCallsPerBatch: tools.max_tool_calls_per_batch,
          maxArgsBytes: tools.max_tool_args_bytes,
        },
        grants: this.#grants.list(),
        configWhere: this.configWhere,
        switchedOff: this.#switchedOff,
        gitDangers: (cwd) =>
          gitConfigDangers(cwd, scrubEnv(process.env, this.config.tools.environment.denylist)),
        commandsFenced: this.config.tools.run_command.sandbox === 'os',
      }),
    );
  }

  /** Runs one batch: exactly one result per call, in call order. */
  async execute(calls: readonly ToolCall[], options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    if (calls.length === 0) return []; // nothing to plan, ask, run or journal
    const governance = this.#governance;
    const auto = governance.auto;
    if (!auto) return await this.#traced(calls, options);
    await governance.beforeBatch(auto);
    const results = await this.#traced(calls, options);
    await governance.afterBatch(auto, results);
    return results;
  }

  async #traced(calls: readonly ToolCall[], options: ExecuteBatchOptions): Promise<ToolResult[]> {
    const tracing = this.#startTrace(options, calls.length);
    if (!tracing) return await this.#execute(calls, options, undefined);
    const results = await this.#execute(calls, options, tracing);
    tracing.end(results);
    return results;
  }

  /** A batch's trace, or undefined when neither an SDK nor a log line wants one (nothing per call then). */
  #startTrace(options: ExecuteBatchOptions, size: number): BatchTrace | undefined {
    const parent = options.traceparent
      ? contextWithTraceparent(options.traceparent, options.traceContext)
      : (options.traceContext ?? context.active());
    return BatchTrace.start(
      parent,
      { 'toolgate.session': this.session, 'toolgate.batch.size': size },
      this.#logger !== undefined, // log lines carry trace and span ids even without an SDK (seed 002 §4.2)
    );
  }

  /** #run for a batch picked up from the journal (answered or taken over), traced like a new one. */
  async #runTraced(
    planned: PlannedCall[],
    options: ExecuteBatchOptions,
    batchId: string,
    recorded?: ReadonlySet<number>,
    settled?: ReadonlySet<number>,
  ): Promise<ToolResult[]> {
    const tracing = this.#startTrace(options, planned.length);
    const results = await this.#run(planned, options, batchId, tracing, recorded, undefined, settled);
    tracing?.end(results);
    return results;
  }

  async #execute(
    calls: readonly ToolCall[],
    options: ExecuteBatchOptions,
    tracing: BatchTrace | undefined,
  ): Promise<ToolResult[]> {
    const journal = this.journal;
    const setUps = this.#setUps(calls);
    if (setUps) await setUps;
    let planned: PlannedCall[];
    try {
      // pure: nothing runs or changes while planning
      planned = tracing
        ? tracing.step(
            'toolgate.plan',
            () => this.plan(calls),
            (p) => ({
              'toolgate.plan.asks': p.filter((c) => c.disposition.kind === 'needs_approval').length,
            }),
          )
        : this.plan(calls);
    } catch (error) {
      return calls.map((c) =>
        errorResult(c.id, c.name, 'Internal', `not executed: planning failed (${(error as Error).message})`),
      );
    }
    if (!journal) return await this.#run(planned, options, undefined, tracing); // `return await`: fewer turns than returning the promise
    const record: BeginBatchOptions = {
      ...(options.assistantText ? { assistantText: options.assistantText } : {}),
      ...(options.assistant ? { assistant: options.assistant } : {}),
      ...(options.batchId ? { batchId: options.batchId } : {}),
      ...(this.#conversation ? {} : { messages: false }),
      plan: planEntries(planned),
      ...(this.#lease ? { lease: this.#lease } : {}),
    };
    if (options.batchId === undefined && recordableAfter(planned)) {
      return await this.#runThenRecord(journal, calls, planned, options, record, tracing);
    }
    // The id is chosen here, so a write whose outcome is unknown can be settled by id afterwards.
    let batchId = record.batchId ?? randomUUID();
    // Nothing to ask and the first call runs: it starts right after this commit, so its `running`
    // rides in it (one commit fewer before a side effect).
    const running =
      journal.beginsRunning &&
      planned[0]?.disposition.kind === 'execute' &&
      planned.every((p) => p.disposition.kind !== 'needs_approval')
        ? 0
        : undefined;
    try {
      batchId = journal.beginBatch(this.session, withinLimit(calls, planned), {
        ...record,
        batchId,
        ...(running === undefined ? {} : { running }),
      });
    } catch (error) {
      // Nothing may run that the journal did not record first; and if the write did land after
      // all, it is settled now, so no worker runs later what the model is told did not run.
      return this.#notExecuted(planned, error, journal, batchId, undefined, true);
    }
    return await this.#run(planned, options, batchId, tracing, undefined, running);
  }

  /**
   * Answers a batch that was waiting for approval when toolgate stopped (recorded in the journal):
   * nothing of it ran, so it is planned again under today's policy, asked, and run.
   */
  async resumePending(batchId: string, options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    const journal = this.journal;
    const record = journal?.batch(batchId);
    if (!journal || !record) throw new Error(`no batch ${batchId} in the journal`);
    if (
      record.status !== 'awaiting_approval' ||
      record.calls.some((c) => c.status === 'running' || c.result)
    ) {
      throw new Error(
        `batch ${batchId} is not waiting for approval (status ${record.status}); use resume or discard`,
      );
    }
    // This worker takes the batch over first: never while another one holds it.
    if (this.#lease && !journal.claimExpiredBatch(this.#lease, batchId)) {
      const held = journal.batch(batchId)?.lease;
      throw new Error(
        `batch ${batchId} is held by worker ${held?.worker ?? '(unknown)'}${held ? ` until ${new Date(held.expiresAt).toISOString()}` : ''}; answer it there, or wait for its lease to run out`,
      );
    }
    const calls = record.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    await this.prepare(calls);
    const planned = this.plan(calls);
    journal.replan(batchId, planEntries(planned));
    return await this.#runTraced(planned, options, batchId);
  }

  /**
   * Finishes a batch this worker took over from one that died (claimExpiredBatch; issue #17 §2),
   * under the rules recovery keeps. A committed result stays as it is. A call that was running when
   * its worker died may have had its effect: with side effects its outcome is unknown and it is
   * never run again; a read-only one runs again. A call that never started is planned again under
   * today's policy (asking where it must) and runs. The batch is then complete.
   */
  async takeOver(record: BatchRecord, options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    const journal = this.journal;
    if (!journal) throw new Error('taking a batch over needs the journal it is in');
    if (this.#lease && record.lease?.worker !== this.#lease.worker)
      throw new Error(`batch ${record.id} is not leased to this worker: claim it first (claimExpiredBatch)`);
    const calls = record.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    await this.prepare(calls);
    const recorded = new Set<number>();
    /** Recorded, or with an outcome unknown: whatever happens to the batch now, their result stands. */
    const settled = new Set<number>();
    const planned = this.plan(calls).map((p): PlannedCall => {
      const before = record.calls[p.index];
      if (before?.result) {
        recorded.add(p.index);
        settled.add(p.index);
        return { ...p, disposition: { kind: 'resolved', result: before.result } };
      }
      if (before?.status === 'running' && !(p.tool && isRepeatable(p.tool.tier))) {
        const message =
          'outcome unknown: the worker running this call stopped before it finished; it was not run again (check its effects before retrying)';
        settled.add(p.index);
        return {
          ...p,
          disposition: {
            kind: 'resolved',
            result: errorResult(p.call.id, p.call.name, 'ExecutionFailed', message, 0, {
              outcome: 'unknown',
            }),
          },
        };
      }
      return p;
    });
    journal.replan(
      record.id,
      planEntries(planned.filter((p) => !recorded.has(p.index) && p.disposition.kind !== 'resolved')),
    );
    return await this.#runTraced(planned, options, record.id, recorded, settled);
  }

  /**
   * Read-only batches: run, then journal the whole batch in one commit before anyone sees a result
   * (no fsync: running them again after a crash is harmless). If the journal cannot record it,
   * the results are withheld: every result handed out is journaled.
   */
  async #runThenRecord(
    journal: Journal,
    calls: readonly ToolCall[],
    planned: PlannedCall[],
    options: ExecuteBatchOptions,
    record: BeginBatchOptions,
    tracing: BatchTrace | undefined,
  ): Promise<ToolResult[]> {
    // Each call's own times, as the journal records them for a call that ran under its observer.
    const startedAt: number[] = [];
    const finishedAt: number[] = [];
    const observer: BatchObserver = {
      onCallStart: (p) => {
        startedAt[p.index] = Date.now();
        return options.observer?.onCallStart?.(p);
      },
      onCallResult: (result, p) => {
        finishedAt[p.index] = Date.now();
        return options.observer?.onCallResult?.(result, p);
      },
    };
    const results = await this.#run(planned, { ...options, observer }, undefined, tracing);
    const now = Date.now();
    try {
      journal.recordFinishedBatch(
        this.session,
        withinLimit(calls, planned),
        results.map((result, i) => {
          const start = startedAt[i];
          return {
            result,
            status: journalStatus(result, planned[i] as PlannedCall),
            ...(start !== undefined ? { startedAt: start } : {}),
            finishedAt: finishedAt[i] ?? now,
          };
        }),
        record,
      );
    } catch (error) {
      return results.map((r) =>
        errorResult(
          r.id,
          r.name,
          'Internal',
          `result withheld: ${(error as Error).message} (the call was read-only; nothing changed)`,
        ),
      );
    }
    return results;
  }

  async #run(
    planned: PlannedCall[],
    options: ExecuteBatchOptions,
    batchId: string | undefined,
    tracing?: BatchTrace,
    recorded?: ReadonlySet<number>,
    /** The call beginBatch recorded running already (see #execute). */
    runningAtBegin?: number,
    /** Calls of a batch taken over whose result is known already (see takeOver). */
    settled?: ReadonlySet<number>,
  ): Promise<ToolResult[]> {
    const journal = batchId === undefined ? undefined : this.journal;
    const stopRenewing =
      journal && batchId !== undefined && this.#lease ? keepLease(journal, batchId, this.#lease) : undefined;
    try {
      return await this.#runLeased(
        planned,
        options,
        batchId,
        journal,
        tracing,
        recorded,
        runningAtBegin,
        settled,
      );
    } finally {
      stopRenewing?.();
    }
  }

  async #runLeased(
    planned: PlannedCall[],
    options: ExecuteBatchOptions,
    batchId: string | undefined,
    journal: Journal | undefined,
    tracing?: BatchTrace,
    recorded?: ReadonlySet<number>,
    runningAtBegin?: number,
    settled?: ReadonlySet<number>,
  ): Promise<ToolResult[]> {
    const tools = this.config.tools;
    const asks = planned.some((p) => p.disposition.kind === 'needs_approval');
    if (asks && journal) {
      // What a person is asked about survives a power loss too (an fsync is nothing beside a person).
      try {
        await journal.sync();
      } catch (error) {
        return this.#notExecuted(planned, error, journal, batchId, settled);
      }
    }
    // Nothing to ask: no detour through the approver (and no extra turn of the event loop).
    const approved = asks ? await this.#approve(planned, options, tracing, batchId) : planned;
    if (journal && batchId !== undefined) {
      try {
        const yes = approved.filter(
          (p, i) => planned[i]?.disposition.kind === 'needs_approval' && p.disposition.kind === 'execute',
        );
        if (asks) {
          journal.markApproved(
            batchId,
            yes.map((p) => p.index),
            this.#lease,
          );
        }
      } catch (error) {
        return this.#notExecuted(planned, error, journal, batchId, settled);
      }
    }
    const recorder =
      journal && batchId !== undefined
        ? journalObserver(
            journal,
            batchId,
            options.observer,
            this.#lease,
            recorded,
            this.sandbox.pendingSyncs,
            approved.length,
            runningAtBegin,
          )
        : undefined;
    const observer = recorder ?? options.observer;
    const events = BatchEvents.for(tracing, this.#logger, {
      session: this.session,
      ...(batchId !== undefined ? { batch_id: batchId } : {}),
    });
    const results = await executeBatch(approved, {
      sandbox: this.sandbox,
      defaultTimeoutMs: tools.timeouts.default_seconds * 1000,
      outputLimit: Math.min(tools.output.max_bytes, options.outputLimit ?? Number.POSITIVE_INFINITY),
      outputMaxLines: tools.output.max_lines,
      allowParallel: tools.allow_parallel,
      rates: this.#rates,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { emit: options.onEvent } : {}),
      ...(observer ? { observer } : {}),
      ...(events ? { events } : {}),
    });
    if (journal && batchId !== undefined && recorder?.halted && !recorder.allRecorded)
      return this.#abandon(journal, batchId, results);
    if (journal && batchId !== undefined && !recorder?.finished) {
      try {
        journal.finishBatch(batchId, this.#lease);
      } catch {
        // Every result is already committed; recovery settles the status.
      }
    }
    return results;
  }

  /**
   * Nothing of the batch ran (the journal could not record it, make it durable before asking, or
   * record the answers): every call is told so, and the journal is made to agree, so that no
   * recovery asks again and runs what the model was told did not run.
   */
  #notExecuted(
    planned: readonly PlannedCall[],
    error: unknown,
    journal: Journal,
    batchId: string | undefined,
    /** Calls of a batch taken over whose result is known already: they keep it (see takeOver). */
    settled?: ReadonlySet<number>,
    /** The failed write was the batch's first (beginBatch). */
    firstWrite = false,
  ): ToolResult[] {
    const results = planned.map((p) =>
      settled?.has(p.index) && p.disposition.kind === 'resolved'
        ? p.disposition.result
        : errorResult(p.call.id, p.call.name, 'Internal', `not executed: ${(error as Error).message}`),
    );
    if (batchId === undefined) return results;
    // A write whose outcome is unknown (a server that did not answer) may still land later.
    return this.#abandon(
      journal,
      batchId,
      results,
      error instanceof JournalError && error.outcomeUnknown,
      firstWrite,
    );
  }

  /**
   * A batch this process gave up on (the journal failed, or the lease was lost): the journal is
   * made to agree with what the model is told, so calls it was told did not run are settled as not
   * run and no worker takes them over later. Where the journal cannot be told (still failing), the
   * results say that a worker may yet run those calls. A batch another worker holds is its own.
   */
  #abandon(
    journal: Journal,
    batchId: string,
    results: ToolResult[],
    /** The failed write's outcome is unknown: on a server, a commit not answered may still land later. */
    mayLandLater = false,
    /** That write was the batch's first (beginBatch): nothing of the batch can have run. */
    firstWrite = false,
  ): ToolResult[] {
    const warn = (why: string) =>
      results.map((r) =>
        r.error?.type === 'Internal' && r.error.message.startsWith('not executed')
          ? errorResult(
              r.id,
              r.name,
              'Internal',
              `${r.error.message} (${why}: a worker may still run this call later; see \`toolgate journal show ${batchId}\`)`,
            )
          : r,
      );
    // A first commit the server never answered can still land after the time the bridge waited (a
    // stalled disk or standby). Nothing of the batch ran, so it is marked given up first, before
    // anyone could claim it: if it lands, whoever meets it settles it as never run.
    const marked = mayLandLater && firstWrite && givenUp(journal, batchId, this.#lease?.worker);
    try {
      journal.resumeBatch(batchId, this.#lease?.worker);
      return results;
    } catch (error) {
      const message = (error as Error).message;
      const missing = /no batch with id/.test(message);
      const heldElsewhere = /held by worker/.test(message);
      const settledAlready = /is already/.test(message);
      if (mayLandLater) {
        // Another worker holding it may run what the model is told did not run: said so.
        if (heldElsewhere) return warn('another worker holds the batch');
        if (marked || settledAlready) return results;
        return warn(
          missing
            ? 'the journal did not confirm the batch was not recorded'
            : 'the journal could not be told either',
        );
      }
      // Nothing recorded, already settled, or held by the worker that took it over: nothing to add.
      if (missing || heldElsewhere || settledAlready) return results;
      return warn('the journal could not be told either');
    }
  }
}

/** The batch marked given up in a journal that can (Journal.giveUp): true once that is recorded. */
function givenUp(journal: Journal, batchId: string, worker: string | undefined): boolean {
  if (!journal.giveUp) return false;
  try {
    journal.giveUp(batchId, worker);
    return true;
  } catch {
    return false;
  }
}

function planEntries(planned: readonly PlannedCall[]): PlanEntry[] {
  return planned.map((p) => ({
    index: p.index,
    ...(p.decision ? { decision: p.decision } : {}),
    ...(p.disposition.kind === 'needs_approval' ? { approval: p.disposition.request } : {}),
  }));
}

export function createToolgate(options: ToolgateOptions = {}): Toolgate {
  return new Toolgate(options);
}

/**
 * The calls as the journal keeps them: arguments the planner refused as over max_tool_args_bytes
 * are not run, and not stored either (a 60 MB argument would otherwise land in the journal twice).
 */
function withinLimit(calls: readonly ToolCall[], planned: readonly PlannedCall[]): readonly ToolCall[] {
  let out: ToolCall[] | undefined;
  for (const p of planned) {
    const denial =
      p.disposition.kind === 'resolved'
        ? (p.disposition.result.metadata?.denial as Denial | undefined)
        : undefined;
    if (denial?.rule !== 'tools.max_tool_args_bytes') continue;
    out ??= [...calls];
    out[p.index] = { ...p.call, arguments: { omitted: `${denial.reason}; not stored, not run` } };
  }
  return out ?? calls;
}
