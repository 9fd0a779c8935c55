import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forbiddenRange } from './classify-address.js';

const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`;
const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
/** Every IPv6 form that carries the IPv4 address a.b.c.d. */
const carriers = (a: number, b: number, c: number, d: number) => [
  `::ffff:${v4(a, b, c, d)}`,
  `::ffff:${hex(a, b)}:${hex(c, d)}`,
  `::ffff:0:${hex(a, b)}:${hex(c, d)}`,
  `64:ff9b::${hex(a, b)}:${hex(c, d)}`,
  `2002:${hex(a, b)}:${hex(c, d)}::1`,
];

describe('forbiddenRange (issue #15 SSRF guard)', () => {
  it('Property: an address in a private, loopback, link-local, CGNAT, multicast or reserved IPv4 block is refused, as itself and in every IPv6 form that carries it', () => {
    const blocks: [number, number, number][] = [
      [10, 0, 8],
      [127, 0, 8],
      [169, 254, 16],
      [172, 16, 12],
      [192, 168, 16],
      [100, 64, 10],
      [0, 0, 8],
      [224, 0, 4],
      [240, 0, 4],
      [198, 18, 15],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...blocks), fc.nat(), ([a, b, bits], n) => {
        const base = ((a << 24) | (b << 16)) >>> 0;
        const host = n % 2 ** (32 - bits);
        const x = (base + host) >>> 0;
        const parts = [x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255] as const;
        expect(forbiddenRange(v4(...parts))).toBeDefined();
        for (const form of carriers(...parts)) expect(forbiddenRange(form), form).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('public unicast addresses pass, in IPv4 and IPv6, and through the forms that carry a public IPv4', () => {
    for (const ok of [
      '8.8.8.8',
      '93.184.216.34',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4007:80b::200e',
    ])
      expect(forbiddenRange(ok), ok).toBeUndefined();
    for (const form of carriers(8, 8, 8, 8)) expect(forbiddenRange(form), form).toBeUndefined();
  });

  it('IPv6 special ranges and anything unparsable are refused', () => {
    for (const bad of [
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '2001::1',
      '64:ff9b:1::a00:1',
      '100::1',
      // IPv4-compatible (::/96, deprecated): ::7f00:1 reaches 127.0.0.1 on some stacks
      '::7f00:1',
      '::127.0.0.1',
      '::8.8.8.8',
      // outside global unicast 2000::/3, however ipaddr.js names it
      '4000::1',
      'e000::1',
      'localhost',
      '',
      '1.2.3',
      '[::1]',
    ])
      expect(forbiddenRange(bad), bad).toBeDefined();
  });
});
