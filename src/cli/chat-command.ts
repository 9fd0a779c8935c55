import { render } from 'ink';
import { createElement } from 'react';
import { loadConversation } from '../loop/load-conversation.js';
import { ProviderSetupError, resolveProvider } from '../providers/resolve-provider.js';
import { ChatApp } from '../tui/chat-app.js';
import { ChatController } from '../tui/chat-controller.js';
import { type GateOptions, openGate } from './open-gate.js';
import { UsageError } from './usage-error.js';

export interface ChatOptions extends Omit<GateOptions, 'approve'> {
  provider?: string;
  baseUrl?: string;
  model?: string;
  maxIterations?: string;
}

/**
 * `toolgate chat`: the interactive terminal UI (ink). Approvals, recovery and parse-only results
 * are asked on screen; everything else is the same loop as `toolgate run`.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  if (!process.stdin.isTTY) {
    throw new UsageError(
      'toolgate chat needs an interactive terminal; for scripts use toolgate run "PROMPT"',
    );
  }
  const maxIterations = options.maxIterations === undefined ? undefined : Number(options.maxIterations);
  if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1)) {
    throw new UsageError(`--max-iterations expects a positive whole number (got "${options.maxIterations}")`);
  }
  // Questions are asked in the UI, never on a second prompt: the gate's own approver is unused.
  const { gate, setup, journal, close } = openGate({ ...options, approve: 'none' });
  try {
    let provider: ReturnType<typeof resolveProvider>;
    try {
      provider = resolveProvider(options, setup.config);
    } catch (error) {
      if (error instanceof ProviderSetupError) throw new UsageError(error.message);
      throw error;
    }
    const controller = new ChatController({
      gate,
      history: journal ? loadConversation(journal, gate.session) : [],
      turn: {
        adapter: provider.adapter,
        connection: provider.connection,
        model: provider.model,
        maxTokens: provider.maxTokens,
        ...(provider.contextTokens ? { contextTokens: provider.contextTokens } : {}),
        ...(provider.system ? { system: provider.system } : {}),
        ...(maxIterations ? { maxIterations } : {}),
      },
    });
    const instance = render(
      createElement(ChatApp, {
        controller,
        title: `${provider.name} · ${provider.model} · session ${gate.session}`,
      }),
      { exitOnCtrlC: false },
    );
    await instance.waitUntilExit();
    controller.cancel();
    return 0;
  } finally {
    close();
  }
}
