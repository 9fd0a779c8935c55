import type { ToolgateConfig } from '../config/config-schema.js';
import { PROVIDER_KINDS, type ProviderKind } from '../core/conversation.js';
import { API_KEY_ENV, adapterFor } from './adapters.js';
import { normalizeBaseUrl } from './base-url.js';
import type { Connection, ProviderAdapter } from './provider.js';

export interface ResolvedProvider {
  name: string;
  adapter: ProviderAdapter;
  connection: Connection;
  model: string;
  maxTokens: number;
  contextTokens: number | undefined;
  system: string | undefined;
}

/** A provider setting that cannot work; the CLI turns it into a usage error (exit 2). */
export class ProviderSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderSetupError';
  }
}

const isKind = (value: string): value is ProviderKind =>
  (PROVIDER_KINDS as readonly string[]).includes(value);

/**
 * Picks the provider for a run: `--provider` names a `[providers.NAME]` section or a wire format;
 * without it, the only configured section. Flags win over the section; the key comes from the
 * section, then its `api_key_env`, then the provider's usual variable. A hosted endpoint without
 * a key is refused before anything is sent.
 */
export function resolveProvider(
  flags: { provider?: string; baseUrl?: string; model?: string },
  config: ToolgateConfig,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedProvider {
  const sections = Object.keys(config.providers);
  const name = flags.provider ?? (sections.length === 1 ? sections[0] : undefined);
  if (!name) {
    throw new ProviderSetupError(
      `choose a provider with --provider (${PROVIDER_KINDS.join(', ')}${sections.length ? `, or a [providers.*] section: ${sections.join(', ')}` : ''})`,
    );
  }
  const section = config.providers[name];
  const kind = section?.kind ?? (isKind(name) ? name : undefined);
  if (!kind) {
    throw new ProviderSetupError(
      `unknown provider "${name}": use one of ${PROVIDER_KINDS.join(', ')}, or add [providers.${name}] with kind = "…" to the config`,
    );
  }
  const adapter = adapterFor(kind);
  const model = flags.model ?? section?.model;
  if (!model) throw new ProviderSetupError(`no model: pass --model NAME or set model in [providers.${name}]`);
  const given = flags.baseUrl ?? section?.base_url;
  const normalized =
    given === undefined
      ? { url: adapter.defaultBaseUrl }
      : normalizeBaseUrl(kind, given, adapter.defaultBaseUrl);
  if ('problem' in normalized) throw new ProviderSetupError(normalized.problem);
  const baseUrl = normalized.url;
  const keyEnv = section?.api_key_env ?? API_KEY_ENV[kind];
  const apiKey = section?.api_key ?? env[keyEnv];
  const hosted = baseUrl === adapter.defaultBaseUrl && kind !== 'openai-compatible';
  if (hosted && !apiKey) {
    throw new ProviderSetupError(
      `no API key for ${kind}: set ${keyEnv} (or api_key_env in [providers.${name}])`,
    );
  }
  return {
    name,
    adapter,
    connection: {
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      idleTimeoutMs: (section?.idle_timeout_seconds ?? 300) * 1000,
    },
    model,
    maxTokens: section?.max_tokens ?? 4096,
    contextTokens: section?.context_tokens,
    system: section?.system,
  };
}
