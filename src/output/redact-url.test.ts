import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl, secretInUrl } from './redact-url.js';

describe('issue #30 §9: a URL is shown without its secrets, query included', () => {
  it('the password in the user part, and every query value but where-to-connect ones, become ***', () => {
    expect(redactUrl('postgres://u:hunter2@db.example/x')).toBe('postgres://u:***@db.example/x');
    expect(redactUrl('postgres://toolgate@localhost/j?host=%2Ftmp%2Fpg&sslmode=require')).toBe(
      'postgres://toolgate@localhost/j?host=%2Ftmp%2Fpg&sslmode=require',
    );
    expect(redactUrl('postgres://db/x?password=hunter2')).toBe('postgres://db/x?password=***');
    expect(redactUrl('postgres://db/x?PassWord=hunter2&sslpassword=k2')).toBe(
      'postgres://db/x?PassWord=***&sslpassword=***',
    );
    expect(redactUrl('postgres://db/x?options=-c%20password%3Dhunter2')).toBe('postgres://db/x?options=***');
    expect(redactUrl('postgres://db/x?host=h#hunter2')).toBe('postgres://db/x?host=h');
    expect(redactUrl('postgres://u:hunter2@db:port/x')).toBe('postgres://(unparsable URL)');
  });

  it('a secret is found wherever it is: user:password@, ?password= in any case or encoding, ?sslpassword=', () => {
    for (const url of [
      'postgres://u:hunter2@db/x',
      'postgres://db/x?password=hunter2',
      'postgres://db/x?PassWord=hunter2',
      'postgres://db/x?sslmode=require&sslpassword=hunter2',
      'postgres://db/x?pass%77ord=hunter2',
      'postgres://db/x?options=-c%20password%3Dhunter2',
      'postgres://u:hunter2@db:notaport/x',
    ])
      expect(secretInUrl(url), url).toBeDefined();
    expect(secretInUrl('postgres://toolgate@localhost/j?host=%2Ftmp%2Fpg&sslmode=require')).toBeUndefined();
  });

  it('property: no secret of a URL survives redaction', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/).map((s) => `S3CR3T${s}`);
    fc.assert(
      fc.property(
        secret,
        fc.constantFrom('userinfo', 'password', 'PASSWORD', 'sslpassword', 'options', 'token', 'fragment'),
        fc.constantFrom('', 'sslmode=require&', 'host=%2Ftmp&'),
        (value, where, before) => {
          const url =
            where === 'userinfo'
              ? `postgres://u:${value}@db/x?${before}`
              : where === 'fragment'
                ? `postgres://db/x?${before}#${value}`
                : `postgres://db/x?${before}${where}=${value}`;
          expect(redactUrl(url)).not.toContain(value);
          expect(secretInUrl(url) === undefined).toBe(where === 'options' || where === 'fragment');
        },
      ),
    );
  });
});
