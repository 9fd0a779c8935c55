import type { ChatState } from './chat-controller.js';

/**
 * What the keys act on right now, most urgent first: the recovery question, the approval prompt
 * (or picking calls in it), parse-only results awaited, a running turn, or nothing (idle). The
 * view's key handling and the status line both follow this, so the line says what the keys do.
 */
export type ChatMode = 'recovery' | 'approval' | 'picking' | 'results' | 'busy' | 'idle';

export function chatMode(state: ChatState, picking: boolean): ChatMode {
  if (state.recovery) return 'recovery';
  if (state.approval) return picking ? 'picking' : 'approval';
  if (state.pending) return 'results';
  if (state.busy) return 'busy';
  return 'idle';
}
