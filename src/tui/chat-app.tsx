import { Box, Static, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { alwaysLines, alwaysOffered, detailBlock, extraLines } from '../approval/request-text.js';
import type { ApprovalDecision, ConfirmationRequest } from '../core/confirmation.js';
import type { BatchRecord } from '../journal/journal.js';
import { oneLine } from '../output/one-line.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import type { Todo } from '../tools/todos/todo-store.js';
import type { CallView, ChatController, ChatState } from './chat-controller.js';
import { chatMode } from './chat-mode.js';
import { type ChatTitle, statusLine } from './status-line.js';
import { useColumns } from './use-columns.js';

const RISK_COLOR = { low: 'green', medium: 'yellow', high: 'red' } as const;
const MARK = { pending: '·', running: '…', ok: '✓', failed: '✗', skipped: '⊘' } as const;
const MARK_COLOR = {
  pending: 'gray',
  running: 'cyan',
  ok: 'green',
  failed: 'red',
  skipped: 'yellow',
} as const;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Rows of tool output on screen; the buffer holds the last 50 (FR-TUI-03). */
const OUTPUT_ROWS = 10;

function useSpinner(active: boolean): string {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setFrame((f) => (f + 1) % SPINNER.length), 80);
    return () => clearInterval(timer);
  }, [active]);
  return SPINNER[frame] as string;
}

/** FR-TUI-02: pending, executing (spinner), ✓ / ✗, ⊘ with the reason. */
function CallRow({ call, spinner }: { call: CallView; spinner: string }) {
  const mark = call.state === 'running' ? spinner : MARK[call.state];
  const color = MARK_COLOR[call.state];
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={color}>{mark}</Text> <Text bold>{call.name}</Text> <Text dimColor>{call.args}</Text>
      </Text>
      {call.reason ? <Text color={color}>{`    ${call.reason}`}</Text> : null}
    </Box>
  );
}

/** FR-TUI-01: every call to approve, its summary and risk; approve all, deny all, or pick. */
function ApprovalPrompt({
  requests,
  picking,
  cursor,
  chosen,
}: {
  requests: readonly ConfirmationRequest[];
  picking: boolean;
  cursor: number;
  chosen: ReadonlySet<string>;
}) {
  const { stdout } = useStdout();
  const columns = useColumns();
  // A prompt taller than the screen leaves its top in the scrollback: say so where the keys are
  // (hostile review of issue #30 §2), so nobody answers without having read it.
  const width = Math.max(columns - 4, 20);
  const rowsOf = (text: string) =>
    text.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil(Array.from(l).length / width)), 0);
  const height =
    3 +
    requests.reduce(
      (n, r) =>
        n +
        2 +
        rowsOf(r.summary) +
        (r.detail === undefined ? 0 : rowsOf(r.detail) + 1) +
        extraLines(r, '', () => '').length +
        alwaysLines(r, '', () => '', 'journal').length,
      0,
    );
  const above = height - Math.max((stdout.rows || 24) - 4, 1);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold color="yellow">
        Approval needed ({requests.length} call{requests.length === 1 ? '' : 's'})
      </Text>
      {requests.map((r, i) => (
        <Box key={r.callId} flexDirection="column">
          <Text inverse={picking && i === cursor}>
            {picking ? (chosen.has(r.callId) ? '[x] ' : '[ ] ') : `${i + 1}. `}
            <Text color={RISK_COLOR[r.risk]} bold>
              {r.risk.toUpperCase()}
            </Text>{' '}
            <Text bold>{r.toolName}</Text> {r.summary}
          </Text>
          <Text dimColor>{`     ${r.reason}${r.message ? ` — ${r.message}` : ''}`}</Text>
          {/* Exact and whole (issue #30 §1-2): the full text is never cut or hidden behind the summary. */}
          {[
            ...extraLines(r, '     ', (name) => `${name}: `),
            ...(r.detail !== undefined ? detailBlock(r.detail, '     ') : []),
          ].map((line, n) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of one fixed text, never reordered
            <Text key={n}>{sanitizeForTerminal(line)}</Text>
          ))}
          {alwaysLines(r, '     ', (name) => `${name}: `, 'journal').map((line) => (
            <Text key={line} dimColor>
              {sanitizeForTerminal(line)}
            </Text>
          ))}
        </Box>
      ))}
      {above > 0 ? (
        <Text color="yellow" bold>
          {`▲ about ${above} lines of this prompt are above the screen: scroll up and read them all before answering`}
        </Text>
      ) : null}
      <Text>
        {picking
          ? '↑/↓ move · space choose · enter run the chosen · esc back'
          : `[a] approve all · [d] deny all · [p] pick calls${requests.every(alwaysOffered) ? ' · [s] always allow (session) · [g] always allow (project)' : ''} · [esc] cancel the turn`}
      </Text>
    </Box>
  );
}

/** FR-RES-05: resume the interrupted batch with the results it has, or discard them. */
/** Todos on screen at most; `/todos` prints the whole list. */
const TODO_ROWS = 8;

