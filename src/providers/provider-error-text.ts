import type { Connection, HttpRequest } from './provider.js';

/**
 * A provider's error text, made fit to pass on (issue #30 §11): it goes to the person, the model
 * and the journal, and a provider may echo what it was sent — the API key among it. Every form of
 * the configured key (and of any credential header the request carried) is cut out, and the text
 * is capped, so a body of any size or content stays a short message.
 */
export const MAX_PROVIDER_ERROR_CHARS = 600;
const REDACTED = '[REDACTED]';
/** Shorter values are not keys, and cutting them out would shred the message. */
const MIN_SECRET = 6;

/** Header names whose value proves who is asking. */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)$/i;

/** The connection's key and every credential in the request's headers (a Bearer token without its scheme too). */
export function secretsOf(connection: Connection, request?: HttpRequest): string[] {
  const values = connection.apiKey ? [connection.apiKey] : [];
  for (const [name, value] of Object.entries(request?.headers ?? {})) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    values.push(value, value.replace(/^\s*\S+\s+/, ''));
  }
  return values;
}

/** `text` without any form of the secrets, cut to `max` characters saying how much was left out. */
export function cleanProviderText(
  text: string,
  secrets: readonly string[],
  max = MAX_PROVIDER_ERROR_CHARS,
): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1)); // as a JSON string escapes it
  }
  let out = text;
  // Longest first: a key that contains another is cut whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join(REDACTED);
  if (out.length <= max) return out;
  const head = out.slice(0, max);
  return `${head} … [cut: ${out.length - head.length} more characters]`;
}
