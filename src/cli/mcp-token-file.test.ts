import { chownSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from '../../test/helpers/workspace.js';
import { loadOrCreateMcpToken, mcpTokenFile } from './mcp-token-file.js';

const NOBODY = 65534;

describe('issue #30 §6: the generated MCP token file', () => {
  const ws = useWorkspace();

  it('issue #30 §6: it lives in $XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate (a relative XDG_STATE_HOME is ignored)', () => {
    expect(mcpTokenFile({ XDG_STATE_HOME: '/s', HOME: '/h' })).toBe('/s/toolgate/mcp-token');
    expect(mcpTokenFile({ HOME: '/h' })).toBe('/h/.local/state/toolgate/mcp-token');
    expect(mcpTokenFile({ XDG_STATE_HOME: 'rel', HOME: '/h' })).toBe('/h/.local/state/toolgate/mcp-token');
  });

  it('issue #30 §6: made once (0600 in 0700), then the same token; no temporary file is left', () => {
    const file = path.join(ws.dir(), 'state', 'toolgate', 'mcp-token');
    const first = loadOrCreateMcpToken(file);
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const second = loadOrCreateMcpToken(file);
    expect(second).toEqual({ token: first.token, created: false });
    expect(readdirSync(path.dirname(file))).toEqual(['mcp-token']);
  });

  it('issue #30 §6: an existing directory of ours open to others is closed (0700) before the token goes in', () => {
    const dir = path.join(ws.dir(), 'toolgate');
    mkdirSync(dir, { mode: 0o777 });
    loadOrCreateMcpToken(path.join(dir, 'mcp-token'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('issue #30 §6: a directory or file another user owns, or a symbolic link, is refused (the token may be known)', () => {
    const theirs = path.join(ws.dir(), 'theirs', 'toolgate');
    mkdirSync(theirs, { recursive: true, mode: 0o700 });
    chownSync(theirs, NOBODY, NOBODY);
    expect(() => loadOrCreateMcpToken(path.join(theirs, 'mcp-token'))).toThrow(
      /^remove .*theirs\/toolgate \(or set TOOLGATE_MCP_TOKEN\)/,
    );

    const dir = path.join(ws.dir(), 'mine', 'toolgate');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const planted = path.join(dir, 'mcp-token');
    writeFileSync(planted, `${'a'.repeat(43)}\n`, { mode: 0o600 });
    chownSync(planted, NOBODY, NOBODY);
    expect(() => loadOrCreateMcpToken(planted)).toThrow(/not a file only you can read/);

    const linked = path.join(ws.dir(), 'linked', 'toolgate');
    mkdirSync(linked, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(ws.dir(), 'known'), `${'b'.repeat(43)}\n`, { mode: 0o600 });
    symlinkSync(path.join(ws.dir(), 'known'), path.join(linked, 'mcp-token'));
    expect(() => loadOrCreateMcpToken(path.join(linked, 'mcp-token'))).toThrow(/symbolic link/);
  });

  it('issue #30 §6: a file that holds no token toolgate made (empty, short) is refused, not used', () => {
    const dir = path.join(ws.dir(), 'toolgate');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(path.join(dir, 'mcp-token'), 'short\n', { mode: 0o600 });
    expect(() => loadOrCreateMcpToken(path.join(dir, 'mcp-token'))).toThrow(/does not hold a token/);
  });
});
