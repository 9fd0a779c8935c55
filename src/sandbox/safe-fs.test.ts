import { execFileSync } from 'node:child_process';
import { linkSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, useWorkspace } from '../../test/helpers/workspace.js';
import { ToolError } from '../core/tool-error.js';
import { openForRead, readSmallFileVerified, writeFileAtomic } from './safe-fs.js';
import { Sandbox } from './sandbox.js';

async function typeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return ToolError.isInstance(error) ? error.type : `raw:${(error as Error).message}`;
  }
}

describe('safe-fs (FR-VAL-06)', () => {
  const ws = useWorkspace();

  it('reads a regular file through a verified descriptor', async () => {
    ws.file('a.txt', 'hello');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    const { handle } = await openForRead(sandbox.resolve('a.txt'), sandbox, 'file');
    expect((await handle.readFile()).toString()).toBe('hello');
    await handle.close();
  });

  it('a symlink swapped in after validation is refused, not followed', async () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'secret'), 'TOP SECRET');
    ws.file('f.txt', 'inside');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    const resolved = sandbox.resolve('f.txt');
    rmSync(path.join(ws.dir(), 'f.txt'));
    symlinkSync(path.join(outside, 'secret'), path.join(ws.dir(), 'f.txt'));
    expect(await typeOf(openForRead(resolved, sandbox, 'file'))).toBe('SandboxViolation');
  });

  it('a parent directory swapped for a symlink after validation is detected', async () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'f.txt'), 'TOP SECRET');
    ws.file('d/f.txt', 'inside');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    const resolved = sandbox.resolve('d/f.txt');
    rmSync(path.join(ws.dir(), 'd'), { recursive: true });
    symlinkSync(outside, path.join(ws.dir(), 'd'));
    expect(await typeOf(openForRead(resolved, sandbox, 'file'))).toBe('SandboxViolation');
    // and a write through the swapped parent goes nowhere outside
    expect(
      await typeOf(writeFileAtomic(resolved, sandbox, 'pwned', { overwrite: true, createParents: true })),
    ).toBe('SandboxViolation');
    expect(readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('the synchronous small-file path refuses a parent swapped for a symlink after validation', () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'f.txt'), 'TOP SECRET');
    ws.file('d/f.txt', 'inside');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    const resolved = sandbox.resolve('d/f.txt');
    expect(readSmallFileVerified(resolved, sandbox, 1024)?.bytes.toString()).toBe('inside');
    rmSync(path.join(ws.dir(), 'd'), { recursive: true });
    symlinkSync(outside, path.join(ws.dir(), 'd'));
    let type = 'none';
    try {
      readSmallFileVerified(resolved, sandbox, 1024);
    } catch (error) {
      type = ToolError.isInstance(error) ? error.type : 'other';
    }
    expect(type).toBe('SandboxViolation');
    // and the final component swapped for a link
    rmSync(path.join(ws.dir(), 'd'));
    ws.file('g.txt', 'inside');
    const g = sandbox.resolve('g.txt');
    rmSync(path.join(ws.dir(), 'g.txt'));
    symlinkSync(path.join(outside, 'f.txt'), path.join(ws.dir(), 'g.txt'));
    expect(() => readSmallFileVerified(g, sandbox, 1024)).toThrow(/symbolic link/);
  });

  it('the small-file path after resolution: a parent moved and linked back, a file replaced, a FIFO, a device', () => {
    const typeOfSync = (fn: () => unknown) => {
      try {
        fn();
        return 'ok';
      } catch (error) {
        return ToolError.isInstance(error) ? error.type : 'other';
      }
    };
    ws.file('d/f.txt', 'inside');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    const resolved = sandbox.resolve('d/f.txt');
    // Even the same file, once its directory is moved and linked back, is reached through a link.
    execFileSync('mv', [path.join(ws.dir(), 'd'), path.join(ws.dir(), 'd2')]);
    symlinkSync(path.join(ws.dir(), 'd2'), path.join(ws.dir(), 'd'));
    expect(typeOfSync(() => readSmallFileVerified(resolved, sandbox, 1024))).toBe('SandboxViolation');
    rmSync(path.join(ws.dir(), 'd'));
    execFileSync('mv', [path.join(ws.dir(), 'd2'), path.join(ws.dir(), 'd')]);
    // Replaced by another file (an editor's atomic save): a new inode, verified by its path instead.
    writeFileSync(path.join(ws.dir(), 'd/new'), 'rewritten');
    execFileSync('mv', [path.join(ws.dir(), 'd/new'), path.join(ws.dir(), 'd/f.txt')]);
    expect(readSmallFileVerified(resolved, sandbox, 1024)?.bytes.toString()).toBe('rewritten');
    // Replaced by a FIFO: opened without blocking, and refused.
    rmSync(path.join(ws.dir(), 'd/f.txt'));
    execFileSync('mkfifo', [path.join(ws.dir(), 'd/f.txt')]);
    expect(typeOfSync(() => readSmallFileVerified(resolved, sandbox, 1024))).toBe('BadArgs');
    // A device is never opened.
    const dev = new Sandbox({ roots: ['/dev'], allowAbsolute: true });
    expect(typeOfSync(() => readSmallFileVerified(dev.resolve('/dev/zero'), dev, 1024))).toBe('BadArgs');
  });

  it('refuses a FIFO without hanging', async () => {
    execFileSync('mkfifo', [path.join(ws.dir(), 'pipe')]);
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    expect(await typeOf(openForRead(sandbox.resolve('pipe'), sandbox, 'file'))).toBe('BadArgs');
    expect(
      await typeOf(
        writeFileAtomic(sandbox.resolve('pipe'), sandbox, 'x', { overwrite: true, createParents: false }),
      ),
    ).toBe('BadArgs');
  });

  it('refuses a device even when a root contains one', async () => {
    const sandbox = new Sandbox({ roots: ['/dev'], allowAbsolute: true });
    expect(await typeOf(openForRead(sandbox.resolve('/dev/zero'), sandbox, 'file'))).toBe('BadArgs');
  });

  it('writes atomically: no temp files left, mode kept, content replaced', async () => {
    const f = ws.file('a.sh', 'old');
    execFileSync('chmod', ['755', f]);
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    await writeFileAtomic(sandbox.resolve('a.sh'), sandbox, 'new', { overwrite: true, createParents: false });
    expect(readFileSync(f, 'utf8')).toBe('new');
    expect(statSync(f).mode & 0o777).toBe(0o755);
    expect(readdirSync(ws.dir())).toEqual(['a.sh']);
  });

  it('without overwrite an existing file is AlreadyExists and untouched', async () => {
    const f = ws.file('a.txt', 'keep');
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    expect(
      await typeOf(
        writeFileAtomic(sandbox.resolve('a.txt'), sandbox, 'x', { overwrite: false, createParents: false }),
      ),
    ).toBe('AlreadyExists');
    expect(readFileSync(f, 'utf8')).toBe('keep');
  });

  it('a hardlink to a file outside: the write never changes the outside inode', async () => {
    const outside = makeTempDir();
    const target = path.join(outside, 'victim');
    writeFileSync(target, 'original');
    linkSync(target, path.join(ws.dir(), 'hl'));
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    await writeFileAtomic(sandbox.resolve('hl'), sandbox, 'changed', {
      overwrite: true,
      createParents: false,
    });
    expect(readFileSync(target, 'utf8')).toBe('original');
    expect(readFileSync(path.join(ws.dir(), 'hl'), 'utf8')).toBe('changed');
  });

  it('creates parents one verified directory at a time', async () => {
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    await writeFileAtomic(sandbox.resolve('a/b/c/d.txt'), sandbox, 'deep', {
      overwrite: false,
      createParents: true,
    });
    expect(readFileSync(path.join(ws.dir(), 'a/b/c/d.txt'), 'utf8')).toBe('deep');
  });

  it('refuses to write the root itself', async () => {
    const sandbox = new Sandbox({ roots: [ws.dir()] });
    expect(
      await typeOf(
        writeFileAtomic(sandbox.resolve('.'), sandbox, 'x', { overwrite: true, createParents: false }),
      ),
    ).toBe('BadArgs');
  });
});
