import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { EventLogger } from '../telemetry/event-log.js';
import { logLineText } from './log-line-text.js';
import { UsageError } from './usage-error.js';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * `--log-level` / `--log-file`: toolgate's structured log lines (pino, JSON, one per line) on
 * stderr, or appended to a file (created private). The default is `warn` on stderr: calls a policy
 * or the sandbox blocked, and mode changes; `info` adds every call and approval. pino is loaded
 * only when a line is written (or a log file is asked for). When stderr is a terminal, a person
 * reads it: the lines are text there (issue #31 §3); files and pipes get the JSON.
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
  const threshold = LEVEL_VALUES[level as keyof typeof LEVEL_VALUES] ?? 0;
  const enabled = (at: string) => (LEVEL_VALUES[at as keyof typeof LEVEL_VALUES] ?? 0) >= threshold;
  if (!options.logFile && process.stderr.isTTY) {
    const write = (at: string, fields: object, message?: string) => {
      if (enabled(at)) writeSync(2, logLineText(at, fields, message, new Date())); // sync: out before any exit
    };
    return {
      logger: {
        isLevelEnabled: enabled,
        info: (fields, message) => write('info', fields, message),
        warn: (fields, message) => write('warn', fields, message),
      },
      close: () => {},
    };
  }
  const open = () => {
    const pino = loadPino();
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
    return { logger, destination };
  };
  // A file asked for is made at once (private, even while empty); on stderr, pino is loaded with
  // the first line: at the default level most runs write none, and loading it costs every start.
  let opened = options.logFile ? open() : undefined;
  const pinoLogger = () => {
    opened ??= open();
    return opened.logger;
  };
  const logger: EventLogger = {
    isLevelEnabled: enabled,
    info: (fields, message) => {
      if (enabled('info')) pinoLogger().info(fields, message);
    },
    warn: (fields, message) => {
      if (enabled('warn')) pinoLogger().warn(fields, message);
    },
  };
  return {
    logger,
    close: () => {
      try {
        opened?.destination.flushSync();
      } catch {
        // nothing buffered, or the file is gone: nothing more to write
      }
    },
  };
}

/** pino's numbers for the levels (a line goes out at or above the level set). */
const LEVEL_VALUES = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** pino, loaded synchronously where a line is written (it is CommonJS; the CLI bundle leaves it out). */
function loadPino(): typeof import('pino').default {
  const loaded = createRequire(import.meta.url)('pino') as { default?: unknown };
  return (loaded.default ?? loaded) as typeof import('pino').default;
}
