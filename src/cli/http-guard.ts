import type { IncomingMessage } from 'node:http';
import { UsageError } from './usage-error.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether a listen host is a loopback address (the only place a token is generated when none is set). */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}

/**
 * The Host header values a request to a loopback server may carry: the loopback names with the
 * port it listens on. Anything else (`evil.example:PORT`) is a page that made its name resolve to
 * 127.0.0.1 to drive this server from a browser: DNS rebinding.
 */
export function loopbackHosts(port: number): Set<string> {
  return new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
}

/**
 * Refuses requests that a web page in the user's browser could have sent. Returns the problem, or
 * undefined when the request may go on. On loopback the Host must be a loopback name with our
 * port; an Origin header (browsers send one on cross-site requests, clients of MCP do not) must
 * be a loopback origin with our port too. Off loopback the bearer token is the guard, and an
 * Origin must at least name the Host the request was sent to.
 */
export function checkRequestOrigin(
  headers: IncomingMessage['headers'],
  loopback: boolean,
  port: number,
): string | undefined {
  const host = headers.host?.toLowerCase();
  if (loopback) {
    const allowed = loopbackHosts(port);
    if (!host || !allowed.has(host))
      return `Host "${host ?? ''}" is not this server (DNS rebinding is refused)`;
    const origin = headers.origin;
    if (origin !== undefined) {
      let originHost: string;
      try {
        const url = new URL(origin);
        originHost = url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : '';
      } catch {
        originHost = '';
      }
      if (!allowed.has(originHost)) return `Origin "${origin}" may not use this server`;
    }
    return undefined;
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let originHost = '';
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      // not a URL: refused below
    }
    if (!host || originHost !== host) return `Origin "${origin}" may not use this server`;
  }
  return undefined;
}

/** A request body over the cap: answered with 413, the rest never read. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

/** Reads a request body, stopping at `limit` bytes (a declared Content-Length over it fails at once). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `[HOST:]PORT` as `--http` takes it; the host is 127.0.0.1 unless given. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]+?)\]?:)?(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port > 65535)
    throw new UsageError(`--http expects [HOST:]PORT, got "${value}"`);
  return { host: m[1] ?? '127.0.0.1', port };
}
