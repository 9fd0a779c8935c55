import { describe, expect, it } from 'vitest';
import { BLOCK_MARK } from '../approval/request-text.js';
import type { ConfirmationRequest } from '../core/confirmation.js';
import { ELICITATION_MAX_CHARS, elicitationText } from './mcp-approver.js';

const request = (detail: string, index = 0): ConfirmationRequest => ({
  callId: `c${index}`,
  toolName: 'write_file',
  summary: 'Create deploy.sh',
  risk: 'medium',
  locations: [{ path: 'deploy.sh', access: 'write' }],
  reason: 'side effects',
  rule: 'tools.approval.prompt_side_effects',
  detail,
  index,
});

describe('elicitationText (issue #30 §2)', () => {
  it('a question that fits is shown whole and is approvable', () => {
    const shown = elicitationText([request('+echo hi')], 'B');
    expect(shown.hidden).toBe(0);
    expect(shown.message).toContain('   │ +echo hi');
  });

  it('past the limit: says exactly how many characters of which call are hidden, where to read it whole, and is not approvable', () => {
    const detail = `${'x'.repeat(2500)}END`;
    const shown = elicitationText([request('+small', 0), request(detail, 1)], 'B');
    expect(Array.from(shown.message).length).toBeLessThanOrEqual(ELICITATION_MAX_CHARS + 600);
    expect(shown.message).toMatch(/^NOT APPROVABLE HERE/);
    expect(shown.message).not.toContain('END');
    expect(shown.message).toContain('`toolgate approvals show B.2`');
    const said = /\[(\d+) of the (\d+) characters of call 2's full text are NOT shown here/.exec(
      shown.message,
    );
    const longPart = `   full text:\n   ${BLOCK_MARK}${detail}`;
    expect(Number(said?.[2])).toBe(Array.from(longPart).length);
    // What is shown of call 2 plus what is said to be hidden is all of it.
    const kept = shown.message
      .slice(shown.message.indexOf(`   full text:\n   ${BLOCK_MARK}x`))
      .split('\n   [')[0] as string;
    expect(Array.from(kept).length + Number(said?.[1])).toBe(Array.from(longPart).length);
    expect(shown.hidden).toBe(Number(said?.[1]));
    expect(shown.tooLarge.map((r) => r.callId)).toEqual(['c1']);
  });

  it('without a journal it says the call can be read whole nowhere else', () => {
    const shown = elicitationText([request('y'.repeat(3000))]);
    expect(shown.message).toMatch(/there is no journal here/);
  });
});
