import type { Command } from 'commander';
import type { ToolgateConfig } from '../config/config-schema.js';
import type { TurnOptions } from '../loop/run-turn.js';
import { ProviderSetupError, type ResolvedProvider, resolveProvider } from '../providers/resolve-provider.js';
import { UsageError } from './usage-error.js';

/** The options `run` and `chat` share for choosing the model. */
export function withProviderOptions(cmd: Command): Command {
  return cmd
    .option(
      '--provider <name>',
      'openai, openai-responses, anthropic, gemini, openai-compatible, or a [providers.NAME] section',
    )
    .option('--base-url <url>', 'the API endpoint (e.g. http://127.0.0.1:11434/v1 for Ollama)')
    .option('--model <name>', 'the model name')
    .option('--system <text>', "the system prompt (default: the provider section's `system`)")
    .option(
      '--max-iterations <n>',
      'tool batches per turn (default tools.max_tool_iterations_per_user_turn)',
    );
}

export interface ProviderFlags {
  provider?: string;
  baseUrl?: string;
  model?: string;
  system?: string;
  maxIterations?: string;
}

export function parseMaxIterations(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`--max-iterations expects a positive whole number (got "${value}")`);
  }
  return n;
}

/** The provider and the turn settings it implies; a setting that cannot work is a usage error. */
export function providerTurn(
  flags: ProviderFlags,
  config: ToolgateConfig,
): { provider: ResolvedProvider; turn: Omit<TurnOptions, 'gate'> } {
  let provider: ResolvedProvider;
  try {
    provider = resolveProvider(flags, config);
  } catch (error) {
    if (error instanceof ProviderSetupError) throw new UsageError(error.message);
    throw error;
  }
  const maxIterations = parseMaxIterations(flags.maxIterations);
  return {
    provider,
    turn: {
      adapter: provider.adapter,
      connection: provider.connection,
      model: provider.model,
      maxTokens: provider.maxTokens,
      ...(provider.contextTokens ? { contextTokens: provider.contextTokens } : {}),
      ...((flags.system ?? provider.system) ? { system: flags.system ?? provider.system } : {}),
      ...(maxIterations ? { maxIterations } : {}),
    },
  };
}
