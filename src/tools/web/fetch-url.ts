import dns from 'node:dns';
import { isIP } from 'node:net';
import picomatch from 'picomatch';
import { Agent, request } from 'undici';
import { ToolError } from '../../core/tool-error.js';
import { forbiddenRange } from './classify-address.js';
import { networkFailure } from './network-failure.js';

export interface FetchSettings {
  /** `host:port` entries that may be reached although private (`[tools.web] allow_private`). */
  allowPrivate: readonly string[];
  /** Globs on the host name: when any, only matching public hosts (`allowed_hosts`). */
  allowedHosts: readonly string[];
  deniedHosts: readonly string[];
  maxDownloadBytes: number;
  connectTimeoutMs: number;
  maxRedirects: number;
  userAgent: string;
  /** The resolver (dns.lookup); tests pass their own to stand in for a DNS server. */
  lookup?: typeof dns.lookup;
}

export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than `maxDownloadBytes` and was cut there. */
  truncated: boolean;
  /** Every URL requested, the first one included, in order. */
  hops: string[];
  /** The address connected to for the last hop. */
  address: string | undefined;
  /** A redirect to another origin, not followed: the model asks for it on its own (policy judges it). */
  redirectedTo?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A refusal names what was refused and the config key that would change it. */
function refused(what: string, key: string): ToolError {
  return new ToolError('SandboxViolation', `${what}; ${key}`);
}

