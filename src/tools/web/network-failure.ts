import { ToolError } from '../../core/tool-error.js';

/** What the model can do about each failure, by the error code Node or undici reports. */
const BY_CODE: Record<string, (where: string) => string> = {
  ENOTFOUND: (w) => `the host name of ${w} does not resolve; check the spelling of the URL`,
  EAI_AGAIN: (w) => `the host name of ${w} could not be resolved now (DNS failure); try again later`,
  ECONNREFUSED: (w) => `${w} refused the connection (nothing listens on that port)`,
  ECONNRESET: (w) => `${w} closed the connection before answering`,
  EHOSTUNREACH: (w) => `${w} cannot be reached from this machine (no route)`,
  ENETUNREACH: (w) => `${w} cannot be reached from this machine (network unreachable)`,
  UND_ERR_CONNECT_TIMEOUT: (w) => `connecting to ${w} timed out; see [tools.web] connect_timeout_seconds`,
  UND_ERR_HEADERS_TIMEOUT: (w) => `${w} accepted the connection but sent no answer in time`,
  UND_ERR_BODY_TIMEOUT: (w) => `${w} stopped sending the page part-way`,
  UND_ERR_SOCKET: (w) => `the connection to ${w} failed part-way`,
};

/**
 * A failed request as an ExecutionFailed result that names the host and what went wrong, instead
 * of "the tool crashed": DNS, refused connections, timeouts, resets and TLS errors are the web's
 * ordinary weather. A ToolError (an SSRF refusal) and a cancellation pass through unchanged.
 */
export function networkFailure(error: unknown, url: URL, signal: AbortSignal): unknown {
  if (error instanceof ToolError || signal.aborted) return error;
  const where = url.host;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const said = code ? BY_CODE[code]?.(where) : undefined;
  if (said) return new ToolError('ExecutionFailed', said, { url: url.href, code });
  if (code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) {
    return new ToolError(
      'ExecutionFailed',
      `the TLS certificate of ${where} was not accepted (${code}: ${message}); fetch it over a trusted https:// URL`,
      { url: url.href, code },
    );
  }
  return new ToolError(
    'ExecutionFailed',
    `the request to ${where} failed: ${message}${code ? ` (${code})` : ''}`,
    { url: url.href, ...(code ? { code } : {}) },
  );
}

/** undici wraps a connect error as `cause`; the code that explains it may be on either. */
function codeOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && code !== 'ERR_UNDICI') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
