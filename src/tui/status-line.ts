import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import type { ChatMode } from './chat-mode.js';
import { fitLine, type Segment } from './fit-line.js';

/** Who the chat talks to, shown on the status line as room allows. */
export interface ChatTitle {
  provider: string;
  model: string;
  session: string;
}

/** The keys that act in each mode (chat-app.tsx handles exactly these), most needed first. */
function keyHints(mode: ChatMode, scrollable: boolean): Segment[] {
  const scroll: Segment[] = scrollable
    ? [{ text: '↑/↓ scroll tool output', short: '↑/↓ scroll', priority: 2 }]
    : [];
  const help: Segment = { text: '/help keys and commands', short: '/help', priority: 9 };
  const cancel: Segment = { text: 'esc cancel the turn', short: 'esc cancel', priority: 10 };
  switch (mode) {
    case 'recovery':
      return [
        { text: 'r resume · d discard', priority: 10 },
        { text: 'ctrl+c quit', priority: 8 },
      ];
    case 'approval':
      return [
        { text: 'a/d/p/s/g answer (see above)', short: 'a/d/p/s/g', priority: 8 },
        {
          text: 'esc cancel the turn: nothing in the batch runs',
          short: 'esc cancel the turn',
          priority: 10,
        },
      ];
    case 'picking':
      return [
        { text: '↑/↓ move · space choose · enter run the chosen', short: 'space · enter', priority: 8 },
        { text: 'esc back', priority: 10 },
        { text: 'ctrl+c cancel the turn', short: 'ctrl+c cancel', priority: 7 },
      ];
    case 'results':
      return [
        { text: 'enter /tool <id> <result> for each call', short: '/tool <id> <result>', priority: 9 },
        cancel,
        { ...help, priority: 8 },
        ...scroll,
      ];
    case 'busy':
      return [cancel, ...scroll, help];
    case 'idle':
      return [
        { text: 'enter send', priority: 10 },
        ...scroll,
        help,
        { text: 'ctrl+c or /quit leave', short: 'ctrl+c quit', priority: 6 },
      ];
  }
}

/**
 * The status line: the title, then what the keys do in this mode, fitted into `columns` so it
 * never wraps (hints are shortened, then left out, least needed first; one column is kept free).
 */
export function statusLine(
  mode: ChatMode,
  columns: number,
  options: { title?: ChatTitle; scrollable: boolean; governance?: string },
): string {
  // The governance mode comes first and is never dropped: it says what may run at all.
  const governance: Segment[] = options.governance
    ? [{ text: `mode ${options.governance}`, priority: 11 }]
    : [];
  const title: Segment[] = options.title
    ? [
        { text: sanitizeForTerminal(options.title.provider), priority: 3, cut: true },
        { text: sanitizeForTerminal(options.title.model), priority: 5, cut: true },
        // An id is shown whole or not at all: a cut one could be copied for --session.
        { text: `session ${sanitizeForTerminal(options.title.session)}`, priority: 7 },
      ]
    : [];
  return fitLine([...governance, ...title, ...keyHints(mode, options.scrollable)], Math.max(1, columns - 1));
}
