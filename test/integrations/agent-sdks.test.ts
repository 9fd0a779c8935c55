import { createOpenAI } from '@ai-sdk/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import { jsonSchema, stepCountIs, streamText } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll, denyAll } from '../../src/core/confirmation.js';
import { toOpenAiAgentsTools } from '../../src/integrations/openai-agents.js';
import { toVercelAiTools } from '../../src/integrations/vercel-ai.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { useWorkspace } from '../helpers/workspace.js';

/**
 * Keep your agent framework, get toolgate's policy, sandbox and journal: the real Vercel AI SDK
 * and OpenAI Agents SDK drive toolgate's tools, with the model replayed from 127.0.0.1.
 */
const ws = useWorkspace();
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Vercel AI SDK (ai 6): toVercelAiTools', () => {
  it('streamText runs read_file through toolgate, journals it, and sends the result back', async () => {
    ws.file('notes.txt', 'buy milk\n');
    const journal = SqliteJournal.open(`${ws.dir()}/.toolgate/journal.db`);
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [ws.dir()],
      approver: approveAll,
      journal,
    });
    server = await startReplayServer([
      { body: chatStream({ calls: [{ id: 'call_v1', name: 'read_file', args: '{"path":"notes.txt"}' }] }) },
      { body: textAnswer('openai', 'It says buy milk.') },
    ]);
    const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-test');
    const result = streamText({
      model,
      tools: toVercelAiTools(gate, { jsonSchema }),
      prompt: 'what do my notes say?',
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('It says buy milk.');
    const tools = (
      requestBody(server, 0) as { tools: { function: { name: string; parameters: { $schema?: string } } }[] }
    ).tools;
    expect(tools.map((t) => t.function.name)).toContain('read_file');
    const messages = (
      requestBody(server, 1) as { messages: { role: string; tool_call_id?: string; content: unknown }[] }
    ).messages;
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_v1');
    expect(JSON.stringify(toolMessage?.content)).toContain('buy milk');
    expect(journal.recentBatches(5)[0]?.calls).toBe(1);
    journal.close();
  });

  it('a sandbox escape is refused by toolgate and reported to the model as a tool error', async () => {
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
    server = await startReplayServer([
      {
        body: chatStream({
          calls: [{ id: 'call_x', name: 'read_file', args: '{"path":"../../../etc/passwd"}' }],
        }),
      },
      { body: textAnswer('openai', 'Not allowed.') },
    ]);
    const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-test');
    const result = streamText({
      model,
      tools: toVercelAiTools(gate, { jsonSchema }),
      prompt: 'x',
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('Not allowed.');
    const body = JSON.stringify(requestBody(server, 1));
    expect(body).toContain('read_file failed: path \\"../../../etc/passwd\\" contains a \\"..\\" component');
    expect(body).not.toContain('root:x:0:0');
  });
});

describe('OpenAI Agents SDK (0.12): toOpenAiAgentsTools', () => {
  it('an Agent run calls write_file through toolgate: a denial comes back as the result text, nothing written', async () => {
    setTracingDisabled(true);
    setOpenAIAPI('chat_completions');
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: denyAll });
    server = await startReplayServer([
      {
        body: chatStream({
          calls: [{ id: 'call_a1', name: 'write_file', args: '{"path":"x.txt","content":"x"}' }],
        }),
      },
      { body: textAnswer('openai', 'I was not allowed to write it.') },
    ]);
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }));
    const agent = new Agent({
      name: 'writer',
      instructions: 'write files',
      model: 'gpt-test',
      tools: toOpenAiAgentsTools(gate, { tool }),
    });
    const result = await run(agent, 'write x.txt', { stream: true });
    await result.completed;
    expect(result.finalOutput).toBe('I was not allowed to write it.');
    const messages = (
      requestBody(server, 1) as { messages: { role: string; tool_call_id?: string; content: string }[] }
    ).messages;
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_a1');
    expect(toolMessage?.content).toMatch(/write_file failed: denied/);
    expect(ws.dir()).toBeTruthy();
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${ws.dir()}/x.txt`)).toBe(false);
  });
});
