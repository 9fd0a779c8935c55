import type { Journal } from '../journal/journal.js';
import { FastStdioServerTransport } from '../mcp/fast-stdio-transport.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { pendingFileSyncs } from '../sandbox/pending-syncs.js';
import { createToolgate } from '../toolgate.js';
import { beforeFirstCall, compileBaselineFromNowOn } from './compile-baseline-now.js';
import { approverFor, knownToolNamesOnly } from './open-gate.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { openLogger } from './open-logger.js';
import { resolveSetup, type Setup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';
import { CLI_VERSION } from './version.js';

export interface McpOptions {
  root?: string[];
  config?: string;
  journal?: string | boolean;
  session?: string;
  user?: string;
  otlp?: string;
  logLevel?: string;
  logFile?: string;
  http?: string;
  maxBody?: string;
  sessionIdle?: string;
  approve?: string;
}

/**
 * `toolgate mcp`: every toolgate tool over MCP, through the same pipeline. stdio by default;
 * `--http [HOST:]PORT` serves Streamable HTTP on 127.0.0.1 unless told otherwise, always behind a
 * bearer token (generated on loopback when none is set; any other address needs TOOLGATE_MCP_TOKEN)
 * and to toolgate's own OS user only (mcp-http.ts).
 */
export async function runMcp(options: McpOptions): Promise<number> {
  const setup = resolveSetup(options);
  const endpoint = options.otlp ?? setup.config.telemetry.otlp_endpoint;
  if (!endpoint) return await serve(options, setup);
  const stop = await (await import('./start-telemetry.js')).startTelemetry(endpoint, CLI_VERSION);
  try {
    return await serve(options, setup);
  } finally {
    await stop();
  }
}

async function serve(options: McpOptions, setup: Setup): Promise<number> {
  const log = await openLogger(options);
  const journal: Journal | undefined =
    options.journal === false
      ? undefined
      : openJournalOrStop(
          journalPath(setup, typeof options.journal === 'string' ? options.journal : undefined),
        );
  // [journal] retain_days: what is older goes as the journal is opened (opt-in; never open batches).
  const retain = setup.config.journal.retain_days;
  // At most 2,000 batches per start: a first start on a big journal stays quick; the rest go later.
  if (journal && retain !== undefined) journal.prune(Date.now() - retain * 24 * 60 * 60 * 1000, 2_000);
  const serverOptions = {
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
    ...(journal ? { journal } : {}),
    ...(options.user ? { user: options.user } : {}),
    ...(log ? { logger: log.logger } : {}),
    ...(options.approve === 'remote' ? { approver: approverFor('remote', journal).approver } : {}),
  };
  if (!options.http) {
    const { server, idle, gate, callTool, clientGone } = createMcpServer({
      ...serverOptions,
      ...(options.session ? { session: options.session } : {}),
      // One client on stdio: a TRACEPARENT the host started it under is the trace of its calls.
      ...(process.env.TRACEPARENT ? { traceparent: process.env.TRACEPARENT } : {}),
    });
    try {
      knownToolNamesOnly(gate(), setup);
    } catch (error) {
      journal?.close();
      throw error;
    }
    const closed = new Promise<void>((resolve) => {
      const closeServer = server.onclose; // the server's own clean-up (its journal watch) runs too
      server.onclose = () => {
        closeServer?.();
        resolve();
      };
    });
    // The first call's code, and everything after, as baseline machine code (compile-baseline-now.ts).
    const direct = beforeFirstCall(callTool, compileBaselineFromNowOn);
    await server.connect(new FastStdioServerTransport(process.stdin, process.stdout, direct));
    // The client closing our stdin is the end of the session: close cleanly (exit 0). Without this
    // the process would fall out of its event loop with the session still awaited (exit code 13).
    // Asked to stop (SIGTERM, the terminal gone, Ctrl-C): running calls are cancelled, which stops
    // their process groups; the session then ends as when the client leaves.
    const stop = () => void server.close();
    const signals = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const;
    for (const signal of signals) process.once(signal, stop);
    // Calls already sent are answered first. The setImmediates: 'end' can arrive (on nextTick)
    // before the SDK has handed the last requests to their handlers, and a handler's answer is
    // sent a few promise turns after it returns (closing first would abort that send).
    const afterTurns = () => new Promise<void>((resolve) => setImmediate(resolve));
    process.stdin.once('end', () => {
      clientGone(); // a call waiting on an approval from it would otherwise wait out the SDK's timeout
      void afterTurns()
        .then(idle)
        .then(afterTurns)
        .then(() => server.close());
    });
    await closed;
    await idle(); // cancelled calls finish stopping their commands before the journal closes
    for (const signal of signals) process.off(signal, stop);
    await gate().close();
    journal?.close();
    return 0;
  }
  // The HTTP transport (and its server framework) is loaded only when asked for: stdio starts faster.
  try {
    knownToolNamesOnly(createToolgate(serverOptions), setup);
  } catch (error) {
    journal?.close();
    throw error;
  }
  const { serveMcpHttp, DEFAULT_MAX_BODY_BYTES } = await import('./mcp-http.js');
  const maxBody = options.maxBody === undefined ? DEFAULT_MAX_BODY_BYTES : Number(options.maxBody);
  if (!Number.isSafeInteger(maxBody) || maxBody < 1024) {
    throw new UsageError(`--max-body expects a number of bytes of at least 1024, got "${options.maxBody}"`);
  }
  const idleSeconds = options.sessionIdle === undefined ? undefined : Number(options.sessionIdle);
  if (idleSeconds !== undefined && (!Number.isFinite(idleSeconds) || idleSeconds < 1)) {
    throw new UsageError(
      `--session-idle expects a number of seconds of at least 1, got "${options.sessionIdle}"`,
    );
  }
  compileBaselineFromNowOn(); // a long-lived server: its requests' code as baseline machine code
  await serveMcpHttp(
    options.http,
    serverOptions,
    options.session,
    maxBody,
    idleSeconds === undefined ? undefined : idleSeconds * 1000,
  );
  // The sessions' last writes reach the disk before the journal's closing fsync says they happened.
  await pendingFileSyncs.drained();
  journal?.close();
  return 0;
}
