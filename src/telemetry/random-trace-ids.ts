import { randomBytes } from 'node:crypto';

/**
 * A random W3C id of `bytes` bytes as lowercase hex, never all zeros (the spec's invalid id):
 * 16 bytes for a trace id, 8 for a span id. For log lines when no OpenTelemetry SDK makes them.
 */
export function randomTraceId(bytes: 16 | 8 = 16): string {
  for (;;) {
    const id = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(id)) return id;
  }
}

export function randomSpanId(): string {
  return randomTraceId(8);
}
