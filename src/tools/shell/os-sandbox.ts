import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { importOptional } from '../../core/optional-package.js';
import { ToolError } from '../../core/tool-error.js';
import { ripgrepBinary } from '../ripgrep-binary.js';
import { sandboxView } from './sandbox-view.js';

/** Loaded only when a command runs with sandbox = "os": the runtime is large and most runs never need it. */
/** rg for the runtime's scans and the view's file listing: @vscode/ripgrep's, else the PATH's. */
function rgPath(): string {
  return ripgrepBinary() ?? 'rg';
}

async function runtime() {
  const loaded = await importOptional(
    '@anthropic-ai/sandbox-runtime',
    'sandbox = "os"',
    () => import('@anthropic-ai/sandbox-runtime'),
  );
  return loaded.SandboxManager;
}

/**
 * The runtime's seccomp helper runs inside the sandbox, from its package's vendor directory, which
 * the view would otherwise hide (node_modules is usually in a hidden directory).
 */
function seccompHelpers(): string {
  const entry = fileURLToPath(import.meta.resolve('@anthropic-ai/sandbox-runtime'));
  return path.join(path.dirname(entry), '..', 'vendor', 'seccomp');
}

/**
 * The runtime points TMPDIR at /tmp/claude, a directory of the host's /tmp, which the view hides
 * (and which would be shared by every sandboxed command). /tmp inside is the command's own.
 */
function privateTmp(arg: string): string {
  return arg.replace(' --setenv TMPDIR /tmp/claude ', ' --setenv TMPDIR /tmp ');
}

export interface OsSandboxSettings {
  /** Writable directories: the roots. Everything else is read-only. */
  roots: readonly string[];
  /** Globs (root-relative, like the sandbox's denied patterns) the command may not read or write. */
  deniedPatterns: readonly string[];
  /** Exact files the command may not read or write (toolgate's config and journal). */
  deniedFiles: readonly string[];
  /** Hosts the command may reach; none means no network. */
  allowedHosts: readonly string[];
}

/**
 * Runs commands under @anthropic-ai/sandbox-runtime (bubblewrap + socat on Linux) in a narrow view
 * of the filesystem (sandbox-view.ts): the system directories and the PATH's toolchains read-only,
 * the roots writable, everything else absent; the denied patterns hidden wherever the view shows
 * them; a repository's git internals readable but not writable, so git works and cannot be turned
 * against the next git run. Network off unless hosts are allowed. The runtime is one per process;
 * toolgate configures its network from this session's settings and hands it the view with each
 * command. If it cannot start, commands fail closed.
 */
export class OsSandbox {
  readonly #settings: OsSandboxSettings;
  readonly #config: SandboxRuntimeConfig;
  static #active: string | undefined;

  constructor(settings: OsSandboxSettings) {
    this.#settings = settings;
    this.#config = {
      network: { allowedDomains: [...settings.allowedHosts], deniedDomains: [] },
      // Replaced by each command's own view (wrap); this one only stands until the first.
      filesystem: { denyRead: ['/'], allowRead: [], allowWrite: [], denyWrite: [] },
      ripgrep: { command: rgPath() },
    } as SandboxRuntimeConfig;
  }

  /** What is missing for the OS sandbox here, in words; empty when it can run. */
  static async missing(): Promise<string[]> {
    const manager = await runtime();
    if (!manager.isSupportedPlatform()) return [`this platform (${process.platform}) is not supported`];
    return manager.checkDependencies({ command: rgPath() }).errors;
  }

  async #activate(): Promise<void> {
    const key = JSON.stringify(this.#config);
    if (OsSandbox.#active === key) return;
    const missing = await OsSandbox.missing();
    if (missing.length > 0) {
      throw new ToolError(
        'ExecutionFailed',
        `the OS sandbox cannot start (${missing.join('; ')}); install bubblewrap and socat (apt-get install bubblewrap socat), or set [tools.run_command] sandbox = "none"`,
      );
    }
    const manager = await runtime();
    if (OsSandbox.#active === undefined) await manager.initialize(this.#config);
    else manager.updateConfig(this.#config);
    OsSandbox.#active = key;
  }

  /** The argv (and extra environment) that runs `command` inside the sandbox. */
  async wrap(
    command: string,
    cwd: string,
    commandId: string,
  ): Promise<{ argv: string[]; env: NodeJS.ProcessEnv }> {
    try {
      await this.#activate();
      const manager = await runtime();
      const view = await sandboxView({
        ...this.#settings,
        home: os.homedir(),
        searchPath: process.env.PATH ?? '',
        rgPath: rgPath(),
      });
      // The bridge to the proxy lives in the host's temp directory, which the view hides.
      const sockets = new Set(
        [manager.getLinuxHttpSocketPath(), manager.getLinuxSocksSocketPath()].filter(
          (s): s is string => typeof s === 'string',
        ),
      );
      const filesystem = { ...view, allowRead: [...view.allowRead, ...sockets, seccompHelpers()] };
      const wrapped = await manager.wrapWithSandboxArgv(command, undefined, { filesystem }, undefined, cwd, {
        commandId,
      });
      return { ...wrapped, argv: wrapped.argv.map(privateTmp) };
    } catch (error) {
      if (ToolError.isInstance(error)) throw error;
      throw new ToolError(
        'ExecutionFailed',
        `the OS sandbox could not wrap the command: ${(error as Error).message}`,
      );
    }
  }

  done(): void {
    if (OsSandbox.#active !== undefined) void runtime().then((m) => m.cleanupAfterCommand());
  }

  /**
   * Stops the runtime's proxies and helpers, which otherwise keep the process alive after its work
   * is done (`toolgate exec` printed its results and never exited). Idempotent; the next command
   * starts it again.
   */
  async shutdown(): Promise<void> {
    if (OsSandbox.#active === undefined) return;
    OsSandbox.#active = undefined;
    await (await runtime()).reset();
  }
}
