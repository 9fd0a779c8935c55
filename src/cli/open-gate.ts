import { remoteApprover } from '../approval/remote-approver.js';
import { type Approver, approveAll, denyWith } from '../core/confirmation.js';
import type { Journal } from '../journal/journal.js';
import { createToolgate, type Toolgate } from '../toolgate.js';
import { switchedOffTools } from '../tools/builtin-tools.js';
import { checkToolNames } from './check-tool-names.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { openLogger } from './open-logger.js';
import { remoteWaitNotice } from './remote-wait-notice.js';
import { resolveSetup, type Setup } from './resolve-setup.js';
import { openTerminal, terminalApprover } from './tty-approver.js';
import { trustCommand } from './untrusted-notice.js';
import { UsageError } from './usage-error.js';
import { CLI_VERSION } from './version.js';

export interface GateOptions {
  root?: string[];
  config?: string;
  approve?: string;
  session?: string;
  journal?: string | boolean;
  /** Whose memory (`--user`). */
  user?: string;
  /** `--otlp URL`: export traces and metrics to this OTLP/HTTP collector. */
  otlp?: string;
  /** `--log-level`, `--log-file`: structured log lines (open-logger.ts). */
  logLevel?: string;
  logFile?: string;
  /** The command draws on the terminal (chat): it logs to stderr only when a level is asked for. */
  ownsScreen?: boolean;
}

export interface OpenGate {
  gate: Toolgate;
  setup: Setup;
  journal: Journal | undefined;
  /** Releases the terminal, the tools' helpers and the journal. */
  close(): Promise<void>;
}

/**
 * `--approve`: ask on the terminal (denied when there is none), all, or none. `close` releases
 * the terminal once the command is done.
 */
export function approverFor(approve: string, journal?: Journal): { approver: Approver; close: () => void } {
  if (approve === 'all') return { approver: approveAll, close: () => {} };
  if (approve === 'remote') {
    if (!journal)
      throw new UsageError(
        '--approve remote waits for answers given in the journal (toolgate approvals), and there is none: drop --no-journal',
      );
    const notice = remoteWaitNotice(journal, (text) => process.stderr.write(text));
    return { approver: remoteApprover(journal, notice), close: () => {} };
  }
  if (approve === 'none') {
    return {
      approver: denyWith(
        'nobody was asked: --approve none (the default when not at a terminal) denies every confirmation; run at a terminal to be asked, or pass --approve all',
      ),
      close: () => {},
    };
  }
  if (approve !== 'ask')
    throw new UsageError(`--approve must be ask, all, none or remote (got "${approve}")`);
  const terminal = openTerminal();
  if (!terminal) {
    return {
      approver: denyWith('nobody was asked: --approve ask needs a terminal and there is none'),
      close: () => {},
    };
  }
  return {
    approver: terminalApprover(terminal),
    close: () => {
      terminal.input.destroy();
      terminal.output.destroy();
    },
  };
}

/**
 * The set-up `exec` and `run` share: config and roots, the approver from `--approve` (ask on the
 * terminal, all, none; default ask on a TTY and none otherwise, so nobody answering is a denial),
 * and the journal, opened before anything runs (if it cannot be, nothing runs).
 */
export async function openGate(options: GateOptions): Promise<OpenGate> {
  const setup = resolveSetup(options);
  // Telemetry first, so the SDK is registered before the tools make their instruments.
  const endpoint = options.otlp ?? setup.config.telemetry.otlp_endpoint;
  const stopTelemetry = endpoint
    ? await (await import('./start-telemetry.js')).startTelemetry(endpoint, CLI_VERSION)
    : undefined;
  const log = await openLogger(options, options.ownsScreen === true);
  const journal =
    options.journal === false
      ? undefined
      : openJournalOrStop(
          journalPath(setup, typeof options.journal === 'string' ? options.journal : undefined),
        );
  // [journal] retain_days: what is older goes as the journal is opened (opt-in; never open batches).
  const retain = setup.config.journal.retain_days;
  // At most 2,000 batches per start: a first start on a big journal stays quick; the rest go later.
  if (journal && retain !== undefined) journal.prune(Date.now() - retain * 24 * 60 * 60 * 1000, 2_000);
  // The terminal is opened last, once nothing before it can fail and leave it open.
  const { approver, close: closeTerminal } = approverFor(
    options.approve ?? (process.stderr.isTTY ? 'ask' : 'none'),
    journal,
  );
  const gate = createToolgate({
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    approver,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
    ...(setup.configFile && (setup.trust.state === 'untrusted' || setup.trust.state === 'changed')
      ? {
          configNote: `(then run \`${trustCommand(setup.configFile, setup.baseDir)}\`: until it is trusted, only its settings that make the policy stricter apply)`,
        }
      : {}),
    ...(journal ? { journal } : {}),
    ...(options.session ? { session: options.session } : {}),
    ...(options.user ? { user: options.user } : {}),
    ...(log ? { logger: log.logger } : {}),
  });
  try {
    knownToolNamesOnly(gate, setup);
  } catch (error) {
    closeTerminal();
    journal?.close();
    throw error;
  }
  return {
    gate,
    setup,
    journal,
    close: async () => {
      closeTerminal();
      await gate.close();
      journal?.close();
      log?.close();
      await stopTelemetry?.();
    },
  };
}

/**
 * The config's tool names must name tools this gate has (or config-defined ones). The file is
 * checked as written: a mistake in a part an untrusted project config does not apply is one too.
 */
export function knownToolNamesOnly(gate: Toolgate, setup: Setup): void {
  const known = [
    ...gate.registry.names(),
    ...setup.written.tools.definitions.map((d) => d.name),
    ...switchedOffTools(setup.config).keys(), // switched off, still names the config may use
    ...switchedOffTools(setup.written).keys(),
  ];
  checkToolNames(setup.written, [...new Set(known)].sort(), setup.configFile);
}
