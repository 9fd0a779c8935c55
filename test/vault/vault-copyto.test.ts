import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll, denyWith } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A workspace and a vault beside it, with a file, a tree, links out and in, a FIFO and a secret. */
function setup() {
  const base = makeTempDir('toolgate-vault-');
  const root = path.join(base, 'work');
  const vault = path.join(base, 'vault');
  const outside = path.join(base, 'outside');
  for (const d of [root, vault, outside, path.join(vault, 'data', 'nested', 'deeper')])
    mkdirSync(d, { recursive: true });
  writeFileSync(path.join(outside, 'secret.txt'), 'outside the vault\n');
  writeFileSync(path.join(vault, 'report.csv'), 'port,range\nBrest,7.0\n');
  writeFileSync(path.join(vault, 'data', 'a.txt'), 'alpha\n');
  writeFileSync(path.join(vault, 'data', 'nested', 'b.txt'), 'beta\n');
  writeFileSync(path.join(vault, 'data', 'nested', 'deeper', 'c.bin'), Buffer.from([0, 1, 2, 255]));
  writeFileSync(path.join(vault, 'data', 'server.pem'), 'PRIVATE KEY\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(vault, 'data', 'link-out.txt'));
  symlinkSync(path.join(vault, 'report.csv'), path.join(vault, 'data', 'link-in.csv'));
  symlinkSync(outside, path.join(vault, 'data', 'dir-out'));
  execFileSync('mkfifo', [path.join(vault, 'data', 'pipe')]);
  symlinkSync(path.join(outside, 'secret.txt'), path.join(vault, 'escape.txt'));
  return { base, root, vault, outside };
}

function gateFor(
  root: string,
  vault: Record<string, unknown>,
  approver: Approver = approveAll,
  tools: Record<string, unknown> = {},
) {
  return createToolgate({
    config: validateConfig({ tools: { vault, ...tools } }),
    roots: [root],
    approver,
  });
}
async function call(
  g: ReturnType<typeof gateFor>,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const [r] = await g.execute([{ id: `c${Math.random()}`, name, arguments: args }]);
  if (!r) throw new Error('no result');
  return r;
}
const sha256sum = (file: string) => execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0];
/** The tree digest as coreutils computes it: sha256sum of every file, paths in byte order, hashed. */
const treeDigest = (dir: string) =>
  execFileSync(
    'bash',
    ['-c', "find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum"],
    { cwd: dir, encoding: 'utf8' },
  ).split(' ')[0];
/** No temporary file or directory of a copy is left anywhere under `dir`. */
const noTemps = (dir: string) =>
  expect(execFileSync('find', [dir, '-name', '*.toolgate-*'], { encoding: 'utf8' }).trim()).toBe('');

