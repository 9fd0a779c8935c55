import { type Approver, approveAll, denyAll } from '../core/confirmation.js';
import type { Journal } from '../journal/journal.js';
import { createToolgate, type Toolgate } from '../toolgate.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { resolveSetup, type Setup } from './resolve-setup.js';
import { openTerminal, terminalApprover } from './tty-approver.js';
import { UsageError } from './usage-error.js';

export interface GateOptions {
  root?: string[];
  config?: string;
  approve?: string;
  session?: string;
  journal?: string | boolean;
}

export interface OpenGate {
  gate: Toolgate;
  setup: Setup;
  journal: Journal | undefined;
  close(): void;
}

/**
 * The set-up `exec` and `run` share: config and roots, the approver from `--approve` (ask on the
 * terminal, all, none; default ask on a TTY and none otherwise, so nobody answering is a denial),
 * and the journal, opened before anything runs (if it cannot be, nothing runs).
 */
export function openGate(options: GateOptions): OpenGate {
  const approve = options.approve ?? (process.stderr.isTTY ? 'ask' : 'none');
  if (!['ask', 'all', 'none'].includes(approve)) {
    throw new UsageError(`--approve must be ask, all or none (got "${approve}")`);
  }
  const setup = resolveSetup(options);
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
  return {
    gate,
    setup,
    journal,
    close: () => {
      closeTerminal();
      journal?.close();
    },
  };
}
