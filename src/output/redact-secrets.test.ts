import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capSummary, redactSecrets } from './redact-secrets.js';

describe('redactSecrets (FR-APR-01)', () => {
  it.each([
    'curl -H "Authorization: Bearer abcdef1234567890" https://x',
    'export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx',
    'mysql --password=hunter2hunter2',
    'git clone https://user:s3cretpass@github.com/x/y',
    'token: ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'aws AKIAABCDEFGHIJKLMNOP',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----',
  ])('hides the secret in %s', (text) => {
    const out = redactSecrets(text);
    expect(out).toContain('[REDACTED]');
    for (const secret of [
      'abcdef1234567890',
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'hunter2hunter2',
      's3cretpass',
      'ghp_abcdefghij',
      'AKIAABCDEFGHIJKLMNOP',
      'MIIEabc',
    ]) {
      expect(out).not.toContain(secret);
    }
  });

  it('leaves ordinary text alone', () => {
    expect(redactSecrets('Read src/index.ts lines 1-20')).toBe('Read src/index.ts lines 1-20');
  });

  it('capSummary: at most 200 characters, ending with an ellipsis when cut', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        const out = capSummary(text);
        expect(Array.from(out).length).toBeLessThanOrEqual(200);
        if (Array.from(text).length > 200) expect(out.endsWith('…')).toBe(true);
        else expect(out).toBe(text);
      }),
    );
  });
});
