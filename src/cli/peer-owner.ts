import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6, type Socket } from 'node:net';
import { endianness, networkInterfaces } from 'node:os';

/**
 * Who owns the other end of a TCP connection made from this machine. TCP has no SO_PEERCRED, but on
 * Linux the client's own socket is a row of /proc/net/tcp (or tcp6) whose local address is our
 * socket's remote one and whose remote address is our local one; its `uid` column is the OS user
 * that created it. Elsewhere (macOS, BSD, Windows) the OS does not tell an unprivileged process.
 */
export type PeerOwner =
  /** The client's socket was found: its owner. */
  | { kind: 'uid'; uid: number }
  /** The peer is another machine (its address is none of ours): the OS cannot tell, the token guards. */
  | { kind: 'remote' }
  /** Linux, a peer on this machine, and no row for it (closed already, /proc unreadable): refuse. */
  | { kind: 'unknown'; why: string }
  /** Not Linux (or no process uid): the OS cannot tell. */
  | { kind: 'unsupported' };

const TIME_WAIT = '06'; // a time-wait row keeps no owner: its uid column is 0, which would pass for root

/** The 16 bytes of an address as node prints it (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`, `fe80::1%lo`). */
export function addressBytes(address: string): number[] | undefined {
  const plain = address.replace(/%.*$/, '');
  if (isIPv4(plain)) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...plain.split('.').map(Number)];
  if (!isIPv6(plain)) return undefined;
  let groups = plain.split(':');
  const last = groups[groups.length - 1] as string;
  if (isIPv4(last)) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    groups = [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  }
  const gap = groups.indexOf('');
  if (gap !== -1) {
    const head = groups.slice(0, gap).filter(Boolean);
    const tail = groups.slice(gap + 1).filter(Boolean);
    groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  }
  if (groups.length !== 8) return undefined;
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** Whether an address is one of this machine's (loopback, or an interface's): its peer is local. */
function isOwnAddress(bytes: number[]): boolean {
  const mapped = bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff));
  if (mapped && bytes[12] === 127) return true; // 127.0.0.0/8
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return true; // ::1
  const key = bytes.join('.');
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      if (addressBytes(info.address)?.join('.') === key) return true;
    }
  }
  return false;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * The field /proc/net/tcp (family 4) or tcp6 (family 6) prints for an endpoint: the address as
 * 32-bit words in host byte order, upper-case hex, then the port as four hex digits. Undefined when
 * the address cannot be in that file (an IPv6 address in tcp).
 */
export function procEndpoint(
  bytes: number[],
  port: number,
  family: 4 | 6,
  littleEndian: boolean,
): string | undefined {
  const mapped = bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff));
  if (family === 4 && !mapped) return undefined;
  const used = family === 4 ? bytes.slice(12) : bytes;
  let hex = '';
  for (let w = 0; w < used.length; w += 4) {
    const word = used.slice(w, w + 4);
    for (const b of littleEndian ? word.reverse() : word) hex += b.toString(16).padStart(2, '0');
  }
  return `${hex}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}

/**
 * The owner of the row "local → remote" in /proc/net/tcp-style text, found by searching for that
 * exact pair rather than parsing every row: another user holding thousands of connections must
 * not make each lookup slow (the check runs for every new connection). Time-wait rows are skipped.
 */
export function findOwner(table: string, local: string, remote: string): number | undefined {
  const needle = ` ${local} ${remote} `;
  for (let at = table.indexOf(needle); at !== -1; at = table.indexOf(needle, at + 1)) {
    const lineEnd = table.indexOf('\n', at);
    const f = table
      .slice(at, lineEnd === -1 ? undefined : lineEnd)
      .trim()
      .split(/\s+/);
    // local rem st tx:rx tr:when retrnsmt uid ...
    if (f.length < 7 || f[2] === TIME_WAIT) continue;
    const uid = Number(f[6]);
    if (Number.isInteger(uid)) return uid;
  }
  return undefined;
}

/** Who owns the client end of `socket` (a connection accepted by a server in this process). */
export function peerOwner(socket: Socket): PeerOwner {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return { kind: 'unsupported' };
  const remote = addressBytes(socket.remoteAddress ?? '');
  const local = addressBytes(socket.localAddress ?? '');
  if (!remote || !local || socket.remotePort === undefined || socket.localPort === undefined) {
    return { kind: 'unknown', why: 'the connection has no addresses (closed already)' };
  }
  const littleEndian = endianness() === 'LE';
  let readable = false;
  for (const [file, family] of [
    ['/proc/net/tcp', 4],
    ['/proc/net/tcp6', 6],
  ] as const) {
    // The client's row: its local end is our remote one, its remote end our local one.
    const theirs = procEndpoint(remote, socket.remotePort, family, littleEndian);
    const ours = procEndpoint(local, socket.localPort, family, littleEndian);
    if (!theirs || !ours) continue;
    const table = read(file);
    readable ||= table !== undefined;
    const uid = table === undefined ? undefined : findOwner(table, theirs, ours);
    if (uid !== undefined) return { kind: 'uid', uid };
  }
  if (!isOwnAddress(remote)) return { kind: 'remote' };
  return {
    kind: 'unknown',
    why: readable ? 'its socket is not in /proc/net/tcp (it closed already)' : '/proc/net/tcp cannot be read',
  };
}

const verdicts = new WeakMap<Socket, string | undefined>();

/**
 * Refuses a connection from another OS user of this machine: returns the refusal (fix first), or
 * undefined when the peer is this process's own user, another machine, or the OS cannot tell (not
 * Linux). A local peer whose owner cannot be found is refused (fail closed). The verdict is taken
 * once per connection and remembered: call it on the server's 'connection' event too, while the
 * client's socket is surely open, and again per request (answered from memory).
 */
export function refuseOtherUser(socket: Socket): string | undefined {
  if (verdicts.has(socket)) return verdicts.get(socket);
  const owner = peerOwner(socket);
  const self = process.getuid?.();
  let verdict: string | undefined;
  if (owner.kind === 'uid' && owner.uid !== self) {
    verdict = `connect as the OS user who runs toolgate (uid ${self}): this connection comes from another user of this machine (uid ${owner.uid}), and only toolgate's owner may drive it or answer its approvals`;
  } else if (owner.kind === 'unknown') {
    verdict = `connect as the OS user who runs toolgate (uid ${self}): the owner of this local connection cannot be told (${owner.why}), so it is refused`;
  }
  verdicts.set(socket, verdict);
  return verdict;
}
