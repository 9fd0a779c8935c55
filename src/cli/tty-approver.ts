import { openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ReadStream, WriteStream } from 'node:tty';
import { describeGrant, type GrantStoreKind } from '../approval/grant-coverage.js';
import { alwaysLines, alwaysOffered, detailBlock, extraLines } from '../approval/request-text.js';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import type { RememberChoice } from '../core/grant.js';
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
export function describeRequest(
  request: ConfirmationRequest,
  n: number,
  store: GrantStoreKind = 'journal',
): string {
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
    ...alwaysLines(request, pad, (name) => `${name}: `, store),
  ];
  return sanitizeForTerminal(lines.join('\n'));
}

/** Answers the terminal prompt asks again rather than guess (a typo never approves or denies). */
const MAX_ASKS = 5;

/**
 * Asks on the terminal (not stdin, which carries the calls): approve all, deny all, or select one
 * by one (seed 000 FR-TUI-01); "always" only where every call has an offer, with what it covers
 * shown above. An unknown answer is asked again; EOF, an abort or too many unknown answers deny.
 */
export function terminalApprover(
  terminal: {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
  },
  options: { store?: GrantStoreKind } = {},
): Approver {
  const store = options.store ?? 'journal';
  return async (requests, signal): Promise<ApprovalDecision> => {
    const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
    const closed = new Promise<never>((_, reject) =>
      rl.once('close', () => reject(new Error('terminal closed'))),
    );
    closed.catch(() => {});
    const ask = (q: string) => Promise.race([rl.question(q, { signal }), closed]);
    /** Asks until the answer is one of `known` (or `also` takes it); undefined after MAX_ASKS unknown answers. */
    const choose = async (
      question: string,
      known: readonly string[],
      also?: (answer: string) => boolean,
    ): Promise<string | undefined> => {
      for (let i = 0; i < MAX_ASKS; i++) {
        const typed = (await ask(question)).trim();
        const answer = typed.toLowerCase();
        if (known.includes(answer)) return answer;
        if (also?.(typed)) return typed;
        terminal.output.write(
          `  please answer ${known.filter((k) => k !== '').join(', ')}${also ? ', or always DIR / project DIR with a directory (relative to the root) that holds the file' : ''}\n`,
        );
      }
      return undefined;
    };
    try {
      terminal.output.write(
        `\ntoolgate: ${requests.length} ${requests.length === 1 ? 'call needs' : 'calls need'} approval:\n`,
      );
      requests.forEach((r, i) => {
        terminal.output.write(`${describeRequest(r, i + 1, store)}\n`);
      });
      const always = requests.every(alwaysOffered);
      const answer = await choose(
        `Approve [a]ll, [d]eny all, [s]elect one by one${always ? ", or type 'always' (this session) or 'project' (see above what each covers)" : ''}? `,
        [
          'a',
          'all',
          'y',
          'yes',
          'd',
          'deny',
          'n',
          'no',
          's',
          'select',
          ...(always ? ['always', 'session', 'project'] : []),
        ],
      );
      if (answer === 'a' || answer === 'all' || answer === 'y' || answer === 'yes')
        return { kind: 'approve_all' };
      if (answer === 'always' || answer === 'session') return { kind: 'approve_all', remember: 'session' };
      if (answer === 'project') return { kind: 'approve_all', remember: 'project' };
      if (answer === 's' || answer === 'select') {
        const ids: string[] = [];
        const remember: Record<string, RememberChoice> = {};
        for (const [i, r] of requests.entries()) {
          const offered = alwaysOffered(r);
          const files = pickableFiles(r);
          const yes = await choose(
            `  ${i + 1}. ${sanitizeForTerminal(r.toolName)} — approve? [y/N${offered ? '/always/project' : ''}${files ? '/always DIR/project DIR' : ''}] `,
            ['y', 'yes', 'n', 'no', '', ...(offered ? ['always', 'session', 'project'] : [])],
            files ? (typed) => directoryChoice(typed, files) !== undefined : undefined,
          );
          if (yes === 'y' || yes === 'yes') ids.push(r.callId);
          else if (yes === 'always' || yes === 'session' || yes === 'project') {
            ids.push(r.callId);
            remember[r.callId] = yes === 'project' ? 'project' : 'session';
          } else if (yes && files) {
            const choice = directoryChoice(yes, files);
            if (choice) {
              ids.push(r.callId);
              remember[r.callId] = choice;
              terminal.output.write(`     → ${sanitizeForTerminal(describeGrant(r, choice, { store }))}\n`);
            }
          }
        }
        return { kind: 'approve_selected', ids, ...(Object.keys(remember).length ? { remember } : {}) };
      }
      if (answer === undefined) return { kind: 'deny_all', reason: 'no answer the terminal prompt knows' };
      return { kind: 'deny_all', reason: 'the user denied it' };
    } catch {
      return { kind: 'deny_all', reason: 'no answer from the terminal' };
    } finally {
      rl.close();
    }
  };
}

/** The root-relative files a file change's "always" covers, when a directory may be picked instead. */
function pickableFiles(r: ConfirmationRequest): readonly string[] | undefined {
  const offer = r.always;
  if (!offer || !('covers' in offer) || offer.covers.length !== 1) return undefined;
  const [only] = offer.covers;
  return only?.kind === 'paths' ? only.shown : undefined;
}

/**
 * `always DIR` / `project DIR`: a root-relative directory holding every file of the call (issue #30
 * §5: "or a directory the person picks"). Anything else is not a choice (asked again); the pipeline
 * checks the directory once more against the resolved paths before storing it.
 */
function directoryChoice(typed: string, files: readonly string[]): RememberChoice | undefined {
  const m = /^(always|session|project)\s+(\S+)$/i.exec(typed);
  if (!m) return undefined;
  const directory = (m[2] as string).replace(/\/+$/, '') || '.';
  if (directory.startsWith('/') || directory.split('/').includes('..')) return undefined;
  const holds = (file: string) =>
    directory === '.' || file === directory || file.startsWith(`${directory.replace(/^\.\//, '')}/`);
  if (!files.every(holds)) return undefined;
  return { scope: (m[1] as string).toLowerCase() === 'project' ? 'project' : 'session', directory };
}
