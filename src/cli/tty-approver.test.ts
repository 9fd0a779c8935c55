import { describe, expect, it } from 'vitest';
import { scriptedTerminal } from '../../test/helpers/scripted-terminal.js';
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

const terminal = (answers: string[]) => scriptedTerminal(answers);

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

  it('issue #31 §3: an unknown answer asks again (a typo neither approves nor denies); y and yes approve; EOF denies', async () => {
    const t = terminal(['maybe', 'yes']);
    expect(await terminalApprover(t)([req('1')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
    });
    expect(t.shown()).toContain('please answer');
    expect(await terminalApprover(terminal(['y']))([req('1')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
    });
    expect((await terminalApprover(terminal(['n']))([req('1')], new AbortController().signal)).kind).toBe(
      'deny_all',
    );
    // Unknown answers only, then nothing: a denial, never a guess.
    const stubborn = terminal(['maybe', 'maybe', 'maybe', 'maybe', 'maybe']);
    expect((await terminalApprover(stubborn)([req('1')], new AbortController().signal)).kind).toBe(
      'deny_all',
    );
    const t2 = terminal([]);
    setTimeout(() => t2.input.end(), 10);
    expect((await terminalApprover(t2)([req('1')], new AbortController().signal)).kind).toBe('deny_all');
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

describe('terminalApprover grants (issue #30 §5)', () => {
  const offered = (callId: string): ConfirmationRequest => ({
    ...req(callId),
    always: { covers: [{ kind: 'paths', paths: [`/w/${callId}.txt`], shown: [`${callId}.txt`] }] },
  });

  it("'always' approves all and remembers for the session, 'project' for the project, each shown with what it covers and for whom", async () => {
    const t = terminal(['always']);
    expect(await terminalApprover(t)([offered('1')], new AbortController().signal)).toEqual({
      kind: 'approve_all',
      remember: 'session',
    });
    expect(t.shown()).toContain('always (session): always allow write_file to 1.txt in this session');
    expect(t.shown()).toContain(
      'always (project): always allow write_file to 1.txt for every session on this journal (every agent using it)',
    );
    expect(
      await terminalApprover(terminal(['project']))([offered('1')], new AbortController().signal),
    ).toEqual({
      kind: 'approve_all',
      remember: 'project',
    });
  });

  it('no "always" where a call has no offer: the prompt does not offer it, says why, and "always" is asked again', async () => {
    const refused: ConfirmationRequest = { ...req('2'), always: { refused: 'deletions always ask' } };
    const t = terminal(['always', 'a']);
    expect(await terminalApprover(t)([offered('1'), refused], new AbortController().signal)).toEqual({
      kind: 'approve_all',
    });
    expect(t.shown()).not.toContain("or type 'always'");
    expect(t.shown()).toContain('"always" is not available for write_file: deletions always ask');
    expect(t.shown()).toContain('please answer');
  });

  it('select: "always" per call where that call has an offer', async () => {
    const t = terminal(['s', 'always', 'y']);
    expect(await terminalApprover(t)([offered('1'), req('2')], new AbortController().signal)).toEqual({
      kind: 'approve_selected',
      ids: ['1', '2'],
      remember: { '1': 'session' },
    });
    expect(t.shown()).toContain('approve? [y/N/always/project/always DIR/project DIR]');
    expect(t.shown()).toContain('approve? [y/N]');
  });
});
