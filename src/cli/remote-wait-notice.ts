import path from 'node:path';
import type { WaitingCall } from '../approval/remote-approver.js';
import type { Journal } from '../journal/journal.js';
import { STATE_DIR } from '../journal/own-state-files.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { showExact } from '../output/show-exact.js';
import { shellWord } from './shell-word.js';

/**
 * What `--approve remote` prints when calls wait (issue #31 §3), so nobody waits on a silent
 * process: the first time, the calls and how to answer them (`toolgate approvals …`, or the web
 * console); later, the calls alone. On stderr: stdout is the command's answer.
 */
export function remoteWaitNotice(
  journal: Journal,
  write: (text: string) => void,
  cwd = process.cwd(),
): (calls: readonly WaitingCall[]) => void {
  let explained = false;
  const flag = journalFlag(journal, cwd);
  return (calls) => {
    const first = calls[0];
    if (!first) return;
    const id = (c: WaitingCall) => `${c.batchId}.${c.index + 1}`;
    const listed = calls
      .map((c) => sanitizeForTerminal(`  ${id(c)}  ${c.request.toolName}  ${c.request.summary}`))
      .join('\n');
    if (explained) {
      write(`toolgate: waiting for answers (--approve remote):\n${listed}\n`);
      return;
    }
    explained = true;
    const one = id(first);
    write(
      `toolgate: waiting for a person to answer (--approve remote); nothing of it runs until then:\n${listed}\n` +
        'Answer from any shell with this journal:\n' +
        `  toolgate approvals show ${one}${flag}     (the whole preview)\n` +
        `  toolgate approvals approve ${one}${flag}\n` +
        `  toolgate approvals deny ${one} --reason TEXT${flag}\n` +
        `or in the web console (toolgate serve${flag}), if one runs on this journal.\n`,
    );
  };
}

/** ` --journal …` when `toolgate approvals` run in `cwd` would not find this journal by itself. */
function journalFlag(journal: Journal, cwd: string): string {
  if (journal.file !== undefined) {
    const file = path.resolve(cwd, journal.file);
    if (file === path.join(cwd, STATE_DIR, 'journal.db')) return '';
    // A path with control or invisible characters is not printed for pasting: it could drive the
    // terminal (hostile review of issue #31, F7); the person names the journal themselves.
    return showExact(file, { oneLine: true }) === file ? ` --journal ${shellWord(file)}` : ' --journal FILE';
  }
  // A server's URL is shown without its password and query values: then the person fills it in.
  return journal.location.includes('***') ? ' --journal URL' : ` --journal ${shellWord(journal.location)}`;
}
