import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../core/confirmation.js';
import { terminalApprover } from './tty-approver.js';

const req = (callId: string, summary = `write ${callId}`): ConfirmationRequest => ({
  callId,
  toolName: 'write_file',
  summary,
  risk: 'medium',
  locations: [{ path: `${callId}.txt`, access: 'write' }],
  reason: 'side effects',
  rule: 'tools.approval.prompt_side_effects',
});

function terminal(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => {
    shown += d.toString();
    // Answer each question as it appears (the prompt ends with "? " or "] ").
    if (/[?\]] $/.test(shown) && answers.length) input.write(`${answers.shift()}\n`);
  });
  return { input, output, shown: () => shown };
}

describe('terminalApprover (FR-TUI-01)', () => {
  it('approve all', async () => {
    const t = terminal(['a']);
    expect(await terminalApprover(t)([req('1'), req('2')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
    });
    expect(t.shown()).toMatch(/2 calls need approval/);
    expect(t.shown()).toMatch(/\[MEDIUM\] write_file: write 1/);
  });

  it('select one by one', async () => {
    const t = terminal(['s', 'n', 'y']);
    expect(await terminalApprover(t)([req('1'), req('2')], new AbortController().signal)).toEqual({
      kind: 'approve_selected',
      ids: ['2'],
    });
  });

  it('anything else denies; EOF denies', async () => {
    expect((await terminalApprover(terminal(['maybe']))([req('1')], new AbortController().signal)).kind).toBe(
      'deny_all',
    );
    const t = terminal([]);
    setTimeout(() => t.input.end(), 10);
    expect((await terminalApprover(t)([req('1')], new AbortController().signal)).kind).toBe('deny_all');
  });

  it('what it shows is sanitized (a summary cannot drive the terminal)', async () => {
    const t = terminal(['d']);
    await terminalApprover(t)(
      [req('1', 'x\u001b]52;c;cm0gLXJmIC8=\u0007\u001b[2Jy')],
      new AbortController().signal,
    );
    expect(t.shown()).not.toContain('\u001b');
    expect(t.shown()).toContain('xy');
  });
});

describe('terminalApprover grants', () => {
  it("'always' approves all and remembers for the session; 'project' for the project", async () => {
    expect(await terminalApprover(terminal(['always']))([req('1')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
      remember: 'session',
    });
    expect(await terminalApprover(terminal(['project']))([req('1')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
      remember: 'project',
    });
  });
});
