import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpServerOptions } from '../mcp/mcp-server.js';
import { BodyTooLarge, checkRequestOrigin, isLoopback, parseListen, readBody } from './http-guard.js';
import { listenError } from './listen-error.js';
import { loadOrCreateMcpToken, MCP_TOKEN_FILE_DOC, mcpTokenFile } from './mcp-token-file.js';
import { checkToken, parseUserTokens } from './mcp-users.js';
import { refuseOtherUser } from './peer-owner.js';
import { UsageError } from './usage-error.js';

/** Default cap on one request body: MCP messages are small; tool arguments are capped lower still. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A session nobody has used for this long, with no call running, is closed (its memory freed). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** One client session: its transport, its server, and what keeps it alive. */
interface LiveSession {
  transport: StreamableHTTPServerTransport;
  close: () => Promise<void>;
  /** Requests of this session still being answered (a long call keeps its session). */
  active: number;
  timer: NodeJS.Timeout | undefined;
  /** The user whose token opened it (TOOLGATE_MCP_USER_TOKENS); every later request must be theirs. */
  user: string | undefined;
}

/** The memory user of a session opened with TOOLGATE_MCP_TOKEN beside per-user tokens (no user name can be it). */
const SHARED_TOKEN_USER = '(shared token)';

/**
 * `toolgate mcp --http [HOST:]PORT`: Streamable HTTP on 127.0.0.1 unless told otherwise. Every
 * request needs a bearer token: TOOLGATE_MCP_TOKEN or TOOLGATE_MCP_USER_TOKENS; on loopback without
 * either, one generated and kept 0600 in toolgate's state directory (mcp-token-file.ts); any other
 * address without one refuses to start. A connection from another OS user of this machine is
 * refused even with the token (peer-owner.ts): approvals are asked of the connected client, so only
 * toolgate's owner may be it. One MCP server per client session. Returns when asked to stop.
 */

