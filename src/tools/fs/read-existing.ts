import { ToolError } from '../../core/tool-error.js';
import { openForRead } from '../../sandbox/safe-fs.js';
import type { ResolvedPath, Sandbox } from '../../sandbox/sandbox.js';

/** Bytes of a file through the symlink-safe open; undefined when it does not exist. */
export async function readExisting(
  target: ResolvedPath,
  sandbox: Sandbox,
  maxBytes: number,
): Promise<Buffer | undefined> {
  let opened: Awaited<ReturnType<typeof openForRead>>;
  try {
    opened = await openForRead(target, sandbox, 'file');
  } catch (error) {
    if (ToolError.isInstance(error) && error.type === 'NotFound') return undefined;
    throw error;
  }
  try {
    if (opened.stat.size > maxBytes) {
      throw new ToolError(
        'LimitExceeded',
        `"${target.relative}" is ${opened.stat.size} bytes, more than the ${maxBytes} that can be edited`,
      );
    }
    return await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
}
