import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { exportDefinitions } from '../core/export-definitions.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolResult } from '../core/tool-result.js';
import { createToolgate, type Toolgate, type ToolgateOptions } from '../toolgate.js';
import { progressParams } from './ascii-progress.js';
import type { DirectToolCall } from './fast-stdio-transport.js';
import { withoutHostArguments } from './host-arguments.js';
import { mcpApprover } from './mcp-approver.js';
import { ProgressStream } from './progress-stream.js';
import { intersectRoots } from './roots.js';
import { toolAnnotations } from './tool-annotations.js';

export interface McpServerOptions extends ToolgateOptions {
  version?: string;
  /** The trace of calls whose request names none in `_meta` (the CLI passes its TRACEPARENT). */
  traceparent?: string;
}

/**
 * An MCP result from a ToolResult: text content, isError, and structured content for JSON objects.
 * A tool that declares an outputSchema promises structured content with every success: if its
 * content is not a JSON object after all, the result is an error rather than a broken promise.
 */
export function toMcpResult(result: ToolResult, declaresOutput = false): CallToolResult {
  const out: CallToolResult = { content: [{ type: 'text', text: result.content }], isError: !result.ok };
  const structured = result.metadata?.structured;
  if (result.ok && structured && typeof structured === 'object' && !Array.isArray(structured)) {
    // A tool whose text is not JSON (grep) gives its structured answer beside it.
    out.structuredContent = structured as Record<string, unknown>;
  } else if (result.ok && result.content.trimStart().startsWith('{')) {
    try {
      const value = JSON.parse(result.content) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        out.structuredContent = value as Record<string, unknown>;
    } catch {
      // not JSON after all: text only
    }
  }
  if (declaresOutput && result.ok && !out.structuredContent) {
    out.isError = true;
    out.content = [
      { type: 'text', text: `${result.name} failed: its answer was not the JSON object it declares` },
    ];
  }
  return out;
}

/**
 * toolgate as an MCP server (issue #6): every tool of the registry, every call through the same
 * pipeline (planner, policy, sandbox, approvals via elicitation, journal). One server per client
 * connection; its state lives here, not in module globals.
 */
