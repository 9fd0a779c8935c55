import type { ToolContext, ToolOutput } from '../../core/tool-definition.js';
import { ToolError } from '../../core/tool-error.js';
import { truncateOutput } from '../../output/truncate-output.js';
import { HeadTailBuffer } from './output-buffer.js';
import { OutputEvents } from './output-events.js';

/**
 * A foreground command's output as it arrives: the start and end of each stream kept in constant
 * memory, and streamed to whoever listens. While the listener is behind, `pause` stops reading
 * (the command waits on its full pipe) until it catches up; once the command is being stopped,
 * reading goes on whatever the listener does, so the end of its output comes.
 */
export class CommandOutput {
  readonly stdout: HeadTailBuffer;
  readonly stderr: HeadTailBuffer;
  readonly #events: OutputEvents | undefined;

  constructor(
    ctx: Pick<ToolContext, 'streaming' | 'emit'>,
    keepBytes: number,
    flow: { pause(): void; resume(): void },
  ) {
    this.stdout = new HeadTailBuffer(keepBytes, keepBytes);
    this.stderr = new HeadTailBuffer(keepBytes, keepBytes);
    let behind = 0;
    const caughtUp = () => {
      if (--behind === 0) flow.resume();
    };
    this.#events = ctx.streaming
      ? new OutputEvents({
          emit: (stream, bytes) => ctx.emit(stream, bytes),
          onBehind: (wait) => {
            if (behind++ === 0) flow.pause();
            wait.then(caughtUp, caughtUp);
          },
        })
      : undefined;
  }

  // Chunks are views into a reused read buffer: everything here copies what it keeps.
  readonly out = (chunk: Uint8Array): void => {
    this.stdout.push(chunk);
    this.#events?.push('stdout', chunk);
  };

  readonly err = (chunk: Uint8Array): void => {
    this.stderr.push(chunk);
    this.#events?.push('stderr', chunk);
  };

  end(stream: 'stdout' | 'stderr'): void {
    this.#events?.end(stream);
  }

  flush(): void {
    this.#events?.flush();
  }

  /**
   * The call's result: stdout, then `[stderr]` and stderr, within the output limit; a timeout, a
   * cancel or a non-zero exit is a ToolError that still carries the output. `note` is added last.
   */
  result(
    end: {
      code: number | null;
      signal: NodeJS.Signals | null;
      stopReason?: 'timeout' | 'cancel' | undefined;
      timeoutMs: number;
      note?: string | undefined;
    },
    outputLimit: number,
    metadata: Record<string, unknown> = {},
  ): ToolOutput {
    this.flush();
    const { stdout, stderr } = this;
    const output = stdout.text() + (stderr.total > 0 ? `\n\n[stderr]\n${stderr.text()}` : '');
    const body = truncateOutput(end.note ? `${output}\n\n${end.note}` : output, outputLimit).text;
    if (end.stopReason === 'timeout') {
      throw new ToolError(
        'Timeout',
        `the command ran longer than ${end.timeoutMs} ms and was stopped (its whole process group)\n${body}`,
      );
    }
    if (end.stopReason === 'cancel')
      throw new ToolError('Cancelled', `cancelled; the command's process group was stopped\n${body}`);
    if (end.code !== 0) {
      const why = end.code === null ? `killed by ${end.signal ?? 'a signal'}` : `exit code ${end.code}`;
      throw new ToolError('ExecutionFailed', `${why}\n${body}`, {
        exitCode: end.code,
        signal: end.signal,
        ...metadata,
      });
    }
    return {
      content: body,
      display: `exit 0, ${stdout.total} bytes out${stderr.total ? `, ${stderr.total} bytes err` : ''}`,
      metadata: {
        exitCode: 0,
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        omitted: stdout.dropped + stderr.dropped,
        ...metadata,
      },
    };
  }
}
