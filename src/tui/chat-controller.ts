import { EventEmitter } from 'node:events';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import type { AssistantToolCall, ConversationMessage } from '../core/conversation.js';
import type { LoopEvent } from '../core/loop-event.js';
import type { ToolResult } from '../core/tool-result.js';
import { holderOf } from '../journal/batch-holder.js';
import type { BatchRecord } from '../journal/journal.js';
import { runTurn, type TurnOptions } from '../loop/run-turn.js';
import { oneLine } from '../output/one-line.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import type { Toolgate } from '../toolgate.js';
import type { Todo } from '../tools/todos/todo-store.js';
import { helpText, parseLine, unknownCommand } from './slash-commands.js';

/** FR-TUI-02: a call's state as drawn. */
export type CallState = 'pending' | 'running' | 'ok' | 'failed' | 'skipped';

export interface CallView {
  id: string;
  name: string;
  args: string;
  state: CallState;
  /** Why a call failed or was not run (denied, invalid, pre-resolved). */
  reason?: string;
}

export interface TranscriptEntry {
  kind: 'user' | 'assistant' | 'notice' | 'error' | 'tool';
  text: string;
  /** For `tool` entries: how the call ended. */
  state?: CallState;
}

export interface ChatState {
  transcript: TranscriptEntry[];
  /** The assistant text arriving now. */
  streaming: string;
  busy: boolean;
  calls: CallView[];
  /** FR-TUI-03: the last 50 lines of tool output, sanitized. */
  output: string[];
  approval: readonly ConfirmationRequest[] | undefined;
  recovery: readonly BatchRecord[] | undefined;
  /** FR-TUI-04: parse-only calls waiting for `/tool <id> <result>`. */
  pending: readonly AssistantToolCall[] | undefined;
  supplied: Readonly<Record<string, string>>;
  /** The session's todo list (write_todos), as it stands after the last batch. */
  todos: readonly Todo[];
  /** The governance mode in force (`toolgate mode set` from anywhere changes it). */
  governance: string;
  exit: boolean;
}

export const OUTPUT_LINES = 50;

/** The model settings of a chat; the controller supplies the rest of each turn itself. */
export type ChatTurnSettings = Omit<
  TurnOptions,
  'gate' | 'history' | 'prompt' | 'signal' | 'onEvent' | 'approver' | 'supplyResults'
>;
const clean = (text: string) => sanitizeForTerminal(text);

/** `/todos`: every todo of the session, done or not, with its id. */
export function todoText(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'no todos in this session (the model keeps them with write_todos)';
  const done = todos.filter((t) => t.completed).length;
  return [
    `todos: ${done} of ${todos.length} done`,
    ...todos.map((t) => `  ${t.completed ? '[x]' : '[ ]'} ${t.id}: ${clean(oneLine(t.task, '⏎'))}`),
  ].join('\n');
}

/** One line: how many batches of other sessions are unfinished, and the command for them. */
function othersNotice(count: number, command: string): string {
  const what =
    count === 1
      ? '1 unfinished batch of another session waits'
      : `${count} unfinished batches of other sessions wait`;
  return `${what} in the journal: see \`${command}\``;
}

/**
 * The chat's state and actions, apart from how they are drawn: runs turns with runTurn, turns loop
 * events into what the screen shows, and holds the questions put to the person (approval,
 * recovery, parse-only results). The view subscribes; nothing polls.
 */
