import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { asciiProgressLine } from './ascii-progress.js';

/** The SDK's stdio transport, writing marked progress notifications by the fast path. */
export class FastStdioServerTransport extends StdioServerTransport {
  readonly #stdout: NodeJS.WritableStream;

  constructor(stdin: NodeJS.ReadableStream = process.stdin, stdout: NodeJS.WritableStream = process.stdout) {
    super(stdin as typeof process.stdin, stdout as typeof process.stdout);
    this.#stdout = stdout;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const line = asciiProgressLine(message);
    if (line === undefined) return super.send(message);
    return new Promise((resolve) => {
      // One byte per character: Latin-1 encoding is a copy, with no UTF-8 work.
      if (this.#stdout.write(Buffer.from(line, 'latin1'))) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }
}
