import type { EventLogger } from '../telemetry/event-log.js';
import { UsageError } from './usage-error.js';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * `--log-level` / `--log-file`: toolgate's structured log lines (pino, JSON, one per line) on
 * stderr, or appended to a file (created private). The default is `warn` on stderr: calls a policy
 * or the sandbox blocked, and mode changes; `info` adds every call and approval. pino is loaded
 * only when a log is wanted.
 */
export async function openLogger(
  options: { logLevel?: string; logFile?: string },
  quietByDefault = false,
): Promise<{ logger: EventLogger; close: () => void } | undefined> {
  const level = options.logLevel ?? 'warn';
  if (!(LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LEVELS.join(', ')} (got "${level}")`);
  // The terminal UI owns the screen: it logs only to a file, or when a level is asked for.
  if (level === 'silent' || (quietByDefault && !options.logFile && !options.logLevel)) return undefined;
  const pinoModule = await import('pino');
  const pino = ((pinoModule as { default?: unknown }).default ?? pinoModule) as typeof import('pino').default;
  const destination = pino.destination({
    dest: options.logFile ?? 2,
    sync: true, // every line is out before the process exits, whatever ends it
    mkdir: true,
    mode: 0o600,
  } as Parameters<typeof pino.destination>[0]);
  const logger = pino(
    { level, base: { service: 'toolgate' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
  return {
    logger,
    close: () => {
      try {
        destination.flushSync();
      } catch {
        // nothing buffered, or the file is gone: nothing more to write
      }
    },
  };
}
