import path from 'node:path';
import { approveBatch } from './approval/approve-batch.js';
import type { ToolgateConfig } from './config/config-schema.js';
import { defaultConfig } from './config/load-config.js';
import { type Approver, denyAll } from './core/confirmation.js';
import type { PlannedCall } from './core/planned-call.js';
import { ToolRegistry } from './core/registry.js';
import type { ToolCall } from './core/tool-call.js';
import type { AnyToolDefinition } from './core/tool-definition.js';
import type { ToolEvent } from './core/tool-event.js';
import type { ToolResult } from './core/tool-result.js';
import { planBatch } from './plan/plan-batch.js';
import { SchemaValidator } from './plan/schema-validator.js';
import { PolicyEngine } from './policy/policy-engine.js';
import { type RateCounter, SlidingWindowCounter } from './policy/rate-limiter.js';
import { type BatchObserver, executeBatch } from './run/execute-batch.js';
import { Sandbox } from './sandbox/sandbox.js';
import { builtinTools } from './tools/builtin-tools.js';
import type { ReadCache } from './tools/fs/read-cache.js';

export interface ToolgateOptions {
  config?: ToolgateConfig;
  /** The config file the config came from: named in decisions and denied to the tools. */
  configFile?: string;
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
}

export interface ExecuteBatchOptions {
  signal?: AbortSignal;
  onEvent?: (event: ToolEvent) => void;
  observer?: BatchObserver;
  approver?: Approver;
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

  constructor(options: ToolgateOptions = {}) {
    this.config = options.config ?? defaultConfig();
    const sandboxConfig = this.config.tools.sandbox;
    const baseDir = options.baseDir ?? process.cwd();
    const deniedFiles = [...(options.deniedFiles ?? [])];
    if (options.configFile) deniedFiles.push(path.resolve(baseDir, options.configFile));
    this.sandbox = new Sandbox({
      roots: options.roots ?? sandboxConfig.allowed_roots,
      baseDir,
      deniedPatterns: sandboxConfig.denied_patterns,
      allowAbsolute: sandboxConfig.allow_absolute,
      includeDefaultDenies: sandboxConfig.include_default_denies,
      deniedFiles,
    });
    this.policy = new PolicyEngine(this.config.tools, options.configFile);
    const builtins =
      options.builtins === false
        ? []
        : builtinTools(this.config, options.readCache ? { readCache: options.readCache } : {});
    this.registry = new ToolRegistry([...builtins, ...(options.tools ?? [])]);
    this.#rates = options.rates ?? new SlidingWindowCounter();
    this.#approver = options.approver ?? denyAll;
  }

  /** Plans a batch without running anything (also what `toolgate policy explain` shows). */
  plan(calls: readonly ToolCall[]): PlannedCall[] {
    const tools = this.config.tools;
    return planBatch(calls, {
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
    });
  }

  /** Runs one batch: exactly one result per call, in call order. */
  async execute(calls: readonly ToolCall[], options: ExecuteBatchOptions = {}): Promise<ToolResult[]> {
    const tools = this.config.tools;
    const planned = this.plan(calls);
    const approved = await approveBatch(planned, options.approver ?? this.#approver, {
      timeoutMs: tools.approval.timeout_seconds * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return executeBatch(approved, {
      sandbox: this.sandbox,
      defaultTimeoutMs: tools.timeouts.default_seconds * 1000,
      outputLimit: tools.output.max_bytes,
      allowParallel: tools.allow_parallel,
      rates: this.#rates,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { emit: options.onEvent } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
    });
  }
}

export function createToolgate(options: ToolgateOptions = {}): Toolgate {
  return new Toolgate(options);
}
