import { PassThrough } from 'node:stream';

/**
 * A terminal a scripted person types into: each question (a line ending "? " or "] ") is answered
 * with the next answer; with `endWhenDone`, a question with no answer left closes the terminal (a
 * denial), so a question nobody expected fails the test instead of waiting forever.
 */
export function scriptedTerminal(answers: string[], options: { endWhenDone?: boolean } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => {
    shown += d.toString();
    if (!/[?\]] $/.test(shown)) return;
    if (answers.length) input.write(`${answers.shift()}\n`);
    else if (options.endWhenDone) input.end();
  });
  return { input, output, shown: () => shown };
}