describe('vault_copyto (issue #15; seed 003 Core Tools)', () => {
  it('copies a file atomically; the result names its SHA-256, the same sha256sum computes; no clobber without overwrite', async () => {
    const { root, vault } = setup();
    const g = gateFor(root, { roots: [vault] });
    const r = await call(g, 'vault_copyto', { source: 'report.csv', destination: 'in/report.csv' });
    expect(r.ok, r.content).toBe(true);
    const copied = path.join(root, 'in', 'report.csv');
    expect(readFileSync(copied, 'utf8')).toBe('port,range\nBrest,7.0\n');
    expect(r.content).toContain(`sha256 ${sha256sum(copied)}`);
    expect(r.metadata).toMatchObject({ kind: 'file', bytes: 21, sha256: sha256sum(copied) });
    const again = await call(g, 'vault_copyto', {
      source: path.join(vault, 'report.csv'),
      destination: 'in/report.csv',
    });
    expect(again.error?.type).toBe('AlreadyExists');
    writeFileSync(copied, 'changed');
    const over = await call(g, 'vault_copyto', {
      source: 'report.csv',
      destination: 'in/report.csv',
      overwrite: true,
    });
    expect(over.ok).toBe(true);
    expect(readFileSync(copied, 'utf8')).toBe('port,range\nBrest,7.0\n');
    noTemps(root);
  });

  it('copies a tree: files and folders by descriptor; links, FIFOs and denied files skipped and named, never followed; the manifest digest matches coreutils', async () => {
    const { root, vault } = setup();
    const g = gateFor(root, { roots: [vault] });
    const r = await call(g, 'vault_copyto', { source: 'data', destination: 'copy' });
    expect(r.ok, r.content).toBe(true);
    const copy = path.join(root, 'copy');
    expect(
      execFileSync('find', ['.', '-printf', '%y %P\\n'], { cwd: copy, encoding: 'utf8' }).split('\n').sort(),
    ).toEqual(
      ['', 'd ', 'f a.txt', 'd nested', 'f nested/b.txt', 'd nested/deeper', 'f nested/deeper/c.bin'].sort(),
    );
    expect(readFileSync(path.join(copy, 'nested', 'deeper', 'c.bin'))).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(r.metadata?.sha256).toBe(treeDigest(copy));
    expect(r.content).toContain(`sha256 of the manifest ${treeDigest(copy)}`);
    const skipped = r.metadata?.skipped as string[];
    expect(skipped.sort()).toEqual(
      [
        'server.pem (denied)',
        'dir-out (symbolic link)',
        'link-in.csv (symbolic link)',
        'link-out.txt (symbolic link)',
        'pipe (not a regular file)',
      ].sort(),
    );
    expect(readdirSync(copy)).not.toContain('link-out.txt');
    // a tree is never merged into what is there
    expect((await call(g, 'vault_copyto', { source: 'data', destination: 'copy' })).error?.type).toBe(
      'AlreadyExists',
    );
    noTemps(root);
  });

  it('T-SBX: no link on either side redirects the copy: a source link out of the vault, a destination parent that is a link out', async () => {
    const { root, vault, outside } = setup();
    const g = gateFor(root, { roots: [vault] });
    const linkOut = await call(g, 'vault_copyto', { source: 'escape.txt', destination: 'x.txt' });
    expect(linkOut.error?.type).toBe('SandboxViolation');
    expect(linkOut.content).toMatch(/outside the vaults/);
    expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
    const through = await call(g, 'vault_copyto', {
      source: 'data/dir-out/secret.txt',
      destination: 'y.txt',
    });
    expect(through.error?.type).toBe('SandboxViolation');
    symlinkSync(outside, path.join(root, 'out'));
    const write = await call(g, 'vault_copyto', { source: 'report.csv', destination: 'out/report.csv' });
    expect(write.error?.type).toBe('SandboxViolation');
    expect(existsSync(path.join(outside, 'report.csv'))).toBe(false);
    // a workspace file is no vault
    writeFileSync(path.join(root, 'mine.txt'), 'mine');
    const notVault = await call(g, 'vault_copyto', {
      source: path.join(root, 'mine.txt'),
      destination: 'z.txt',
    });
    expect(notVault.error?.type).toBe('SandboxViolation');
    expect(notVault.content).toMatch(/the vaults: /);
  });

  it('caps: bytes and files over the limit are LimitExceeded and leave nothing behind', async () => {
    const { root, vault } = setup();
    const bytes = await call(gateFor(root, { roots: [vault], max_bytes: 10 }), 'vault_copyto', {
      source: 'data',
      destination: 'big',
    });
    expect(bytes.error?.type).toBe('LimitExceeded');
    expect(bytes.content).toMatch(/\[tools\.vault\] max_bytes/);
    const files = await call(gateFor(root, { roots: [vault], max_files: 2 }), 'vault_copyto', {
      source: 'data',
      destination: 'many',
    });
    expect(files.error?.type).toBe('LimitExceeded');
    expect(files.content).toMatch(/\[tools\.vault\] max_files/);
    const file = await call(gateFor(root, { roots: [vault], max_bytes: 5 }), 'vault_copyto', {
      source: 'report.csv',
      destination: 'r.csv',
    });
    expect(file.error?.type).toBe('LimitExceeded');
    expect(readdirSync(root)).toEqual([]);
  });

  it('always asks: denied when nobody approves, even allowlisted; a conditioned allow rule is standing approval', async () => {
    const { root, vault } = setup();
    const asked: string[] = [];
    const recordingNo: Approver = async (requests) => {
      asked.push(requests.map((c) => c.detail ?? c.summary).join());
      return { kind: 'deny_all', reason: 'no' };
    };
    const denied = await call(
      gateFor(root, { roots: [vault] }, recordingNo, { approval: { allowlist: ['vault_copyto'] } }),
      'vault_copyto',
      {
        source: 'report.csv',
        destination: 'r.csv',
      },
    );
    expect(denied.error?.type).toBe('Denied');
    expect(asked).toEqual(['report.csv → r.csv']);
    expect(existsSync(path.join(root, 'r.csv'))).toBe(false);
    const nobody = await call(gateFor(root, { roots: [vault] }, denyWith('nobody')), 'vault_copyto', {
      source: 'report.csv',
      destination: 'r.csv',
    });
    expect(nobody.error?.type).toBe('Denied');
    const rule = {
      policy: {
        rules: [
          {
            tool: 'vault_copyto',
            action: 'allow',
            conditions: [{ param: 'source', operator: 'startsWith', value: 'report' }],
          },
        ],
      },
    };
    const standing = await call(gateFor(root, { roots: [vault] }, denyWith('nobody'), rule), 'vault_copyto', {
      source: 'report.csv',
      destination: 'r.csv',
    });
    expect(standing.ok, standing.content).toBe(true);
  });

  it('no other tool reads, lists, searches or writes a vault, even one inside the workspace root', async () => {
    const { root } = setup();
    const vault = path.join(root, 'vault');
    mkdirSync(path.join(vault, 'deep'), { recursive: true });
    writeFileSync(path.join(vault, 'deep', 'plans.txt'), 'needle in the vault\n');
    writeFileSync(path.join(root, 'open.txt'), 'needle in the open\n');
    const g = gateFor(root, { roots: [vault] }, approveAll, { approval: { denylist: [] } });
    const read = await call(g, 'read_file', { path: 'vault/deep/plans.txt' });
    expect(read.error?.type).toBe('SandboxViolation');
    expect(read.content).toMatch(/inside a vault .*vault_copyto/);
    expect((await call(g, 'read_many_files', { paths: ['vault/deep/plans.txt'] })).content).not.toContain(
      'needle in the vault',
    );
    expect((await call(g, 'list_directory', { path: 'vault' })).error?.type).toBe('SandboxViolation');
    const listing = await call(g, 'list_directory', { path: '.', depth: 3 });
    expect(listing.content).not.toContain('plans.txt');
    expect(listing.content).not.toMatch(/"vault"/);
    const grep = await call(g, 'grep', { pattern: 'needle' });
    expect(grep.content).toContain('open.txt');
    expect(grep.content).not.toContain('plans.txt');
    expect((await call(g, 'glob', { pattern: '**/*.txt' })).content).not.toContain('plans.txt');
    expect((await call(g, 'write_file', { path: 'vault/new.txt', content: 'x' })).error?.type).toBe(
      'SandboxViolation',
    );
    expect((await call(g, 'delete_file', { path: 'vault', recursive: true })).error?.type).toBe(
      'SandboxViolation',
    );
    // Without the OS sandbox a command cannot be fenced, only judged: a vault path in it is asked
    // about, naming the vault (here nobody approves); `sandbox = "os"` makes it unreadable (below).
    const reasons: string[] = [];
    const judged = gateFor(
      root,
      { roots: [vault] },
      async (requests) => {
        reasons.push(...requests.map((r) => r.reason));
        return { kind: 'deny_all', reason: 'no' };
      },
      { approval: { denylist: [] }, run_command: { allow: ['cat'] } },
    );
    const cat = await call(judged, 'run_command', { command: 'cat vault/deep/plans.txt' });
    expect(cat.error?.type).toBe('Denied');
    expect(cat.content).not.toContain('needle in the vault');
    expect(reasons.join()).toMatch(/inside a vault/);
    expect(existsSync(path.join(vault, 'new.txt'))).toBe(false);
    // while vault_copyto copies out of it, and never into it
    const out = await call(g, 'vault_copyto', { source: 'deep/plans.txt', destination: 'plans.txt' });
    expect(out.ok, out.content).toBe(true);
    expect(
      (await call(g, 'vault_copyto', { source: 'deep/plans.txt', destination: 'vault/again.txt' })).error
        ?.type,
    ).toBe('SandboxViolation');
  });

  it('the OS sandbox denies the vault to commands too (bubblewrap)', async () => {
    const { root, vault } = setup();
    const g = gateFor(root, { roots: [vault] }, approveAll, {
      approval: { denylist: [] },
      run_command: { sandbox: 'os' },
    });
    const r = await call(g, 'run_command', { command: `cat ${vault}/report.csv; ls ${vault}` });
    expect(r.content).not.toContain('Brest');
    expect(r.content).not.toContain('report.csv\n');
    const control = spawnSync('cat', [path.join(vault, 'report.csv')], { encoding: 'utf8' });
    expect(control.stdout).toContain('Brest'); // readable outside the sandbox: the denial is the sandbox's
  });

  it('clear errors: no vault configured, several vaults with a relative source, a vault that does not exist', async () => {
    const { base, root, vault } = setup();
    const none = await call(gateFor(root, {}), 'vault_copyto', { source: 'x', destination: 'y' });
    expect(none.error?.type).toBe('BadArgs');
    expect(none.content).toMatch(/\[tools\.vault\] roots/);
    const second = path.join(base, 'vault2');
    mkdirSync(second);
    const two = await call(gateFor(root, { roots: [vault, second] }), 'vault_copyto', {
      source: 'report.csv',
      destination: 'y',
    });
    expect(two.error?.type).toBe('BadArgs');
    expect(two.content).toMatch(/absolute path inside one of/);
    const ok = await call(gateFor(root, { roots: [vault, second] }), 'vault_copyto', {
      source: path.join(vault, 'report.csv'),
      destination: 'y.csv',
    });
    expect(ok.ok).toBe(true);
    const missing = await call(gateFor(root, { roots: [path.join(base, 'nope')] }), 'vault_copyto', {
      source: 'x',
      destination: 'z',
    });
    expect(missing.error?.type).toBe('ExecutionFailed');
    expect(missing.content).toMatch(/vault .*does not exist/);
  });
});