export function createMcpServer(options: McpServerOptions): {
  server: Server;
  gate: () => Toolgate;
  /** Resolves once no tool call is running. */
  idle: () => Promise<void>;
  /** The tools/call handler itself, for a transport that recognises plain calls on its own. */
  callTool: DirectToolCall;
  /** The client closed its end (stdin ended): approvals still asked of it are denials now. */
  clientGone: () => void;
} {
  const server = new Server(
    { name: 'toolgate', version: options.version ?? '0.1.0' },
    // listChanged: the governance mode can change what may run (`toolgate mode set`, any process).
    { capabilities: { tools: { listChanged: true } } },
  );
  const configuredRoots = [...(options.roots ?? options.config?.tools.sandbox.allowed_roots ?? ['.'])];
  // Asked through the client (elicitation), unless told to wait for answers given elsewhere.
  // Aborted when the client closed its end: questions put to it are not left waiting.
  const gone = new AbortController();
  const approver = options.approver ?? mcpApprover(server, gone.signal);
  // The client keeps the conversation: the journal keeps calls and results, not messages.
  let gate = createToolgate({ conversation: false, ...options, approver });
  let calls = 0;

  /** True once the client's roots were asked for (and applied, or found unlistable). */
  let rootsApplied = false;
  /** Narrows the roots to what the client offers (never wider); re-reads on roots/list_changed. */
  const applyClientRoots = async () => {
    if (!server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await server.listRoots();
      const base = gate.sandbox.roots;
      const effective = intersectRoots(
        base.length ? base : configuredRoots,
        roots.map((r) => r.uri),
      );
      // No overlap: keep a sandbox with nothing usable rather than fall back to the configured roots.
      const governor = gate.autoGovernor;
      gate = createToolgate({
        conversation: false,
        ...options,
        approver,
        session: gate.session,
        ...(governor ? { autoGovernor: governor } : {}),
        roots: effective.length > 0 ? effective : [],
      });
    } catch {
      // The client said it has roots but could not list them: keep the configured ones (never wider).
    }
    rootsApplied = true;
  };
  // Calls wait for the client's roots to be applied, so none runs with wider roots meanwhile.
  // Undefined once applied, so an ordinary call does not wait a turn for nothing. A failure stays
  // in place: every call then fails, rather than run with roots wider than the client's.
  let rootsReady: Promise<void> | undefined;
  const reapplyRoots = () => {
    const applying = applyClientRoots();
    rootsReady = applying;
    applying.then(
      () => {
        if (rootsReady === applying) rootsReady = undefined;
      },
      () => {},
    );
    return applying;
  };
  server.oninitialized = () => {
    void reapplyRoots();
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await reapplyRoots();
  });

  /**
   * The mode in force, read again (cheap unless the journal changed); when it moved since the
   * client last listed, the client is told to list again: it sees only what may run now.
   */
  let listedMode = gate.refreshMode();
  /** The client is told to list again when the mode in force is no longer the one it listed under. */
  const noticeMode = (mode: GovernanceMode) => {
    if (mode === listedMode) return;
    listedMode = mode;
    void server.sendToolListChanged().catch(() => {});
  };
  const checkMode = () => noticeMode(gate.refreshMode());
  // Another process changing the mode writes the journal: its WAL file changing is the event.
  // (A journal on a server has no file to watch: the mode is read again at every request.)
  const journalFile = options.journal?.file;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;
  // Our own commits change the WAL too (one event each): the watch stops at the first event and is
  // set again 50 ms later, after the mode is read, so a busy server pays for one event per 50 ms,
  // not one per call (a change meanwhile is still seen: the mode is read before watching again).
  const arm = () => {
    if (!journalFile || closed) return;
    try {
      watcher = watch(`${path.resolve(options.baseDir ?? process.cwd(), journalFile)}-wal`, () => {
        watcher?.close();
        watcher = undefined;
        debounce = setTimeout(() => {
          checkMode();
          arm();
        }, 50).unref();
      });
      watcher.unref();
      watcher.on('error', () => {});
    } catch {
      watcher = undefined; // no WAL to watch: the mode is still read at every request
    }
  };
  arm();
  const closeServer = server.onclose;
  server.onclose = () => {
    closed = true;
    watcher?.close();
    clearTimeout(debounce);
    closeServer?.();
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    checkMode();
    const allowed = gate.registry.definitions().filter((d) => gate.policy.allowedInMode(d));
    const tools = exportDefinitions(allowed, 'mcp') as { name: string }[];
    return {
      tools: tools.map((t) => {
        const def = gate.registry.get(t.name);
        return {
          ...t,
          ...(def?.outputSchema ? { outputSchema: def.outputSchema } : {}),
          ...(def ? { annotations: toolAnnotations(def) } : {}),
        };
      }),
    };
  });

  // Calls still running, so a client that closes its end right after sending still gets answers.
  let inFlight = 0;
  let onIdle: (() => void)[] = [];
  const idle = () =>
    inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => onIdle.push(resolve));
  const settled = () => {
    if (--inFlight > 0) return;
    const waiting = onIdle;
    onIdle = [];
    for (const resolve of waiting) resolve();
  };

  /** One call, counted while it runs; `notify` sends a notification about this request. */
  const tracked: DirectToolCall = async (params, context) => {
    inFlight++;
    try {
      return await callTool(params, context);
    } finally {
      settled();
    }
  };
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    tracked(request.params, { signal: extra.signal, notify: extra.sendNotification }),
  );

  const callTool: DirectToolCall = async (params, { signal, notify }) => {
    // A client with roots whose roots are not applied yet: it called before its `initialized`, or
    // sent `initialize` and `initialized` in one write (the notification was then handled before
    // its capabilities were known). Its roots are listed now, and the call waits for them.
    if (!rootsApplied && !rootsReady && server.getClientCapabilities()?.roots) void reapplyRoots();
    if (rootsReady) await rootsReady;
    const id = `mcp-${++calls}`;
    const progressToken = params._meta?.progressToken;
    const stream =
      progressToken === undefined
        ? undefined
        : new ProgressStream((message, progress, ascii) =>
            notify({
              method: 'notifications/progress',
              params: progressParams({ progressToken, progress, message }, ascii),
            }),
          );
    // What the host added on its own account is taken out (and journaled with the call).
    const { args, dropped } = withoutHostArguments(gate.registry.get(params.name), params.arguments ?? {});
    // Trace context from the client (`_meta.traceparent`, as MCP hosts propagate W3C trace context).
    const fromClient = params._meta?.traceparent;
    const traceparent = typeof fromClient === 'string' ? fromClient : options.traceparent;
    const [result] = await gate.execute([{ id, name: params.name, arguments: args }], {
      signal,
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
      ...(dropped ? { assistant: { hostArguments: dropped } } : {}),
      ...(stream
        ? {
            onEvent: (event) => {
              // A promise here pauses the command until the client took the output (backpressure).
              if (event.type === 'stdout' || event.type === 'stderr')
                return stream.push(event.chunk, event.ascii === true);
              return undefined;
            },
          }
        : {}),
    });
    // Planning read the mode in force (and applied it): no second look at the journal per call.
    noticeMode(gate.policy.mode);
    await stream?.flush(); // all output reaches the client before the result
    if (!result) return { content: [{ type: 'text', text: 'toolgate: no result' }], isError: true };
    return toMcpResult(result, gate.registry.get(params.name)?.outputSchema !== undefined);
  };

  return { server, gate: () => gate, idle, callTool: tracked, clientGone: () => gone.abort() };
}
