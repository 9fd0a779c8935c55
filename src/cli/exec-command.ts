import { type Approver, approveAll, denyAll } from '../core/confirmation.js';
import { parseToolCallBatch, ToolCallShapeError } from '../core/tool-call.js';
import { createToolgate } from '../toolgate.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { readStdin } from './read-stdin.js';
import { resolveSetup } from './resolve-setup.js';
import { openTerminal, terminalApprover } from './tty-approver.js';
import { UsageError } from './usage-error.js';

export interface ExecOptions {
  root?: string[];
  config?: string;
  approve?: string;
  session?: string;
  journal?: string | boolean;
}

const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * `toolgate exec` (DESIGN §2.2): one JSON document on stdin → the JSON array of results on stdout,
 * in call order. Bad input is a UsageError (exit 2) and nothing runs.
 */
export async function runExec(
  options: ExecOptions,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const approve = options.approve ?? (process.stderr.isTTY ? 'ask' : 'none');
  if (!['ask', 'all', 'none'].includes(approve)) {
    throw new UsageError(`--approve must be ask, all or none (got "${approve}")`);
  }
  const setup = resolveSetup(options);
  let text: string;
  try {
    text = await readStdin(io.stdin, MAX_INPUT_BYTES);
  } catch (error) {
    throw new UsageError(`cannot read stdin: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `stdin is not valid JSON (${(error as Error).message}); send an array of tool calls`,
    );
  }
  let calls: ReturnType<typeof parseToolCallBatch>;
  try {
    calls = parseToolCallBatch(document);
  } catch (error) {
    if (error instanceof ToolCallShapeError)
      throw new UsageError(`stdin is not a batch of tool calls: ${error.message}`);
    throw error;
  }

  let approver: Approver = denyAll;
  let closeTerminal = () => {};
  if (approve === 'all') approver = approveAll;
  if (approve === 'ask') {
    const terminal = openTerminal();
    if (terminal) {
      approver = terminalApprover(terminal);
      closeTerminal = () => {
        terminal.input.destroy();
        terminal.output.destroy();
      };
    }
  }
  // The journal is opened before anything runs; if it cannot be, nothing runs.
  const journal =
    options.journal === false
      ? undefined
      : openJournalOrStop(
          journalPath(setup, typeof options.journal === 'string' ? options.journal : undefined),
        );
  const gate = createToolgate({
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    approver,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
    ...(journal ? { journal } : {}),
    ...(options.session ? { session: options.session } : {}),
  });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const results = await gate.execute(calls, { signal: controller.signal });
    io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    closeTerminal();
    journal?.close();
  }
}
