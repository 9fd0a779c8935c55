import type { EventLogger } from '../../src/telemetry/event-log.js';

/** A logger that keeps what it is given, as pino would serialize it. */
export function recorder() {
  const lines: Record<string, unknown>[] = [];
  const logger: EventLogger = {
    info: (fields) => lines.push({ level: 'info', ...fields }),
    warn: (fields) => lines.push({ level: 'warn', ...fields }),
  };
  return { lines, logger };
}
