import { describe, expect, it } from 'vitest';
import { configWhere } from './config-where.js';

describe('issue #31 §1: the config file named without a path of this machine', () => {
  it('in the root, below it, outside it, and none', () => {
    expect(configWhere('/home/u/p/toolgate.toml', '/home/u/p')).toBe('toolgate.toml in the workspace root');
    expect(configWhere('/home/u/p/conf/tg.toml', '/home/u/p', '(trust it)')).toBe(
      'conf/tg.toml in the workspace (trust it)',
    );
    expect(configWhere('/etc/toolgate/site.toml', '/home/u/p')).toBe(
      'site.toml (the file given with --config, outside the workspace)',
    );
    expect(configWhere(undefined, '/home/u/p')).toBe(
      'toolgate.toml (none is in use: create toolgate.toml in the workspace root)',
    );
    for (const text of [
      configWhere('/home/u/p/toolgate.toml', '/home/u/p'),
      configWhere('/etc/x.toml', '/home/u/p'),
    ])
      expect(text).not.toMatch(/\/home|\/etc/);
  });
});
