import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { rgPath } from '@vscode/ripgrep';
import { ToolError } from '../../core/tool-error.js';

/** Loaded only when a command runs with sandbox = "os": the runtime is large and most runs never need it. */
async function runtime() {
  return (await import('@anthropic-ai/sandbox-runtime')).SandboxManager;
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
 * The denied patterns are about names in any folder (`.ssh`, `.gnupg`, `etc/shadow`), but a glob over the whole
 * filesystem cannot be expanded for bubblewrap. Outside the roots they are applied where such
 * names live: the home directories (the user's, root's) and /etc. Each existing match is denied.
 */
export function outsideTheRoots(patterns: readonly string[]): string[] {
  const homes = [...new Set([os.homedir(), '/root'])];
  const out: string[] = [];
  for (const pattern of patterns) {
    const m = /^\*\*\/([^*?[\]{}]+?)(?:\/\*\*)?$/.exec(pattern);
    if (!m?.[1]) continue;
    const name = m[1];
    const candidates = name.startsWith('etc/') ? [`/${name}`] : homes.map((home) => path.join(home, name));
    for (const candidate of candidates) if (existsSync(candidate)) out.push(candidate);
  }
  return out;
}

/**
 * Runs commands under @anthropic-ai/sandbox-runtime (bubblewrap + socat on Linux): writable only
 * inside the roots, the denied patterns unreadable too (denying `.env` also stops `cat .env`),
 * network off unless hosts are allowed. The runtime is one per process; toolgate configures it
 * from this session's settings before each command. If it cannot start, commands fail closed.
 */
export class OsSandbox {
  readonly #config: SandboxRuntimeConfig;
  static #active: string | undefined;

  constructor(settings: OsSandboxSettings) {
    const globs = [
      ...settings.roots.flatMap((root) =>
        settings.deniedPatterns.map((p) => (p.startsWith('/') ? p : `${root}/${p}`)),
      ),
      ...outsideTheRoots(settings.deniedPatterns),
    ];
    const own = [
      ...settings.deniedFiles,
      ...settings.roots.flatMap((r) => [`${r}/.toolgate`, `${r}/toolgate.toml`]),
    ];
    this.#config = {
      network: { allowedDomains: [...settings.allowedHosts], deniedDomains: [] },
      filesystem: {
        denyRead: [...globs, ...own],
        allowWrite: [...settings.roots],
        denyWrite: [...globs, ...own],
      },
      ripgrep: { command: rgPath },
    } as SandboxRuntimeConfig;
  }

  /** What is missing for the OS sandbox here, in words; empty when it can run. */
  static async missing(): Promise<string[]> {
    const manager = await runtime();
    if (!manager.isSupportedPlatform()) return [`this platform (${process.platform}) is not supported`];
    return manager.checkDependencies({ command: rgPath }).errors;
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
      return await (await runtime()).wrapWithSandboxArgv(command, undefined, undefined, undefined, cwd, {
        commandId,
      });
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
