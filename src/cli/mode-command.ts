import os from 'node:os';
import { GOVERNANCE_MODES, type GovernanceMode } from '../core/tier.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { createToolgate } from '../toolgate.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

interface ModeOptions {
  root?: string[];
  config?: string;
  journal?: string;
  json?: boolean;
  reason?: string;
  limit?: string;
}

/**
 * The gate of the project's journal, with no tools: the mode lives there, for every process that
 * uses it (`toolgate mode`, and the console's header).
 */
export function openProjectGate(options: Pick<ModeOptions, 'root' | 'config' | 'journal'>) {
  const setup = resolveSetup(options);
  const journal = openJournalOrStop(journalPath(setup, options.journal));
  const gate = createToolgate({
    config: setup.config,
    roots: setup.roots,
    baseDir: setup.baseDir,
    journal,
    builtins: false,
    ...(setup.configFile ? { configFile: setup.configFile } : {}),
  });
  return { gate, journal };
}

/** `toolgate mode show`: the mode in force, where it comes from, and its recent history. */
export function runModeShow(options: ModeOptions, out: NodeJS.WritableStream): number {
  const limit = Number(options.limit ?? 10);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100_000)
    throw new UsageError('--limit must be a whole number from 1 to 100000');
  const { gate, journal } = openProjectGate(options);
  try {
    const now = gate.governanceMode();
    const history = journal.modeHistory(limit);
    if (options.json) {
      out.write(`${JSON.stringify({ mode: now.mode, source: now.source, history }, null, 2)}\n`);
      return 0;
    }
    out.write(
      `${now.mode} (${now.source === 'journal' ? `set ${new Date(now.record?.at ?? 0).toISOString()} by ${sanitizeForTerminal(now.record?.actor ?? '')}: ${sanitizeForTerminal(now.record?.reason ?? '')}` : 'from the config: [tools.governance] mode'})\n`,
    );
    for (const h of history.slice(now.source === 'journal' ? 1 : 0))
      out.write(
        `  before: ${h.mode}  ${new Date(h.at).toISOString()}  ${sanitizeForTerminal(h.actor)}: ${sanitizeForTerminal(h.reason)}\n`,
      );
    return 0;
  } finally {
    journal.close();
  }
}

/** `toolgate mode set MODE --reason TEXT`: every toolgate on this journal follows at its next call. */
export async function runModeSet(
  mode: string,
  options: ModeOptions,
  out: NodeJS.WritableStream,
): Promise<number> {
  const wanted = mode.toUpperCase();
  if (!(GOVERNANCE_MODES as readonly string[]).includes(wanted))
    throw new UsageError(`the mode must be one of ${GOVERNANCE_MODES.join(', ')} (got "${mode}")`);
  const reason = options.reason?.trim();
  if (!reason) throw new UsageError('say why with --reason TEXT: it is kept with the change');
  const { gate, journal } = openProjectGate(options);
  try {
    const before = gate.refreshMode();
    await gate.setMode(wanted as GovernanceMode, reason, `cli:${userName()}@${os.hostname()}`);
    out.write(`${before} → ${wanted}: ${sanitizeForTerminal(reason)}\n`);
    return 0;
  } finally {
    journal.close();
  }
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
