import { openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ReadStream, WriteStream } from 'node:tty';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';

const RISK_MARK = { low: 'low', medium: 'MEDIUM', high: '!! HIGH !!' } as const;

/** Opens the controlling terminal, or undefined when there is none (CI, pipes, no TTY). */
export function openTerminal(): { input: ReadStream; output: WriteStream } | undefined {
  try {
    const input = new ReadStream(openSync('/dev/tty', 'r'));
    const output = new WriteStream(openSync('/dev/tty', 'w'));
    return { input, output };
  } catch {
    return undefined;
  }
}

function describe(request: ConfirmationRequest, n: number): string {
  const where = request.locations.length
    ? `\n     at: ${request.locations.map((l) => `${l.access} ${l.path}`).join(', ')}`
    : '';
  const note = request.message ? `\n     note: ${request.message}` : '';
  const full = request.detail && request.detail !== request.summary ? `\n     full: ${request.detail}` : '';
  return sanitizeForTerminal(
    `  ${n}. [${RISK_MARK[request.risk]}] ${request.toolName}: ${request.summary}${where}\n     why asked: ${request.reason}${note}${full}`,
  );
}

/**
 * Asks on the terminal (not stdin, which carries the calls): approve all, deny all, or select one
 * by one (seed 000 FR-TUI-01). Anything unexpected, EOF or an abort is a denial.
 */
export function terminalApprover(terminal: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}): Approver {
  return async (requests, signal): Promise<ApprovalDecision> => {
    const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
    const closed = new Promise<never>((_, reject) =>
      rl.once('close', () => reject(new Error('terminal closed'))),
    );
    closed.catch(() => {});
    const ask = (q: string) => Promise.race([rl.question(q, { signal }), closed]);
    try {
      terminal.output.write(
        `\ntoolgate: ${requests.length} ${requests.length === 1 ? 'call needs' : 'calls need'} approval:\n`,
      );
      requests.forEach((r, i) => {
        terminal.output.write(`${describe(r, i + 1)}\n`);
      });
      const answer = (
        await ask(
          "Approve [a]ll, [d]eny all, [s]elect one by one, or type 'always' (this session) or 'project'? ",
        )
      )
        .trim()
        .toLowerCase();
      if (answer === 'a' || answer === 'all') return { kind: 'approve_all' };
      if (answer === 'always' || answer === 'session') return { kind: 'approve_all', remember: 'session' };
      if (answer === 'project') return { kind: 'approve_all', remember: 'project' };
      if (answer === 's' || answer === 'select') {
        const ids: string[] = [];
        for (const [i, r] of requests.entries()) {
          const yes = (await ask(`  ${i + 1}. ${sanitizeForTerminal(r.toolName)} — approve? [y/N] `))
            .trim()
            .toLowerCase();
          if (yes === 'y' || yes === 'yes') ids.push(r.callId);
        }
        return { kind: 'approve_selected', ids };
      }
      return { kind: 'deny_all', reason: 'the user denied it' };
    } catch {
      return { kind: 'deny_all', reason: 'no answer from the terminal' };
    } finally {
      rl.close();
    }
  };
}
