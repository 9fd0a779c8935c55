import { createElement } from 'react';
import { loadConversation } from '../loop/load-conversation.js';
import { ChatController } from '../tui/chat-controller.js';
import { type GateOptions, openGate } from './open-gate.js';
import { type ProviderFlags, parseMaxIterations, providerTurn } from './provider-options.js';
import { UsageError } from './usage-error.js';

export interface ChatOptions extends Omit<GateOptions, 'approve'>, ProviderFlags {}

/**
 * ink draws only a final frame when it believes it runs in CI (it reads CI once, when loaded).
 * The chat has checked it has a terminal, so ink is loaded with that belief switched off; the
 * environment is restored at once, so tools still see the person's own CI setting.
 */
async function loadInteractiveUi() {
  const keys = ['CI', 'CONTINUOUS_INTEGRATION'] as const;
  const saved = keys.map((k) => process.env[k]);
  for (const k of keys) process.env[k] = '0';
  try {
    const [ink, app] = await Promise.all([import('ink'), import('../tui/chat-app.js')]);
    return { render: ink.render, ChatApp: app.ChatApp };
  } finally {
    keys.forEach((k, i) => {
      const value = saved[i];
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
    });
  }
}

/**
 * The command that lists and settles this journal's unfinished batches: plain `toolgate recover`
 * finds the same journal only when nothing moved it (no --journal, --root or --config).
 */
function recoverCommand(options: ChatOptions, location: string): string {
  const moved = typeof options.journal === 'string' || (options.root?.length ?? 0) > 0 || options.config;
  if (!moved) return 'toolgate recover';
  const quoted = /^[\w@%+=:,./-]+$/.test(location) ? location : `'${location.replaceAll("'", "'\\''")}'`;
  return `toolgate recover --journal ${quoted}`;
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
  parseMaxIterations(options.maxIterations);
  // Questions are asked in the UI, never on a second prompt: the gate's own approver is unused.
  const { gate, setup, journal, close } = await openGate({ ...options, approve: 'none', ownsScreen: true });
  try {
    const { provider, turn } = providerTurn(options, setup.config);
    const { render, ChatApp } = await loadInteractiveUi();
    const controller = new ChatController({
      gate,
      history: journal ? loadConversation(journal, gate.session) : [],
      turn,
      ...(journal ? { recoverCommand: recoverCommand(options, journal.location) } : {}),
    });
    const instance = render(
      createElement(ChatApp, {
        controller,
        title: { provider: provider.name, model: provider.model, session: gate.session },
      }),
      { exitOnCtrlC: false },
    );
    // The terminal closing (SIGHUP) or a SIGTERM under an approval prompt: the question is withdrawn
    // and the batch settled as denied before exit, so no later chat finds it waiting.
    const hangUp = () => {
      void controller.stop().finally(() => instance.unmount());
    };
    process.once('SIGHUP', hangUp);
    process.once('SIGTERM', hangUp);
    try {
      await instance.waitUntilExit();
    } finally {
      process.off('SIGHUP', hangUp);
      process.off('SIGTERM', hangUp);
    }
    await controller.stop(); // before the journal closes
    return 0;
  } finally {
    await close();
  }
}
