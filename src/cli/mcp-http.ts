import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpServerOptions } from '../mcp/mcp-server.js';
import { UsageError } from './usage-error.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** `[HOST:]PORT` → host and port; the host defaults to 127.0.0.1. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]+?)\]?:)?(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port > 65535)
    throw new UsageError(`--http expects [HOST:]PORT, got "${value}"`);
  return { host: m[1] ?? '127.0.0.1', port };
}

/**
 * `toolgate mcp --http [HOST:]PORT`: Streamable HTTP on 127.0.0.1 unless told otherwise; any other
 * address needs a bearer token (TOOLGATE_MCP_TOKEN) or it refuses to start. One MCP server per
 * client session. Returns when the process is asked to stop.
 */
export async function serveMcpHttp(
  listen: string,
  serverOptions: McpServerOptions,
  session: string | undefined,
): Promise<void> {
  const { host, port } = parseListen(listen);
  const token = process.env.TOOLGATE_MCP_TOKEN;
  if (!LOOPBACK.has(host) && !token) {
    throw new UsageError(
      `refusing to serve MCP on ${host} without a bearer token: set TOOLGATE_MCP_TOKEN, or listen on 127.0.0.1`,
    );
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":"missing or wrong bearer token"}');
      return;
    }
    try {
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      let body: unknown;
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      }
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end('{"error":"no valid MCP session; initialize first"}');
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        // One MCP server per client session: its roots, approvals and calls are its own.
        const { server } = createMcpServer({ ...serverOptions, session: session ?? randomUUID() });
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent)
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address();
  process.stderr.write(
    `toolgate: MCP over HTTP on http://${host}:${typeof address === 'object' && address ? address.port : port}/mcp\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => http.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