/**
 * The session's todo list (write_todos) above the input: open ones first, so a long list shows
 * what is left; the count says how far along it is.
 */
function TodoPanel({ todos }: { todos: readonly Todo[] }) {
  const done = todos.filter((t) => t.completed).length;
  const ordered = [...todos.filter((t) => !t.completed), ...todos.filter((t) => t.completed)];
  const shown = ordered.slice(0, TODO_ROWS);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="green" paddingX={1}>
      <Text bold color="green">{`todos · ${done} of ${todos.length} done`}</Text>
      {shown.map((t) => (
        <Text key={t.id} wrap="truncate-end" {...(t.completed ? { dimColor: true } : {})}>
          {t.completed ? '☑ ' : '☐ '}
          {sanitizeForTerminal(oneLine(t.task, '⏎'))}
        </Text>
      ))}
      {ordered.length > shown.length ? (
        <Text dimColor>{`… ${ordered.length - shown.length} more (/todos lists them all)`}</Text>
      ) : null}
    </Box>
  );
}

function RecoveryPrompt({ batches }: { batches: readonly BatchRecord[] }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold color="magenta">
        An earlier run of this session was interrupted with an unfinished batch
      </Text>
      {batches.map((b) => (
        <Box key={b.id} flexDirection="column">
          <Text dimColor>{`batch ${b.id}`}</Text>
          {b.calls.map((c) => (
            <Text
              key={c.id}
            >{`  ${c.index + 1}. ${c.name} [${c.status}]${c.result ? (c.result.ok ? ' ok' : ` ${c.result.error?.type}`) : ''}`}</Text>
          ))}
        </Box>
      ))}
      <Text>[r] resume with the results it has · [d] discard its results (nothing is run again)</Text>
    </Box>
  );
}