describe('vault_copyto after a hostile review', () => {
  it('the user’s denied patterns hold inside a vault: a denied file is never copied out (MEDIUM finding)', async () => {
    const { root, vault } = setup();
    mkdirSync(path.join(vault, 'data', 'private'));
    writeFileSync(path.join(vault, 'data', '.env'), 'TOKEN=1\n');
    writeFileSync(path.join(vault, 'data', 'private', 'k.txt'), 'private key\n');
    const g = gateFor(root, { roots: [vault] }, approveAll, {
      sandbox: { denied_patterns: ['**/.env', '**/private/**'] },
    });
    const direct = await call(g, 'vault_copyto', { source: 'data/private/k.txt', destination: 'k.txt' });
    expect(direct.error?.type).toBe('SandboxViolation');
    expect(direct.content).toMatch(/private/);
    expect(existsSync(path.join(root, 'k.txt'))).toBe(false);
    const tree = await call(g, 'vault_copyto', { source: 'data', destination: 'copy' });
    expect(tree.ok, tree.content).toBe(true);
    expect(tree.metadata?.skipped).toEqual(expect.arrayContaining(['.env (denied)', 'private (denied)']));
    expect(existsSync(path.join(root, 'copy', '.env'))).toBe(false);
    expect(existsSync(path.join(root, 'copy', 'private'))).toBe(false);
    expect(readFileSync(path.join(root, 'copy', 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('directories count against max_files: a tree of empty directories cannot flood the workspace (LOW finding)', async () => {
    const { root, vault } = setup();
    for (let i = 0; i < 30; i++) mkdirSync(path.join(vault, 'many', `d${i}`), { recursive: true });
    const g = gateFor(root, { roots: [vault], max_files: 10 });
    const r = await call(g, 'vault_copyto', { source: 'many', destination: 'many' });
    expect(r.error?.type).toBe('LimitExceeded');
    expect(r.content).toMatch(/more than 10 files and directories/);
    expect(existsSync(path.join(root, 'many'))).toBe(false);
    noTemps(root);
  });

  it('a tree deeper than toolgate walks by descriptor is refused with a clear error, copying or deleting (second review)', async () => {
    const { root, vault } = setup();
    const deep = (base: string) => path.join(base, ...Array.from({ length: 140 }, (_, i) => `d${i}`));
    mkdirSync(deep(path.join(vault, 'deep')), { recursive: true });
    writeFileSync(path.join(deep(path.join(vault, 'deep')), 'f.txt'), 'bottom\n');
    const g = gateFor(root, { roots: [vault], max_files: 1000 });
    const copy = await call(g, 'vault_copyto', { source: 'deep', destination: 'deep' });
    expect(copy.error?.type).toBe('LimitExceeded');
    expect(copy.content).toMatch(/more than 128 levels deep/);
    noTemps(root);
    mkdirSync(deep(path.join(root, 'gone')), { recursive: true });
    const del = await call(g, 'delete_file', { path: 'gone', recursive: true });
    expect(del.error?.type).toBe('LimitExceeded');
    expect(del.content).toMatch(/more than 128 levels deep/);
  });
});
