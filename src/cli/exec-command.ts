import { parseToolCallBatch, ToolCallShapeError } from '../core/tool-call.js';
import { type GateOptions, openGate } from './open-gate.js';
import { readStdin } from './read-stdin.js';
import { UsageError } from './usage-error.js';

export type ExecOptions = GateOptions;

const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * `toolgate exec` (DESIGN §2.2): one JSON document on stdin → the JSON array of results on stdout,
 * in call order. Bad input is a UsageError (exit 2) and nothing runs.
 */
export async function runExec(
  options: ExecOptions,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  let text: string;
  if ((io.stdin as NodeJS.ReadStream).isTTY) {
    // Typed at a terminal, exec would otherwise wait in silence.
    io.stderr.write(
      'toolgate exec: reading tool calls as JSON from stdin; end with Ctrl-D (e.g. echo \'[{"id":"1","name":"list_directory","arguments":{"path":"."}}]\' | toolgate exec)\n',
    );
  }
  try {
    text = await readStdin(io.stdin, MAX_INPUT_BYTES);
  } catch (error) {
    throw new UsageError(`cannot read stdin: ${(error as Error).message}`);
  }
  if (text.trim() === '') {
    throw new UsageError(
      'stdin is empty; send a JSON array of tool calls, e.g. [{"id":"1","name":"read_file","arguments":{"path":"README.md"}}]',
    );
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

  const { gate, close } = await openGate(options);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  try {
    // TRACEPARENT: the batch joins the caller's trace (a CI job, a wrapping agent).
    const traceparent = process.env.TRACEPARENT;
    const results = await gate.execute(calls, {
      signal: controller.signal,
      ...(traceparent ? { traceparent } : {}),
    });
    await writeAll(io.stdout, `${JSON.stringify(results, null, 2)}\n`);
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    await close();
  }
}

/**
 * Writes the results, turning a closed or full output (`| head`, `> /dev/full`) into one clear line
 * instead of an unhandled stream error. Everything already ran and is in the journal either way.
 */
function writeAll(out: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(
        new UsageError(
          `could not write the results to stdout (${error.code ?? error.message}); they are in the journal (toolgate journal list)`,
        ),
      );
    };
    // Stays attached: a stream may report the same failure again after the write's callback.
    out.on('error', fail);
    out.write(text, (error) => {
      if (error) fail(error as NodeJS.ErrnoException);
      else if (!settled) {
        settled = true;
        resolve();
      }
    });
  });
}