export async function serveMcpHttp(
  listen: string,
  serverOptions: McpServerOptions,
  session: string | undefined,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  sessionIdleMs = DEFAULT_SESSION_IDLE_MS,
): Promise<void> {
  const { host, port } = parseListen(listen);
  const given = process.env.TOOLGATE_MCP_TOKEN || undefined;
  const users = parseUserTokens(process.env.TOOLGATE_MCP_USER_TOKENS);
  const guarded = given !== undefined || users.size > 0;
  const loopback = isLoopback(host);
  if (!loopback && !guarded) {
    throw new UsageError(
      `refusing to serve MCP on ${host} without a bearer token: set TOOLGATE_MCP_TOKEN (or TOOLGATE_MCP_USER_TOKENS), or listen on 127.0.0.1`,
    );
  }
  const sessions = new Map<string, LiveSession>();
  // Clients often end without DELETE (the SDK client's close() sends none): an idle session is
  // closed after sessionIdleMs, so sessions cannot pile up; its client then gets 404 and
  // initializes again, as the MCP spec has it.
  const expire = async (live: LiveSession) => {
    const id = live.transport.sessionId;
    if (id) sessions.delete(id);
    await live.close().catch(() => {});
  };
  const idleFrom = (live: LiveSession) => {
    clearTimeout(live.timer);
    live.timer = live.active === 0 ? setTimeout(() => void expire(live), sessionIdleMs).unref() : undefined;
  };
  const track = (live: LiveSession, res: ServerResponse) => {
    live.active++;
    clearTimeout(live.timer);
    res.once('close', () => {
      live.active--;
      if (live.transport.sessionId && sessions.get(live.transport.sessionId) === live) idleFrom(live);
    });
  };
  let boundPort = port;
  // The shared token: given, or (loopback, none given) generated once the port is ours, so a
  // server that cannot start leaves no file. Until then every request is refused.
  let token = given;
  let ready = guarded;
  const howToAuthorize =
    given || users.size > 0
      ? 'send "Authorization: Bearer TOKEN" with the token set in TOOLGATE_MCP_TOKEN (or your own of TOOLGATE_MCP_USER_TOKENS): the bearer token is missing or wrong'
      : `send "Authorization: Bearer TOKEN", TOKEN being the contents of ${MCP_TOKEN_FILE_DOC} of the user running toolgate (its start names the file): the bearer token is missing or wrong`;
  const refuse = (res: ServerResponse, status: number, error: string) => {
    res
      .writeHead(status, { 'content-type': 'application/json', connection: 'close' })
      .end(JSON.stringify({ error }));
  };
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const notHere = checkRequestOrigin(req.headers, loopback, boundPort);
    if (notHere) {
      refuse(res, 403, notHere);
      return;
    }
    // Another user of this machine is refused before the token is looked at: with it they would
    // be the client approvals are asked of (issue #30 §6).
    const otherUser = refuseOtherUser(req.socket);
    if (otherUser) {
      refuse(res, 403, otherUser);
      return;
    }
    if (!ready) {
      refuse(res, 503, 'try again in a moment: the server is still starting');
      return;
    }
    const who = checkToken(req.headers.authorization, token, users);
    if (!who.matched) {
      refuse(res, 401, howToAuthorize);
      return;
    }
    try {
      const sessionId = req.headers['mcp-session-id'];
      let live = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      // A session belongs to whoever opened it: another user's token cannot use it.
      if (live && live.user !== who.user) {
        refuse(res, 403, 'this MCP session was opened with another bearer token');
        return;
      }
      let body: unknown;
      if (req.method === 'POST') {
        body = JSON.parse((await readBody(req, maxBodyBytes)).toString('utf8') || 'null');
      }
      if (!live) {
        if (typeof sessionId === 'string' && !(req.method === 'POST' && isInitializeRequest(body))) {
          refuse(
            res,
            404,
            'no such MCP session (it ended, or was closed after being idle); initialize again',
          );
          return;
        }
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          refuse(res, 400, 'no valid MCP session; initialize first');
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, fresh);
          },
        });
        // One MCP server per client session: its roots, approvals and calls are its own.
        // The token's user is whose memory this session's tools use (over --user and the config).
        // With per-user tokens, the shared token is an identity of its own (never --user's): a
        // client holding it must not land in a named person's memory. A --session given is each
        // identity's own, so two people never share grants, caches or a conversation.
        const user = who.user ?? (users.size > 0 ? SHARED_TOKEN_USER : undefined);
        const mcp = createMcpServer({
          ...serverOptions,
          session: session === undefined ? randomUUID() : user ? `${session}:${user}` : session,
          ...(user ? { user } : {}),
        });
        const fresh: LiveSession = {
          transport: created,
          active: 0,
          timer: undefined,
          user: who.user,
          close: () => mcp.server.close(),
        };
        // Ended by the client (DELETE) or closed here when idle: forget it, release its tools' helpers
        // (the OS sandbox) once its calls have stopped.
        created.onclose = () => {
          clearTimeout(fresh.timer);
          if (created.sessionId && sessions.get(created.sessionId) === fresh)
            sessions.delete(created.sessionId);
          void mcp.idle().then(() => mcp.gate().close());
        };
        await mcp.server.connect(created);
        live = fresh;
      }
      track(live, res);
      await live.transport.handleRequest(req, res, body);
    } catch (error) {
      if (res.headersSent) return;
      if (error instanceof BodyTooLarge) {
        res.once('finish', () => req.destroy()); // the rest is never read
        refuse(res, 413, `${error.message}; raise it with --max-body BYTES`);
        return;
      }
      refuse(res, 400, (error as Error).message);
    }
  });
  // The peer's owner is read as it connects, while its socket is surely open; requests reuse it.
  http.on('connection', (socket) => void refuseOtherUser(socket));
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error) => reject(listenError(error, host, port)));
    http.listen(port, host, resolve);
  });
  const address = http.address();
  if (typeof address === 'object' && address) boundPort = address.port;
  const url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${boundPort}/mcp`;
  let file: string | undefined;
  if (!guarded) {
    file = mcpTokenFile();
    try {
      token = loadOrCreateMcpToken(file).token;
    } catch (error) {
      await new Promise((resolve) => http.close(resolve));
      throw error;
    }
    ready = true;
  }
  process.stderr.write(`toolgate: MCP over HTTP on ${url}\n`);
  if (file) {
    // Where the token is, never the token: stderr often ends up in a host's logs.
    const cat = `$(cat '${file.replaceAll("'", `'\\''`)}')`;
    process.stderr.write(
      `toolgate: clients send "Authorization: Bearer TOKEN", TOKEN being the contents of ${file} (only you can read it), e.g.\n` +
        `  claude mcp add --transport http toolgate ${url} --header "Authorization: Bearer ${cat}"\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => http.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