export class ChatController {
  readonly #events = new EventEmitter();
  #state: ChatState = {
    transcript: [],
    streaming: '',
    busy: false,
    calls: [],
    output: [],
    approval: undefined,
    recovery: undefined,
    pending: undefined,
    supplied: {},
    todos: [],
    governance: 'NORMAL',
    exit: false,
  };
  #history: ConversationMessage[];
  #turn: AbortController | undefined;
  /** The running turn, so a stop can wait for it to settle (its batch journaled as ended). */
  #running: Promise<void> | undefined;
  #approvalAnswer: ((d: ApprovalDecision) => void) | undefined;
  #resultsAnswer: ((r: ToolResult[] | undefined) => void) | undefined;
  #partialLine = '';
  #lines: string[] = [];
  readonly #gate: Toolgate;
  readonly #turnOptions: ChatTurnSettings;

  constructor(options: {
    gate: Toolgate;
    turn: ChatTurnSettings;
    history?: ConversationMessage[];
    /** How the person settles other sessions' unfinished batches (default `toolgate recover`). */
    recoverCommand?: string;
  }) {
    this.#gate = options.gate;
    this.#turnOptions = options.turn;
    // A continued session's list; the mode in force.
    this.#state = { ...this.#state, todos: options.gate.todos(), governance: options.gate.refreshMode() };
    this.#history = [...(options.history ?? [])];
    // A continued session (--session) shows what was said before, then the new turns.
    const earlier: TranscriptEntry[] = [];
    for (const m of this.#history) {
      if (m.role === 'user') earlier.push({ kind: 'user', text: clean(m.text) });
      else if (m.role === 'assistant' && m.text) earlier.push({ kind: 'assistant', text: clean(m.text) });
    }
    if (earlier.length > 0) {
      this.#state = {
        ...this.#state,
        transcript: [
          ...earlier,
          { kind: 'notice', text: `(continuing: ${earlier.length} earlier message(s) above)` },
        ],
      };
    }
    // FR-RES-05: a batch this session left unfinished (a crash, a closed terminal) is put to the
    // person before anything else: the conversation cannot go on without its results. Another
    // session's is not this chat's to settle (it may even be open in another chat right now), so a
    // new chat starts at once and only says where to deal with them.
    // Batches of a toolgate still running elsewhere are waiting there, not interrupted.
    const unfinished = (options.gate.journal?.incompleteBatches() ?? []).filter(
      (b) => holderOf(b).kind === 'free',
    );
    const mine = unfinished.filter((b) => b.session === options.gate.session);
    const others = unfinished.length - mine.length;
    if (others > 0) this.#note(othersNotice(others, options.recoverCommand ?? 'toolgate recover'));
    if (mine.length > 0) this.#set({ recovery: mine });
  }

  get state(): ChatState {
    return this.#state;
  }

  subscribe(listener: (state: ChatState) => void): () => void {
    this.#events.on('change', listener);
    return () => this.#events.off('change', listener);
  }

  /** The approver the pipeline calls: the question stays on screen until answered or cancelled. */
  readonly approver: Approver = (requests, signal) =>
    new Promise<ApprovalDecision>((resolve) => {
      const done = (d: ApprovalDecision) => {
        this.#approvalAnswer = undefined;
        this.#set({ approval: undefined });
        resolve(d);
      };
      signal.addEventListener(
        'abort',
        () => done({ kind: 'deny_all', reason: 'the question was cancelled' }),
        { once: true },
      );
      this.#approvalAnswer = done;
      this.#set({ approval: requests });
    });

  answerApproval(decision: ApprovalDecision): void {
    this.#approvalAnswer?.(decision);
  }

  answerRecovery(choice: 'resume' | 'discard'): void {
    const journal = this.#gate.journal;
    const batches = this.#state.recovery ?? [];
    if (!journal) return;
    for (const batch of batches) {
      if (choice === 'resume') journal.resumeBatch(batch.id);
      else journal.discardBatch(batch.id);
    }
    this.#note(
      choice === 'resume'
        ? `resumed ${batches.length} unfinished batch(es) with the results they had; nothing was run again`
        : `discarded the results of ${batches.length} unfinished batch(es); the calls stay visible`,
    );
    this.#set({ recovery: undefined });
  }

  /**
   * Enter: a message for the model, or a slash command, which is local and never sent:
   * `/help`, `/tool <id> <result>`, `/quit` (`/exit`); an unknown one is refused with the list.
   */
  submit(line: string): void {
    const text = line.trim();
    if (!text || this.#state.recovery) return;
    const parsed = parseLine(text);
    if (parsed.kind === 'unknown') {
      this.#note(unknownCommand(clean(parsed.word)));
      return;
    }
    if (parsed.kind === 'command') {
      if (parsed.name === 'quit') {
        this.#turn?.abort();
        this.#set({ exit: true });
      } else if (parsed.name === 'help') this.#note(helpText());
      else if (parsed.name === 'todos') this.#note(todoText(this.#gate.todos()));
      else this.#supply(parsed.args);
      return;
    }
    if (this.#state.busy) {
      this.#note('a turn is running: wait for it, or press Esc to cancel it');
      return;
    }
    this.#set({ governance: this.#gate.refreshMode() }); // set elsewhere since the last batch
    const running = this.#runTurn(parsed.text);
    this.#running = running;
    void running.finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
  }

  /**
   * Esc / Ctrl+C while a turn runs: cancel it; nothing is resumed (seed 000 §8.2). At an approval
   * prompt the question is withdrawn: the whole batch is denied or cancelled, none of it runs.
   */
  cancel(): boolean {
    if (!this.#turn) return false;
    this.#turn.abort();
    this.#resultsAnswer?.(undefined);
    return true;
  }

  /**
   * Cancels the running turn, if any, and resolves once it has settled: an unanswered approval is
   * denied and the batch is journaled as ended, so nothing is left for recovery (the terminal
   * closing, SIGTERM, leaving the chat).
   */
  async stop(): Promise<void> {
    this.cancel();
    await this.#running;
  }

  /** `/tool <id> <result>` (its arguments here): a parse-only call's result from the person. */
  #supply(args: string): void {
    const m = /^(\S+)\s+([\s\S]+)$/.exec(args);
    const pending = this.#state.pending;
    if (!m || !pending) {
      this.#note(pending ? 'usage: /tool <id> <result>' : 'no tool call is waiting for a result');
      return;
    }
    const [, id, result] = m as unknown as [string, string, string];
    if (!pending.some((c) => c.id === id)) {
      this.#note(`no pending call with id ${id}; waiting: ${pending.map((c) => c.id).join(', ')}`);
      return;
    }
    const supplied = { ...this.#state.supplied, [id]: result };
    this.#set({ supplied });
    if (pending.every((c) => supplied[c.id] !== undefined)) {
      const results: ToolResult[] = pending.map((c) => ({
        id: c.id,
        name: c.name,
        ok: true,
        content: supplied[c.id] as string,
        error: null,
        latencyMs: 0,
      }));
      this.#set({ pending: undefined, supplied: {} });
      this.#resultsAnswer?.(results);
    }
  }

  async #runTurn(prompt: string): Promise<void> {
    const controller = new AbortController();
    this.#turn = controller;
    this.#partialLine = '';
    this.#lines = [];
    this.#set({
      busy: true,
      transcript: [...this.#state.transcript, { kind: 'user', text: clean(prompt) }],
      calls: [],
      output: [],
    });
    try {
      const outcome = await runTurn({
        ...this.#turnOptions,
        gate: this.#gate,
        history: this.#history,
        prompt,
        signal: controller.signal,
        approver: this.approver,
        onEvent: (e) => this.#onEvent(e),
        supplyResults: (calls) =>
          new Promise((resolve) => {
            this.#resultsAnswer = (r) => {
              this.#resultsAnswer = undefined;
              resolve(r);
            };
            this.#set({ pending: calls, supplied: {} });
          }),
      });
      this.#history = [...this.#history, ...outcome.messages];
      this.#settleCalls(); // how the last batch ended, then why the turn stopped
      if (outcome.status === 'cancelled') this.#note('cancelled; nothing more was run or sent');
      else if (outcome.status !== 'done')
        this.#set({
          transcript: [
            ...this.#state.transcript,
            { kind: 'error', text: clean(outcome.error ?? outcome.status) },
          ],
        });
    } catch (error) {
      this.#set({
        transcript: [
          ...this.#state.transcript,
          { kind: 'error', text: clean(`internal error: ${(error as Error).message}`) },
        ],
      });
    } finally {
      this.#turn = undefined;
      this.#settleCalls();
      this.#set({ busy: false, streaming: '', pending: undefined, approval: undefined });
    }
  }

  #onEvent(event: LoopEvent): void {
    switch (event.type) {
      case 'stream':
        if (event.event.type === 'text_delta')
          this.#set({ streaming: this.#state.streaming + event.event.text });
        break;
      case 'assistant': {
        const { message } = event;
        this.#settleCalls();
        const transcript = message.text
          ? [...this.#state.transcript, { kind: 'assistant' as const, text: clean(message.text) }]
          : this.#state.transcript;
        const calls = message.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          args: clean(c.arguments.slice(0, 120)),
          state: 'pending' as const,
        }));
        // The last batch's output stays up (scrollable) until the next batch starts.
        if (calls.length === 0) {
          this.#set({ transcript, streaming: '', calls });
          break;
        }
        this.#set({ transcript, streaming: '', calls, output: [] });
        this.#partialLine = '';
        this.#lines = [];
        break;
      }
      case 'tool': {
        const e = event.event;
        if (e.type === 'started') this.#setCall(e.callId, { state: 'running' });
        else if (e.type === 'completed') this.#setCall(e.callId, { state: e.ok ? 'ok' : 'failed' });
        else this.#appendOutput(e.chunk);
        break;
      }
      case 'results':
        // write_todos may have changed the list: the panel shows it as the store now has it.
        if (event.message.results.length > 0)
          this.#set({ todos: this.#gate.todos(), governance: this.#gate.refreshMode() });
        for (const r of event.message.results) {
          const view = this.#state.calls.find((c) => c.id === r.id);
          if (!view) continue;
          if (view.state === 'pending')
            this.#setCall(r.id, {
              state: r.ok ? 'ok' : 'skipped',
              ...(r.error ? { reason: clean(reasonForPerson(r)) } : {}),
            });
          else if (!r.ok && r.error) this.#setCall(r.id, { state: 'failed', reason: clean(r.error.message) });
        }
        break;
      default:
        break;
    }
  }

  #appendOutput(chunk: string): void {
    const lines = (this.#partialLine + clean(chunk)).split('\n');
    this.#partialLine = lines.pop() ?? '';
    this.#lines = [...this.#lines, ...lines].slice(-OUTPUT_LINES);
    const output = this.#partialLine ? [...this.#lines, this.#partialLine] : this.#lines;
    this.#set({ output: output.slice(-OUTPUT_LINES) });
  }

  /** A finished batch moves into the transcript, each call with how it ended (FR-TUI-02). */
  #settleCalls(): void {
    const calls = this.#state.calls;
    if (calls.length === 0) return;
    const entries: TranscriptEntry[] = calls.map((c) => ({
      kind: 'tool',
      state: c.state,
      text: `${c.name} ${c.args}${c.reason ? ` — ${c.reason}` : ''}`,
    }));
    this.#set({ transcript: [...this.#state.transcript, ...entries], calls: [] });
  }

  #setCall(id: string, patch: Partial<CallView>): void {
    this.#set({ calls: this.#state.calls.map((c) => (c.id === id ? { ...c, ...patch } : c)) });
  }

  #note(text: string): void {
    this.#set({ transcript: [...this.#state.transcript, { kind: 'notice', text }] });
  }

  #set(patch: Partial<ChatState>): void {
    this.#state = { ...this.#state, ...patch };
    this.#events.emit('change', this.#state);
  }
}

/**
 * A call the person did not approve: what they did ("denied: the user denied it"). The result's
 * message leads with the config line for the model (issue #31 §1); the person who answered needs
 * that less than the why, and the panel has one line.
 */
function reasonForPerson(r: ToolResult): string {
  const denial = (r.metadata as { denial?: { kind?: unknown; reason?: unknown } } | undefined)?.denial;
  if (denial?.kind === 'not_approved' && typeof denial.reason === 'string') return `denied: ${denial.reason}`;
  return r.error?.message ?? '';
}
