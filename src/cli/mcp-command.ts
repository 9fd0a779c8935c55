import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Journal } from '../journal/journal.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';

export interface McpOptions {
  root?: string[];
  config?: string;
  journal?: string | boolean;
  session?: string;
  http?: string;
}

/**
 * `toolgate mcp`: every toolgate tool over MCP, through the same pipeline. stdio by default;
 * `--http [HOST:]PORT` serves Streamable HTTP on 127.0.0.1 unless told otherwise, and any other
 * address needs a bearer token (TOOLGATE_MCP_TOKEN) or it refuses to start.
 */
export async function runMcp(options: McpOptions): Promise<number> {
  const setup = resolveSetup(options);
  const journal: Journal | undefined =
    options.journal === false
      ? undefined
      : openJournalOrStop(
          journalPath(setup, typeof options.journal === 'string' ? options.journal : undefined),
        );
  const serverOptions = {
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
    ...(journal ? { journal } : {}),
  };
  if (!options.http) {
    const { server } = createMcpServer({
      ...serverOptions,
      ...(options.session ? { session: options.session } : {}),
    });
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => resolve();
    });
    await server.connect(new StdioServerTransport());
    await closed;
    journal?.close();
    return 0;
  }
  // The HTTP transport (and its server framework) is loaded only when asked for: stdio starts faster.
  const { serveMcpHttp } = await import('./mcp-http.js');
  await serveMcpHttp(options.http, serverOptions, options.session);
  journal?.close();
  return 0;
}
