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

/** A TCP endpoint: 16 address bytes (IPv4 as IPv4-mapped IPv6, so both files compare alike) and a port. */
type Endpoint = string;

const TIME_WAIT = '06'; // a time-wait row keeps no owner: its uid column is 0, which would pass for root

/** The address bytes of a /proc/net/tcp{,6} field: 32-bit words printed in host byte order. */
function procAddressBytes(hex: string, littleEndian: boolean): number[] | undefined {
  if (!/^(?:[0-9A-Fa-f]{8}){1,4}$/.test(hex) || (hex.length !== 8 && hex.length !== 32)) return undefined;
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(w + i, w + i + 2), 16));
    bytes.push(...(littleEndian ? word.reverse() : word));
  }
  return bytes.length === 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytes] : bytes;
}

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

const endpoint = (bytes: number[], port: number): Endpoint =>
  `${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}:${port}`;

/**
 * The owners of the sockets in /proc/net/tcp-style text, by "local endpoint → remote endpoint".
 * Exported for the parser's tests; time-wait rows are left out.
 */
export function socketOwners(table: string, littleEndian = endianness() === 'LE'): Map<string, number> {
  const owners = new Map<string, number>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid ...
    if (f.length < 8 || f[3] === TIME_WAIT) continue;
    const [local, remote, uid] = [f[1], f[2], Number(f[7])];
    const parse = (field: string | undefined) => {
      const [hex, port] = (field ?? '').split(':');
      const bytes = procAddressBytes(hex ?? '', littleEndian);
      return bytes && port ? endpoint(bytes, Number.parseInt(port, 16)) : undefined;
    };
    const l = parse(local);
    const r = parse(remote);
    if (l && r && Number.isInteger(uid)) owners.set(`${l}>${r}`, uid);
  }
  return owners;
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

/** Who owns the client end of `socket` (a connection accepted by a server in this process). */
export function peerOwner(socket: Socket): PeerOwner {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return { kind: 'unsupported' };
  const remote = addressBytes(socket.remoteAddress ?? '');
  const local = addressBytes(socket.localAddress ?? '');
  if (!remote || !local || socket.remotePort === undefined || socket.localPort === undefined) {
    return { kind: 'unknown', why: 'the connection has no addresses (closed already)' };
  }
  // The client's row: its local end is our remote one, its remote end our local one.
  const key = `${endpoint(remote, socket.remotePort)}>${endpoint(local, socket.localPort)}`;
  let readable = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const table = read(file);
    readable ||= table !== undefined;
    const uid = table === undefined ? undefined : socketOwners(table).get(key);
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
