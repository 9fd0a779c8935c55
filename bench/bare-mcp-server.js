// The transport floor: a bare low-level SDK server answering every tools/call with the file's text,
// read once at start. No checks, no I/O per call: what any server on this transport cannot beat.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const text = readFileSync(process.argv[2], 'utf8');
const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text }] }));
await server.connect(new StdioServerTransport());
