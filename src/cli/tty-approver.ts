import { openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ReadStream, WriteStream } from 'node:tty';
import { detailBlock, extraLines } from '../approval/request-text.js';
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

/**
 * One request as the terminal shows it: the fields are already exact and visible (plan-batch made
 * them with showExact), and the full text is printed whole, never cut (issue #30 §1-2). The final
 * sanitising pass only matters for a request a library caller built by hand.
 */
export function describeRequest(request: ConfirmationRequest, n: number): string {
  const pad = '     ';
  const lines = [
    `  ${n}. [${RISK_MARK[request.risk]}] ${request.toolName}: ${request.summary}`,
    ...extraLines(request, pad, (name) => `${name}: `),
    ...(request.locations.length
      ? [`${pad}at: ${request.locations.map((l) => `${l.access} ${l.path}`).join(', ')}`]
      : []),
    `${pad}why asked: ${request.reason}`,
    ...(request.message ? [`${pad}note: ${request.message}`] : []),
    ...(request.detail !== undefined ? detailBlock(request.detail, pad) : []),
  ];
  return sanitizeForTerminal(lines.join('\n'));
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
        terminal.output.write(`${describeRequest(r, i + 1)}\n`);
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