export function ChatApp({ controller, title }: { controller: ChatController; title?: ChatTitle }) {
  const state: ChatState = useSyncExternalStore(
    (listener) => controller.subscribe(listener),
    () => controller.state,
  );
  const app = useApp();
  // The line is kept in a ref too: keys pasted or typed faster than a render must all count.
  const line = useRef('');
  const [input, setInputState] = useState('');
  const setInput = (next: string) => {
    line.current = next;
    setInputState(next);
  };
  // Kept in refs as well as state: a key pressed between a render and ink re-subscribing the input
  // handler reached the previous render's handler (a space right after `p` was lost on a loaded
  // machine). The handler reads these refs and the controller's state, never the render's copies.
  const [picking, setPickingState] = useState(false);
  const [cursor, setCursorState] = useState(0);
  const [chosen, setChosenState] = useState<ReadonlySet<string>>(new Set());
  const pickingRef = useRef(false);
  const cursorRef = useRef(0);
  const chosenRef = useRef<ReadonlySet<string>>(new Set());
  const setPicking = (next: boolean) => {
    pickingRef.current = next;
    setPickingState(next);
  };
  const setCursor = (next: (c: number) => number) => {
    cursorRef.current = next(cursorRef.current);
    setCursorState(cursorRef.current);
  };
  const setChosen = (next: (s: ReadonlySet<string>) => ReadonlySet<string>) => {
    chosenRef.current = next(chosenRef.current);
    setChosenState(chosenRef.current);
  };
  const [scroll, setScroll] = useState(0);
  const columns = useColumns();
  const mode = chatMode(state, picking);
  const running = state.calls.some((c) => c.state === 'running');
  const spinner = useSpinner(running || (state.busy && !state.approval && !state.pending));

  useEffect(() => {
    if (state.exit) app.exit();
  }, [state.exit, app]);
  useEffect(() => {
    if (!state.approval) {
      pickingRef.current = false;
      cursorRef.current = 0;
      chosenRef.current = new Set();
      setPickingState(false);
      setCursorState(0);
      setChosenState(chosenRef.current);
    }
  }, [state.approval]);
  // New output follows the tail unless the person scrolled up.
  const maxScroll = Math.max(0, state.output.length - OUTPUT_ROWS);
  const offset = Math.min(scroll, maxScroll);

  // Each mode's keys, exactly as the status line describes them (status-line.ts).
  useInput((text, key) => {
    const ctrlC = key.ctrl && text === 'c';
    const now = controller.state;
    const approval = now.approval;
    const cursor = cursorRef.current;
    const chosen = chosenRef.current;
    switch (chatMode(now, pickingRef.current)) {
      case 'recovery':
        if (text === 'r') controller.answerRecovery('resume');
        else if (text === 'd') controller.answerRecovery('discard');
        else if (ctrlC) app.exit();
        return;
      case 'picking':
        if (!approval) return;
        if (ctrlC) controller.cancel();
        else if (key.escape) setPicking(false);
        else if (key.upArrow) setCursor((c) => Math.max(0, c - 1));
        else if (key.downArrow) setCursor((c) => Math.min(approval.length - 1, c + 1));
        else if (text === ' ') {
          const id = approval[cursor]?.callId;
          if (id)
            setChosen((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set([...s, id])));
        } else if (key.return) controller.answerApproval({ kind: 'approve_selected', ids: [...chosen] });
        return;
      case 'approval': {
        const answer = (d: ApprovalDecision) => controller.answerApproval(d);
        // Esc withdraws the question and cancels the turn: nothing in the batch runs (fail closed).
        if (key.escape || ctrlC) controller.cancel();
        else if (text === 'a' || text === 'y') answer({ kind: 'approve_all' });
        else if (text === 'd' || text === 'n') answer({ kind: 'deny_all', reason: 'the user denied it' });
        // "always" only where every call has an offer (issue #30 §5); shown with what it covers.
        else if (text === 's' && (approval ?? []).every(alwaysOffered))
          answer({ kind: 'approve_all', remember: 'session' });
        else if (text === 'g' && (approval ?? []).every(alwaysOffered))
          answer({ kind: 'approve_all', remember: 'project' });
        else if (text === 'p') setPicking(true);
        return;
      }
      default:
        break;
    }
    if (key.escape || ctrlC) {
      if (!controller.cancel() && ctrlC) app.exit();
      return;
    }
    if (key.upArrow) {
      setScroll((s) => Math.min(maxScroll, s + 1));
      return;
    }
    if (key.downArrow) {
      setScroll((s) => Math.max(0, s - 1));
      return;
    }
    if (key.return) {
      controller.submit(line.current);
      setInput('');
      setScroll(0);
      return;
    }
    if (key.backspace || key.delete) {
      setInput(line.current.slice(0, -1));
      return;
    }
    if (!text || key.ctrl || key.meta) return;
    // A fast typist or a paste delivers several keys in one chunk: a line break inside it is Enter.
    const parts = text.split(/\r\n|\r|\n/);
    parts.forEach((part, i) => {
      if (i > 0) {
        controller.submit(line.current);
        setInput('');
        setScroll(0);
      }
      if (part) setInput(line.current + sanitizeForTerminal(part));
    });
  });

  const visible = state.output.slice(
    Math.max(0, state.output.length - OUTPUT_ROWS - offset),
    state.output.length - offset,
  );
  return (
    <Box flexDirection="column">
      <Static items={state.transcript.map((entry, i) => ({ ...entry, key: i }))}>
        {(entry) =>
          entry.kind === 'tool' ? (
            <Text key={entry.key}>
              <Text color={MARK_COLOR[entry.state ?? 'ok']}>{MARK[entry.state ?? 'ok']}</Text> {entry.text}
            </Text>
          ) : (
            <Text
              key={entry.key}
              color={{ user: 'cyan', assistant: undefined, notice: 'gray', error: 'red' }[entry.kind]}
            >
              {{ user: '› ', assistant: '', notice: '· ', error: '✗ ' }[entry.kind]}
              {entry.text}
            </Text>
          )
        }
      </Static>
      {state.streaming ? <Text>{sanitizeForTerminal(state.streaming)}</Text> : null}
      {state.calls.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          {state.calls.map((c) => (
            <CallRow key={c.id} call={c} spinner={spinner} />
          ))}
        </Box>
      ) : null}
      {visible.length > 0 ? (
        <Box flexDirection="column" borderStyle="single" borderColor="gray" paddingX={1}>
          {visible.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: output lines have no identity but their position
            <Text key={i} dimColor wrap="truncate-end">
              {line}
            </Text>
          ))}
          {offset > 0 ? <Text color="yellow">{`↑ scrolled ${offset} line(s) up · ↓ to follow`}</Text> : null}
        </Box>
      ) : null}
      {state.recovery ? <RecoveryPrompt batches={state.recovery} /> : null}
      {state.approval ? (
        <ApprovalPrompt requests={state.approval} picking={picking} cursor={cursor} chosen={chosen} />
      ) : null}
      {state.pending ? (
        <Box flexDirection="column" borderStyle="round" borderColor="blue" paddingX={1}>
          <Text bold color="blue">
            tools.mode is "parse_only": these calls wait for your results
          </Text>
          {state.pending.map((c) => (
            <Text key={c.id}>
              {state.supplied[c.id] !== undefined ? '✓ ' : '· '}
              <Text bold>{c.id}</Text> {c.name}{' '}
              <Text dimColor>{sanitizeForTerminal(c.arguments.slice(0, 120))}</Text>
            </Text>
          ))}
          <Text>Type /tool &lt;id&gt; &lt;result&gt; for each; the model continues when all have one.</Text>
        </Box>
      ) : null}
      {state.todos.length > 0 ? <TodoPanel todos={state.todos} /> : null}
      <Box marginTop={1}>
        <Text color="cyan">{state.busy && !state.pending ? `${spinner} ` : '› '}</Text>
        <Text>{input}</Text>
        <Text inverse> </Text>
      </Box>
      <Text dimColor wrap="truncate-end">
        {statusLine(mode, columns, {
          scrollable: state.output.length > OUTPUT_ROWS,
          governance: state.governance,
          ...(title ? { title } : {}),
        })}
      </Text>
    </Box>
  );
}
