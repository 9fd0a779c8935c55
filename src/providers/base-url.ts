import type { ProviderKind } from '../core/conversation.js';

/**
 * A base URL as people type it, made into what the adapter appends its endpoint to. Only http and
 * https are accepted (`localhost:11434` parses as a URL with the scheme "localhost:", so it is
 * refused with the likely fix). A bare host gets the provider's API version path (`/v1`, `/v1beta`),
 * and Anthropic's always ends in `/v1`: Claude's own tools take `ANTHROPIC_BASE_URL` without it.
 * Returns the URL, or a problem to report.
 */
export function normalizeBaseUrl(
  kind: ProviderKind,
  raw: string,
  defaultBaseUrl: string,
): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: `--base-url "${raw}" is not a URL; give one like ${defaultBaseUrl}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const guess = /^[\w.-]+:\d+/.test(raw) ? ` (did you mean http://${raw}?)` : '';
    return { problem: `--base-url "${raw}" must start with http:// or https://${guess}` };
  }
  const versionPath = new URL(defaultBaseUrl).pathname.replace(/\/$/, '');
  // A pasted endpoint URL (…/v1/chat/completions) is taken as its base: the adapter adds the endpoint.
  let pathname = url.pathname.replace(/\/+$/, '').replace(/\/(?:chat\/completions|responses|messages)$/, '');
  if (pathname === '') pathname = versionPath;
  else if (kind === 'anthropic' && !pathname.endsWith('/v1')) pathname += '/v1';
  url.pathname = pathname;
  return { url: url.toString().replace(/\/$/, '') };
}
