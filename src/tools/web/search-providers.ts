import { request } from 'undici';
import { ToolError } from '../../core/tool-error.js';

/** One search hit, as every provider's answer is turned into. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export type SearchProviderName = 'searxng' | 'brave' | 'tavily';

export interface SearchSettings {
  provider: SearchProviderName;
  /** SearXNG: the instance (required). Brave and Tavily: their API by default; a test server may stand in. */
  baseUrl: string;
  /** Brave and Tavily; SearXNG instances usually need none. */
  apiKey?: string;
  timeoutMs: number;
  userAgent: string;
}

export const DEFAULT_BASE_URL: Record<SearchProviderName, string | undefined> = {
  searxng: undefined,
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** What each provider's answer holds: its list of results, each mapped to a hit. */
function hitsOf(provider: SearchProviderName, body: unknown): SearchHit[] {
  if (!isObject(body)) throw new Error('the answer is not a JSON object');
  const list =
    provider === 'brave'
      ? isObject(body.web)
        ? body.web.results
        : [] // Brave answers without a `web` section when nothing was found
      : body.results;
  if (!Array.isArray(list)) throw new Error('the answer has no results list');
  return list.filter(isObject).flatMap((r) => {
    const url = text(r.url);
    if (!url) return [];
    const snippet = provider === 'brave' ? text(r.description) : text(r.content);
    return [{ title: text(r.title) || url, url, snippet: snippet.replace(/<\/?strong>/g, '') }];
  });
}

/**
 * One search through the configured provider, in its own wire format: SearXNG's JSON API
 * (`GET /search?q=…&format=json`), Brave's Web Search API (`X-Subscription-Token`), Tavily's
 * (`POST /search`, bearer key). At most `count` hits come back.
 */
export async function search(settings: SearchSettings, query: string, count: number, signal: AbortSignal) {
  const { provider } = settings;
  let url: URL;
  let init: Parameters<typeof request>[1];
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': settings.userAgent };
  if (provider === 'searxng') {
    url = new URL('search', settings.baseUrl.endsWith('/') ? settings.baseUrl : `${settings.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
    init = { method: 'GET', headers, signal };
  } else if (provider === 'brave') {
    url = new URL(settings.baseUrl);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(count));
    headers['x-subscription-token'] = settings.apiKey ?? '';
    init = { method: 'GET', headers, signal };
  } else {
    url = new URL(settings.baseUrl);
    headers['content-type'] = 'application/json';
    headers.authorization = `Bearer ${settings.apiKey ?? ''}`;
    init = { method: 'POST', headers, signal, body: JSON.stringify({ query, max_results: count }) };
  }
  const response = await request(url, {
    ...init,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  });
  const raw = await response.body.text();
  if (response.statusCode >= 400) {
    const why = response.statusCode === 401 || response.statusCode === 403 ? ' (check the API key)' : '';
    throw new ToolError(
      'ExecutionFailed',
      `${provider} answered HTTP ${response.statusCode}${why}: ${raw.slice(0, 300)}`,
      {
        status: response.statusCode,
      },
    );
  }
  try {
    return hitsOf(provider, JSON.parse(raw)).slice(0, count);
  } catch (error) {
    throw new ToolError(
      'ExecutionFailed',
      `${provider} answered something that is not its search format (${(error as Error).message}): ${raw.slice(0, 200)}`,
    );
  }
}
