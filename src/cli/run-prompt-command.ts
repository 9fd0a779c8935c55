import type { LoopEvent } from '../core/loop-event.js';
import { holderOf } from '../journal/batch-holder.js';
import { loadConversation } from '../loop/load-conversation.js';
import { runTurn } from '../loop/run-turn.js';
import { turnToJson } from '../loop/turn-json.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { type GateOptions, openGate } from './open-gate.js';
import { type ProviderFlags, parseMaxIterations, providerTurn } from './provider-options.js';
import { UsageError } from './usage-error.js';

export interface RunOptions extends GateOptions, ProviderFlags {
  json?: boolean;
  verbose?: boolean;
}

/** `--verbose`: one line per tool call and per result on stderr, sanitized, as the turn runs. */
function progressPrinter(stderr: NodeJS.WritableStream) {
  return (event: LoopEvent) => {
    if (event.type === 'assistant') {
      for (const c of event.message.toolCalls) {
        stderr.write(`${sanitizeForTerminal(`→ ${c.name} ${c.arguments.slice(0, 200)}`)}\n`);
      }
    } else if (event.type === 'results') {
      for (const r of event.message.results) {
        const line = r.ok ? `✓ ${r.name}` : `✗ ${r.name}: ${r.error?.message ?? 'failed'}`;
        stderr.write(`${sanitizeForTerminal(line.slice(0, 300))}\n`);
      }
    } else if (event.type === 'retry') {
      stderr.write(`${sanitizeForTerminal(`retrying (${event.attempt}): ${event.reason}`)}\n`);
    }
  };
}

/**
 * `toolgate run "PROMPT"` (issue #7): one user turn, non-interactive. Prints the final assistant
 * text (or, with --json, the whole turn as messages). Exit 0 when the turn finished, 1 when the
 * provider or the loop failed (message on stderr), 2 on bad usage.
 */
export async function runPrompt(
  prompt: string,
  options: RunOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  if (prompt.trim() === '')
    throw new UsageError('the prompt is empty; pass the text to send, e.g. toolgate run "list the files"');
  parseMaxIterations(options.maxIterations); // bad usage is refused before anything opens
  const { gate, setup, journal, close } = await openGate(options);
  try {
    const { turn } = providerTurn(options, setup.config);
    // FR-RES-05: a batch this session left unfinished (a crash) is settled by a person first.
    const unfinished =
      journal?.incompleteBatches().filter((b) => b.session === gate.session && holderOf(b).kind === 'free') ??
      [];
    if (unfinished.length > 0) {
      io.stderr.write(
        unfinished
          .map(
            (b) =>
              `toolgate: session ${gate.session} has an unfinished batch ${b.id} from an interrupted run; settle it first with \`toolgate recover --resume ${b.id}\` (keep the results it has) or \`toolgate recover --discard ${b.id}\`\n`,
          )
          .join(''),
      );
      return 1;
    }
    const history = journal ? loadConversation(journal, gate.session) : [];
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.once('SIGHUP', onSignal);
    try {
      const outcome = await runTurn({
        ...turn,
        gate,
        history,
        prompt,
        signal: controller.signal,
        ...(options.verbose ? { onEvent: progressPrinter(io.stderr) } : {}),
        // TRACEPARENT: the turn joins the caller's trace.
        ...(process.env.TRACEPARENT ? { traceparent: process.env.TRACEPARENT } : {}),
      });
      if (options.json) io.stdout.write(`${JSON.stringify(turnToJson(outcome.messages), null, 2)}\n`);
      else if (outcome.status === 'awaiting_results') {
        const lines = (outcome.pending ?? []).map((c) => `  ${c.id}  ${c.name} ${c.arguments}`);
        io.stdout.write(
          sanitizeForTerminal(
            `${outcome.text ? `${outcome.text}\n` : ''}tools.mode is "parse_only"; these calls wait for your results:\n${lines.join('\n')}\n`,
          ),
        );
      } else if (outcome.text) io.stdout.write(`${sanitizeForTerminal(outcome.text)}\n`);
      if (outcome.status === 'done' || outcome.status === 'awaiting_results') return 0;
      io.stderr.write(
        `toolgate: ${sanitizeForTerminal(outcome.status === 'cancelled' ? 'cancelled' : (outcome.error ?? outcome.status))}\n`,
      );
      return 1;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
    }
  } finally {
    await close();
  }
}
