import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { addressBytes, findOwner, peerOwner, procEndpoint, refuseOtherUser } from './peer-owner.js';

const NOBODY = 65534;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A real server answering each connection with its verdict: `{ owner, refusal }` as JSON. */
async function verdictServer(host: string): Promise<number> {
  const server = createServer((socket) => {
    const refusal = refuseOtherUser(socket);
    socket.end(JSON.stringify({ owner: peerOwner(socket), refusal: refusal ?? null }));
  });
  servers.push(server);
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

/** Connects as this process's own user and reads the verdict. */
async function askAsOwner(host: string, port: number) {
  const socket = connect(port, host);
  let text = '';
  socket.on('data', (d) => (text += d));
  await once(socket, 'end');
  return JSON.parse(text);
}

/** Connects from a process of user `nobody` (runuser) and reads the verdict. */
async function askAsNobody(host: string, port: number) {
  const client = `const s = require('net').connect(${port}, ${JSON.stringify(host)}); let t = '';
    s.on('data', (d) => (t += d)); s.on('end', () => process.stdout.write(t));
    s.on('error', (e) => { console.error(e.message); process.exit(2); });`;
  const child = spawn('runuser', ['-u', 'nobody', '--', process.execPath, '-e', client], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the client as nobody exited ${code}: ${err}`);
  return JSON.parse(out);
}

describe('issue #30 §6: the owner of a loopback peer (Linux, /proc/net/tcp)', () => {
  it('issue #30 §6: a connection from toolgate’s own user is let through, with its uid', async () => {
    const port = await verdictServer('127.0.0.1');
    const verdict = await askAsOwner('127.0.0.1', port);
    expect(verdict.owner).toEqual({ kind: 'uid', uid: process.getuid?.() });
    expect(verdict.refusal).toBeNull();
  });

  it('issue #30 §6: another OS user (nobody) on 127.0.0.1 is refused, the message saying the fix first', async () => {
    const port = await verdictServer('127.0.0.1');
    const verdict = await askAsNobody('127.0.0.1', port);
    expect(verdict.owner).toEqual({ kind: 'uid', uid: NOBODY });
    expect(verdict.refusal).toMatch(
      /^connect as the OS user who runs toolgate .*another user of this machine \(uid 65534\)/,
    );
  });

  it('issue #30 §6: another OS user over IPv6 ::1 (/proc/net/tcp6) is refused; the owner is not', async () => {
    const port = await verdictServer('::1');
    expect((await askAsNobody('::1', port)).owner).toEqual({ kind: 'uid', uid: NOBODY });
    expect((await askAsNobody('::1', port)).refusal).toMatch(/uid 65534/);
    expect((await askAsOwner('::1', port)).refusal).toBeNull();
  });

  it('issue #30 §6: on a dual-stack server an IPv4 client (seen as ::ffff:127.0.0.1) is still told apart', async () => {
    const port = await verdictServer('::');
    expect((await askAsNobody('127.0.0.1', port)).refusal).toMatch(/uid 65534/);
    expect((await askAsOwner('127.0.0.1', port)).refusal).toBeNull();
  });

  it('issue #30 §6: another OS user coming through one of the machine’s own non-loopback addresses is refused', async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
    // The test machine has one (eth0); without it this case would prove nothing.
    expect(own).toBeDefined();
    const port = await verdictServer('0.0.0.0');
    expect((await askAsNobody(own as string, port)).refusal).toMatch(/uid 65534/);
    expect((await askAsOwner(own as string, port)).refusal).toBeNull();
  });

  it('issue #30 §6: a local peer whose socket is gone (reset) cannot be told, and is refused (fail closed)', async () => {
    let resolveVerdict: (v: string | undefined) => void = () => {};
    const verdict = new Promise<string | undefined>((r) => (resolveVerdict = r));
    const server = createServer((socket: Socket) => {
      void socket.remoteAddress; // node remembers the addresses; the client's row is what goes
      socket.on('error', () => {});
      socket.once('close', () => resolveVerdict(refuseOtherUser(socket)));
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    await once(client, 'connect');
    client.resetAndDestroy(); // RST: the client's socket leaves no row (no time-wait)
    expect(await verdict).toMatch(/^connect as the OS user who runs toolgate .*cannot be told/);
  });
});

describe('issue #30 §6: reading /proc/net/tcp rows', () => {
  const header =
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  /** The owner of the row a client at a:p connected to b:q has, in `table` (family 4 or 6). */
  const owner = (table: string, family: 4 | 6, le: boolean, a: string, p: number, b: string, q: number) => {
    const theirs = procEndpoint(addressBytes(a) ?? [], p, family, le);
    const ours = procEndpoint(addressBytes(b) ?? [], q, family, le);
    return theirs && ours ? findOwner(`${header}${table}`, theirs, ours) : undefined;
  };

  it('issue #30 §6: IPv4 words are host byte order (little-endian here), ports are four hex digits', () => {
    const row =
      '   1: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 4242 1\n';
    expect(owner(row, 4, true, '127.0.0.1', 0xd431, '127.0.0.1', 8080)).toBe(NOBODY);
    expect(owner(row, 4, true, '127.0.0.1', 0xd432, '127.0.0.1', 8080)).toBeUndefined();
    expect(owner(row, 4, true, '127.0.0.1', 8080, '127.0.0.1', 0xd431)).toBeUndefined(); // ends swapped
    const big = '   1: 7F000001:D431 7F000001:1F90 01 0:0 0:0 0 7 0 1\n';
    expect(owner(big, 4, false, '127.0.0.1', 0xd431, '127.0.0.1', 8080)).toBe(7);
    // A port below 0x1000 is still four digits.
    expect(
      owner(
        '   1: 0100007F:0050 0100007F:01BB 01 0:0 0:0 0 9 0 1\n',
        4,
        true,
        '127.0.0.1',
        80,
        '127.0.0.1',
        443,
      ),
    ).toBe(9);
  });

  it('issue #30 §6: tcp6 rows, IPv4-mapped addresses and ::1 compare with node’s spellings', () => {
    const rows =
      '   0: 0000000000000000FFFF00000100007F:9C40 0000000000000000FFFF00000100007F:0050 01 0:0 0:0 0 1000 0 5 1\n' +
      '   1: 00000000000000000000000001000000:9C41 00000000000000000000000001000000:0050 01 0:0 0:0 0 1001 0 6 1\n';
    expect(owner(rows, 6, true, '::ffff:127.0.0.1', 0x9c40, '127.0.0.1', 80)).toBe(1000);
    expect(owner(rows, 6, true, '::1', 0x9c41, '0:0:0:0:0:0:0:1', 80)).toBe(1001);
    expect(procEndpoint(addressBytes('::1') ?? [], 80, 4, true)).toBeUndefined(); // not in tcp
  });

  it('issue #30 §6: a time-wait row (its uid column is 0, whoever owned it) is no owner; the live row after it is', () => {
    const rows =
      '   1: 0100007F:D431 0100007F:1F90 06 0:0 0:0 0 0 0 0 1\n' +
      '   2: 0100007F:D431 0100007F:1F90 01 0:0 0:0 0 65534 0 7 1\n';
    expect(owner(rows.split('\n')[0] ?? '', 4, true, '127.0.0.1', 0xd431, '127.0.0.1', 8080)).toBeUndefined();
    expect(owner(rows, 4, true, '127.0.0.1', 0xd431, '127.0.0.1', 8080)).toBe(NOBODY);
  });

  it('issue #30 §6: a lookup among 20,000 rows of another user finds the one row by its exact endpoints (no row is parsed but it)', () => {
    let rows = '';
    for (let i = 0; i < 20_000; i++)
      rows += `${String(i).padStart(5)}: 0100007F:${(10_000 + i).toString(16).toUpperCase().padStart(4, '0')} 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 ${i} 1\n`;
    rows +=
      '20000: 0100007F:EA60 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 1 1\n';
    expect(owner(rows, 4, true, '127.0.0.1', 0xea60, '127.0.0.1', 8080)).toBe(0);
    expect(owner(rows, 4, true, '127.0.0.1', 10_005, '127.0.0.1', 8080)).toBe(NOBODY);
  });
});
