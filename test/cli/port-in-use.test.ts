import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A port held by another program (a plain TCP server of this test process). */
let busy: Server | undefined;
afterEach(() => busy?.close());
async function occupiedPort(): Promise<number> {
  busy = createServer();
  const server = busy;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('issue #31 §3: a listening command on a busy port says so in one line and exits 2, no stack trace', () => {
  it.each([
    ['serve', ['serve']],
    ['mcp --http', ['mcp', '--no-journal']],
  ])('toolgate %s', async (_, args) => {
    const port = await occupiedPort();
    const root = makeTempDir('toolgate-port-');
    const run = await runCliAsync([...args, '--http', `127.0.0.1:${port}`], { cwd: root });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `toolgate: port ${port} on 127.0.0.1 is in use by another program; pick another with --http 127.0.0.1:PORT\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('toolgate serve on an address that is not this machine’s: one line naming it', async () => {
    const root = makeTempDir('toolgate-port-');
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface of a test machine has it.
    const run = await runCliAsync(['serve', '--http', '192.0.2.1:7480'], {
      cwd: root,
      env: { TOOLGATE_CONSOLE_TOKEN: 'a-token-of-sixteen-or-more' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'toolgate: cannot listen on 192.0.2.1: no network interface of this machine has that address (EADDRNOTAVAIL); pick another with --http HOST:7480\n',
    );
  });
});
