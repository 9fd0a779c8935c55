import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { fitJson } from '../../output/fit-json.js';
import type { SearchProviderName } from './search-providers.js';

export interface WebSearchConfig {
  provider?: SearchProviderName;
  baseUrl?: string;
  /** The key itself (better kept in the environment: `apiKeyEnv`). */
  apiKey?: string;
  apiKeyEnv?: string;
  timeoutMs: number;
  userAgent: string;
}

const args = z.strictObject({
  query: z.string().min(1).max(400).describe('What to search the web for.'),
  num_results: z.number().int().min(1).max(20).default(5).describe('How many results (at most 20).'),
});

/** The answer (MCP outputSchema). */
export const searchAnswerSchema = z.object({
  query: z.string(),
  provider: z.string(),
  results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
  truncated: z.boolean().optional(),
});

const KEY_ENV: Record<SearchProviderName, string> = {
  searxng: 'SEARXNG_API_KEY',
  brave: 'BRAVE_API_KEY',
  tavily: 'TAVILY_API_KEY',
};

/**
 * web_search (issue #15; seed 001 §Web Tools, Property 32): one query through the provider chosen in
 * `[tools.web.search]` (SearXNG, Brave Search API or Tavily), answered as `{title, url, snippet}`
 * JSON, at most `num_results` of them. Network tier: asks by default.
 */
export function createWebSearchTool(config: WebSearchConfig) {
  return defineTool({
    name: 'web_search',
    description:
      'Search the web through the configured search provider; returns up to num_results results as JSON {title, url, snippet}. Fetch a result with web_fetch.',
    args,
    output: searchAnswerSchema,
    tier: 'network',
    category: 'network',
    timeoutMs: config.timeoutMs,
    summary: (a) => `Search the web: ${a.query}`,
    async execute(a, ctx) {
      const provider = config.provider;
      if (!provider) {
        throw new ToolError(
          'ExecutionFailed',
          'web_search has no provider: set [tools.web.search] provider = "searxng" (with base_url = your instance), "brave" or "tavily" (key in BRAVE_API_KEY or TAVILY_API_KEY)',
        );
      }
      const { DEFAULT_BASE_URL, search } = await import('./search-providers.js');
      const baseUrl = config.baseUrl ?? DEFAULT_BASE_URL[provider];
      if (!baseUrl) {
        throw new ToolError(
          'ExecutionFailed',
          `web_search with ${provider} needs [tools.web.search] base_url (your instance's address)`,
        );
      }
      const envName = config.apiKeyEnv ?? KEY_ENV[provider];
      const apiKey = config.apiKey ?? process.env[envName];
      if (!apiKey && provider !== 'searxng') {
        throw new ToolError(
          'ExecutionFailed',
          `web_search with ${provider} needs an API key: set ${envName} in the environment (or [tools.web.search] api_key_env)`,
        );
      }
      const hits = await search(
        {
          provider,
          baseUrl,
          ...(apiKey ? { apiKey } : {}),
          timeoutMs: config.timeoutMs,
          userAgent: config.userAgent,
        },
        a.query,
        a.num_results,
        ctx.signal,
      );
      const answer = { query: a.query, provider, results: hits };
      return {
        // Cut to the output limit by whole results: the answer stays valid JSON.
        content: fitJson(answer, ctx.outputLimit, hits.length, (v, keep) => ({
          ...v,
          results: v.results.slice(0, keep),
          truncated: true,
        })).text,
        allowTruncation: false,
        display:
          hits.map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}\n   ${h.snippet}`).join('\n') || 'no results',
        metadata: { count: hits.length },
      };
    },
  });
}
