import path from 'node:path';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { Sandbox } from '../../sandbox/sandbox.js';
import type { CopyLimits } from './copy-from-vault.js';

export interface VaultSettings extends CopyLimits {
  /** `[tools.vault] roots`, resolved against `baseDir`. */
  roots: readonly string[];
  baseDir: string;
  timeoutMs?: number | undefined;
  /** `[tools.sandbox] denied_patterns`: what the user denies is never copied out of a vault either. */
  deniedPatterns?: readonly string[];
  includeDefaultDenies?: boolean;
}

const args = z.strictObject({
  source: z
    .string()
    .min(1)
    .describe(
      'The vault file or directory: an absolute path inside a vault, or relative to the vault when there is one.',
    ),
  destination: z
    .string()
    .min(1)
    .describe('The new file or directory in the workspace, relative to the workspace root.'),
  overwrite: z
    .boolean()
    .default(false)
    .describe('Replace an existing file (a directory is never merged into an existing one).'),
});

/**
 * vault_copyto (seed 003 Core Tools; issue #15): copies one file or tree from a read-only vault
 * (`[tools.vault] roots`) into the workspace. Vaults are denied to every other tool by the main
 * sandbox; this tool reads them through a sandbox of its own. Privileged: it always asks, unless a
 * conditioned allow rule stands for it. The result names the SHA-256 of what was copied.
 */
export function createVaultCopyTool(settings: VaultSettings) {
  let vault: Sandbox | undefined;
  const open = () => {
    if (settings.roots.length === 0)
      throw new ToolError(
        'BadArgs',
        'no vault is configured: list the vault directories in [tools.vault] roots',
      );
    try {
      vault ??= new Sandbox({
        roots: settings.roots,
        baseDir: settings.baseDir,
        allowAbsolute: true,
        deniedPatterns: settings.deniedPatterns ?? [],
        includeDefaultDenies: settings.includeDefaultDenies ?? true,
      });
    } catch (error) {
      throw new ToolError(
        'ExecutionFailed',
        `a vault cannot be opened (${(error as Error).message.replace('allowed root', 'vault')}); check [tools.vault] roots`,
      );
    }
    return vault;
  };
  return defineTool({
    name: 'vault_copyto',
    description:
      'Copy a file or directory tree from a read-only vault into the workspace (atomic, size-capped; returns its SHA-256). Always asks the user.',
    args,
    tier: 'privileged',
    category: 'vault',
    timeoutMs: settings.timeoutMs,
    summary: (a) => `Copy ${a.source} from the vault to ${a.destination}`,
    approvalDetail: (a) => `${a.source} → ${a.destination}${a.overwrite ? ' (overwrite)' : ''}`,
    locations: (a) => [{ path: a.destination, access: 'write' }],
    async execute(a, ctx) {
      const box = open();
      if (!path.isAbsolute(a.source) && box.roots.length > 1)
        throw new ToolError(
          'BadArgs',
          `there are ${box.roots.length} vaults: give the source as an absolute path inside one of ${box.roots.join(', ')}`,
        );
      let source: ReturnType<Sandbox['resolve']>;
      try {
        source = box.resolve(a.source);
      } catch (error) {
        if (!ToolError.isInstance(error)) throw error;
        throw new ToolError(
          error.type,
          `source: ${error.message.replace('allowed roots', 'vaults')} (the vaults: ${box.roots.join(', ')})`,
        );
      }
      const destination = ctx.sandbox.resolve(a.destination);
      const { copyFromVault } = await import('./copy-from-vault.js');
      const outcome = await copyFromVault(source, box, destination, ctx.sandbox, {
        overwrite: a.overwrite,
        limits: { maxBytes: settings.maxBytes, maxFiles: settings.maxFiles },
        signal: ctx.signal,
        // Each path the copy creates is judged as if a tool wrote it there (issue #30 §11).
        judge: (relative) => ctx.sandbox.resolve(path.posix.join(a.destination, relative)),
      });
      const what =
        outcome.kind === 'file'
          ? `${outcome.bytes} bytes`
          : `${outcome.files.length} file${outcome.files.length === 1 ? '' : 's'}, ${outcome.bytes} bytes`;
      const skipped = outcome.skipped.length
        ? `\nskipped ${outcome.skipped.length} (never followed or copied): ${outcome.skipped.slice(0, 20).join(', ')}${outcome.skipped.length > 20 ? ', …' : ''}`
        : '';
      const digest =
        outcome.kind === 'file' ? `sha256 ${outcome.sha256}` : `sha256 of the manifest ${outcome.sha256}`;
      return {
        content: `copied ${outcome.kind} ${source.relative === '.' ? path.basename(source.absolute) : source.relative} from the vault to ${destination.relative} (${what}); ${digest}${skipped}`,
        metadata: {
          kind: outcome.kind,
          source: source.absolute,
          destination: destination.relative,
          bytes: outcome.bytes,
          sha256: outcome.sha256,
          files: outcome.files.slice(0, 1000),
          skipped: outcome.skipped,
        },
      };
    },
  });
}
