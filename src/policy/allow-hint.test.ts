import { describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../core/confirmation.js';
import { hintForAsk } from './allow-hint.js';

const request = (toolName: string, access: 'write' | 'delete'): ConfirmationRequest => ({
  callId: 'c',
  toolName,
  summary: 's',
  risk: 'medium',
  locations: [{ path: 'old.txt', access }],
  reason: 'r',
  rule: 'tools.approval.prompt_side_effects',
});

describe('issue #31 §3: the hint after a denied ask names a fix that works', () => {
  it('a deletion: no config line allows it, it can only be approved when asked', () => {
    const hint = hintForAsk(request('delete_file', 'delete'), 'toolgate.toml');
    expect(hint).toMatch(/^none: a deletion can only be approved when asked/);
    expect(hint).not.toContain('allowlist');
  });

  it('a write: the allowlist line', () => {
    expect(hintForAsk(request('write_file', 'write'), 'toolgate.toml')).toBe(
      'add "write_file" to [tools.approval] allowlist in toolgate.toml',
    );
  });
});
