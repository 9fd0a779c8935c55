import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedResponse {
  status?: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Bytes per write, so parsers see events split at odd places (default: whole body at once). */
  chunkSize?: number;
  /** Send the body, then keep the connection open without ending it (a stalled or crashing stream). */
  hang?: boolean;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface ReplayServer {
  url: string;
  requests: SeenRequest[];
  /** Resolves when the n-th request (1-based) has arrived. */
  nthRequest(n: number): Promise<SeenRequest>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers the n-th request with the n-th recorded body,
 * byte for byte, and records every request body for comparison with the recorded follow-ups.
 */
export async function startReplayServer(responses: readonly RecordedResponse[]): Promise<ReplayServer> {
  const requests: SeenRequest[] = [];
  const waiters: { n: number; resolve: (r: SeenRequest) => void }[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(seen);
      for (const w of waiters.filter((w) => w.n === requests.length)) w.resolve(seen);
      const answer = responses[requests.length - 1];
      if (!answer) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"no more recorded responses"}}');
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', ...answer.headers });
      const bytes = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body, 'utf8');
      const size = answer.chunkSize ?? bytes.length;
      open.add(res);
      res.on('close', () => open.delete(res));
      let offset = 0;
      const writeNext = () => {
        if (offset >= bytes.length) {
          if (!answer.hang) res.end();
          return;
        }
        res.write(bytes.subarray(offset, offset + size));
        offset += size;
        setImmediate(writeNext);
      };
      writeNext();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    nthRequest: (n) =>
      requests[n - 1]
        ? Promise.resolve(requests[n - 1] as SeenRequest)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The JSON body of the index-th request (0-based); a missing request fails the test here. */
export function requestBody(server: ReplayServer | undefined, index: number): unknown {
  const seen = server?.requests[index];
  if (!seen) throw new Error(`request ${index + 1} never arrived (${server?.requests.length ?? 0} did)`);
  return seen.body;
}
