import type { ToolgateConfig } from '../config/config-schema.js';
import type { TurnOptions } from '../loop/run-turn.js';
import { ProviderSetupError, type ResolvedProvider, resolveProvider } from '../providers/resolve-provider.js';
import { UsageError } from './usage-error.js';

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