/** The host as written in `allow_private` entries: lower case, IPv6 in brackets. */
function hostPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.toLowerCase().replace(/\.$/, '')}:${port}`;
}

/**
 * GET `url`, following at most `maxRedirects` redirects, with the SSRF guard on every hop: the
 * scheme must be http or https; a host on `denied_hosts` (or off `allowed_hosts`) is refused; an
 * address literal is judged as written (after the URL parser has turned 0x7f000001, 2130706433 or
 * 0177.0.0.1 into the address they mean); a name is resolved once, inside the connection (undici's
 * `connect.lookup`), and the connection goes only to an address judged public there, so neither a
 * name that resolves to 127.0.0.1 nor DNS rebinding between a check and the connect can get
 * through. A hop to a `host:port` on `allow_private` may reach a private address; the hop after it
 * is judged afresh. The body is read up to `maxDownloadBytes`, then the connection is dropped.
 */
export async function fetchUrl(
  start: string,
  settings: FetchSettings,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const allowPrivate = new Set(settings.allowPrivate.map((e) => e.toLowerCase()));
  const denied = settings.deniedHosts.length
    ? picomatch([...settings.deniedHosts], { nocase: true })
    : undefined;
  const allowed = settings.allowedHosts.length
    ? picomatch([...settings.allowedHosts], { nocase: true })
    : undefined;
  const hops: string[] = [];
  let target = parseTarget(start);
  for (;;) {
    hops.push(target.href);
    const host = target.hostname.toLowerCase();
    const privateOk = allowPrivate.has(hostPort(target));
    // "example.org." is example.org: matched and resolved without the root's dot.
    const bare = host.startsWith('[') ? host.slice(1, -1) : host.replace(/\.$/, '');
    if (denied?.(bare)) refusedHost(host, 'denied_hosts');
    if (allowed && !privateOk && !allowed(bare)) refusedHost(host, 'allowed_hosts');
    if (isIP(bare) && !privateOk) {
      const range = forbiddenRange(bare);
      if (range) throw privateRefusal(target, bare, range);
    }
    let connectedTo: string | undefined;
    let refusal: ToolError | undefined;
    const agent = new Agent({
      connect: {
        timeout: settings.connectTimeoutMs,
        lookup: guardedLookup(
          settings.lookup ?? dns.lookup,
          privateOk,
          (_address, range) => {
            // A name's address stays out of the message: it would map internal DNS for the model.
            refusal = privateRefusal(target, undefined, range);
            return refusal;
          },
          (address) => {
            connectedTo = address;
          },
        ),
      },
    });
    try {
      const response = await request(target, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: {
          'user-agent': settings.userAgent,
          accept: 'text/html, text/plain, application/json;q=0.9, */*;q=0.5',
          'accept-encoding': 'identity', // the cap counts the bytes we read, not a decompressed size
        },
      }).catch((error: unknown) => {
        throw refusal ?? networkFailure(error, target, signal);
      });
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
        drop(response.body);
        if (hops.length > settings.maxRedirects) {
          throw new ToolError(
            'ExecutionFailed',
            `more than ${settings.maxRedirects} redirects (${hops.join(' → ')}); [tools.web] max_redirects`,
          );
        }
        let next: URL;
        try {
          next = parseTarget(new URL(location, target).href);
        } catch (error) {
          throw new ToolError(
            'ExecutionFailed',
            `${target.href} redirects to ${JSON.stringify(location.slice(0, 200))}, which cannot be fetched (${(error as Error).message})`,
          );
        }
        if (!sameOrigin(start, next)) {
          return {
            url: target.href,
            status: response.statusCode,
            contentType: '',
            body: Buffer.alloc(0),
            truncated: false,
            hops,
            address: connectedTo ?? (isIP(bare) ? bare : undefined),
            redirectedTo: next.href,
          };
        }
        target = next;
        continue;
      }
      const { body, truncated } = await readCapped(response.body, settings.maxDownloadBytes).catch(
        (error: unknown) => {
          throw networkFailure(error, target, signal);
        },
      );
      const type = response.headers['content-type'];
      return {
        url: target.href,
        status: response.statusCode,
        contentType: (Array.isArray(type) ? type[0] : type) ?? '',
        body,
        truncated,
        hops,
        address: connectedTo ?? (isIP(bare) ? bare : undefined),
      };
    } finally {
      void agent.destroy().catch(() => {});
    }
  }
}

/**
 * Redirects are followed only within the origin first asked for (scheme, host and port: what policy,
 * the approval and an origin grant judged), plus the one upgrade from http to https on the same
 * host with default ports. A hop anywhere else (another host, port or scheme, `www.` added or
 * dropped, https down to http) is handed back, so neither an allowed host's open redirect nor a
 * grant for one origin carries a request elsewhere (hostile review of issue #30 §5).
 */
function sameOrigin(first: string, next: URL): boolean {
  const start = new URL(first);
  if (start.origin === next.origin) return true;
  return (
    start.protocol === 'http:' &&
    next.protocol === 'https:' &&
    start.hostname === next.hostname &&
    start.port === '' &&
    next.port === ''
  );
}

function refusedHost(host: string, key: 'denied_hosts' | 'allowed_hosts'): never {
  throw refused(
    key === 'denied_hosts' ? `the host ${host} is denied` : `the host ${host} is not on the allowed hosts`,
    `see [tools.web] ${key}`,
  );
}

function privateRefusal(url: URL, address: string | undefined, range: string): ToolError {
  const what =
    address === undefined
      ? `refused to connect to ${url.host}: the name resolves to a ${range} address`
      : `refused to connect to ${address} (${range}) for ${url.host}`;
  return refused(
    `${what}: private, local and special addresses cannot be fetched`,
    `to reach a local server on purpose, add "${hostPort(url)}" to [tools.web] allow_private`,
  );
}

/** http and https only; everything else is bad arguments that name the allowed schemes. */
function parseTarget(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(
      'BadArgs',
      `not a URL: ${JSON.stringify(text.slice(0, 200))}; give an absolute http:// or https:// URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('BadArgs', `the scheme ${url.protocol} cannot be fetched; only http: and https: can`);
  }
  if (url.username || url.password) {
    throw new ToolError(
      'BadArgs',
      'a URL with a user name or password cannot be fetched; remove the credentials',
    );
  }
  return url;
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * dns.lookup for one connection, judging every address it answers: one that is not public (and
 * not allowed for this hop) fails the connection, so the socket never opens to it. Resolved once:
 * the address judged is the address connected to.
 */
function guardedLookup(
  lookup: typeof dns.lookup,
  privateOk: boolean,
  onRefused: (address: string, range: string) => Error,
  onConnect: (address: string) => void,
) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    lookup(hostname.replace(/\.$/, ''), { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as unknown as LookupAddress[];
      if (list.length === 0)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (!privateOk) {
        for (const a of list) {
          const range = forbiddenRange(a.address);
          if (range) return callback(onRefused(a.address, range) as NodeJS.ErrnoException, []);
        }
      }
      const first = list[0] as LookupAddress;
      onConnect(first.address);
      if (options.all) return callback(null, list);
      return callback(null, first.address, first.family);
    });
  };
}

type Body = AsyncIterable<Buffer> & { destroy(): void; on(event: 'error', f: () => void): unknown };

/** Stops reading a body: the connection is dropped, and the abort it reports is expected. */
function drop(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}

async function readCapped(body: Body, max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      drop(body);
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
