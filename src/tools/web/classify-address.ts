import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv4 ranges ipaddr.js calls "unicast" that are still no place for a fetch: documentation,
 * benchmarking and IETF-assignment blocks (the others it names itself: private, loopback, …).
 */
const EXTRA_V4: readonly [string, string][] = [
  ['0.0.0.0/8', 'this network'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['240.0.0.0/4', 'reserved'],
];
const EXTRA_V4_PARSED = EXTRA_V4.map(([cidr, name]) => [ipaddr.IPv4.parseCIDR(cidr), name] as const);
/** Global unicast: the only IPv6 space with public hosts. */
const GLOBAL_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const LOCAL_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

/** The IPv4 address in the last 32 bits of an IPv6 address (mapped, translated, NAT64 forms). */
function lastFour(ip: ipaddr.IPv6): ipaddr.IPv4 {
  const p = ip.parts;
  const [a, b] = [p[6] as number, p[7] as number];
  return new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]);
}

function dottedTailToHex(v6: string): string {
  return v6.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => {
    const hex = (x: string, y: string) => ((Number(x) << 8) | Number(y)).toString(16);
    return `${hex(a, b)}:${hex(c, d)}`;
  });
}

function classifyV4(ip: ipaddr.IPv4): string | undefined {
  const range = ip.range();
  if (range !== 'unicast') return range;
  for (const [cidr, name] of EXTRA_V4_PARSED) if (ip.match(cidr)) return name;
  return undefined;
}

/**
 * Why `address` may not be fetched (the name of its range), or undefined for a public unicast
 * address. Allow only what is known to be public: anything unparsable or special is refused.
 * IPv6 forms that carry an IPv4 address (mapped, IPv4-translated, NAT64 64:ff9b::/96, 6to4) are
 * judged by that address; Teredo and local-use NAT64 (64:ff9b:1::/48), whose embedded address
 * cannot be trusted or found, are refused outright. Any other IPv6 address outside global unicast
 * (2000::/3) is refused too: ::7f00:1 (the deprecated IPv4-compatible ::/96) reaches 127.0.0.1 on
 * some stacks, and nothing public lives there.
 */
export function forbiddenRange(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only the canonical forms (what DNS and the URL parser give): '1.2.3' or '0x7f.1' are not judged.
  if (isIP(bare) === 0) return 'not an IP address';
  // ipaddr.js reads '::8.8.8.8' as ::ffff:8.8.8.8; the stack connects to ::808:808. Spell the
  // dotted tail as hex first so the address judged is the address connected to.
  const ip = ipaddr.parse(isIP(bare) === 6 ? dottedTailToHex(bare) : bare);
  if (ip.kind() === 'ipv4') return classifyV4(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  if (v6.match(LOCAL_NAT64)) return 'local-use NAT64';
  const range = v6.range();
  switch (range) {
    case 'unicast':
      return v6.match(GLOBAL_V6) ? undefined : 'outside IPv6 global unicast (2000::/3)';
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052': {
      const inner = classifyV4(lastFour(v6));
      return inner === undefined ? undefined : `${inner} (as IPv6 ${range})`;
    }
    case '6to4': {
      const p = v6.parts;
      const [a, b] = [p[1] as number, p[2] as number];
      const inner = classifyV4(new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]));
      return inner === undefined ? undefined : `${inner} (as IPv6 6to4)`;
    }
    default:
      return range;
  }
}
