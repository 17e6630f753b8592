/**
 * Address blocks and addresses, IPv4 and IPv6: containment agrees with integer arithmetic, one
 * address has one spelling, and anything that is not an address or a block is refused, never
 * thrown on.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addressWithin,
  blockWithin,
  canonicalAddress,
  cidrContains,
  parseAddress,
  parseCidr,
} from '../../../../lib/engine/policy/cidr.js';

const v4 = fc.bigInt({ min: 0n, max: 2n ** 32n - 1n });
const v6 = fc.bigInt({ min: 0n, max: 2n ** 128n - 1n });

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
}

/** IPv6 text: the eight groups, with the longest zero run compressed or not. */
function v6Text(value: bigint, compress: boolean): string {
  const groups = [...Array(8).keys()].map((i) =>
    ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
  );
  if (!compress) return groups.join(':');
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; i += 1) {
    let j = i;
    while (j < 8 && groups[j] === '0') j += 1;
    if (j - i > best.length) best = { at: i, length: j - i };
  }
  if (best.length < 2) return groups.join(':');
  const head = groups.slice(0, best.at).join(':');
  const tail = groups.slice(best.at + best.length).join(':');
  return `${head}::${tail}`;
}

/** Whether `value` lies in the block of `network`/`prefix` in a space of `width` bits. */
function inside(value: bigint, network: bigint, prefix: number, width: number): boolean {
  const shift = BigInt(width - prefix);
  return value >> shift === network >> shift;
}

describe('parseAddress and canonicalAddress', () => {
  it('read back what IPv4 and IPv6 texts encode, whatever the spelling', () => {
    fc.assert(
      fc.property(v4, (value) => {
        expect(parseAddress(v4Text(value))).toEqual({ family: 4, value });
        expect(canonicalAddress(v4Text(value))).toBe(v4Text(value));
      }),
    );
    fc.assert(
      fc.property(v6, fc.boolean(), (value, upper) => {
        const long = v6Text(value, false);
        const short = v6Text(value, true);
        const spelt = upper ? short.toUpperCase() : short;
        expect(parseAddress(spelt)).toEqual({ family: 6, value });
        expect(canonicalAddress(spelt)).toBe(long);
        expect(canonicalAddress(long)).toBe(long);
      }),
    );
  });

  it('an IPv4 tail in IPv6 is the same address', () => {
    expect(canonicalAddress('::ffff:10.1.2.3')).toBe(canonicalAddress('::ffff:a01:203'));
  });

  it.each([
    '',
    ' 10.0.0.1',
    '10.0.0.1 ',
    '010.0.0.1',
    '10.0.0.256',
    '10.0.0',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    'fe80::1%eth0',
    'db.example.com',
    '10.0.0.0/8',
  ])('%j is not an address', (text) => {
    expect(parseAddress(text)).toBeUndefined();
    expect(canonicalAddress(text)).toBeUndefined();
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseAddress(text);
        parseCidr(text);
        addressWithin(text, []);
        blockWithin(text, []);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...'0123456789abcdef:.%/'.split('')), { maxLength: 45 }),
        (chars) => {
          const text = chars.join('');
          parseAddress(text);
          parseCidr(text);
        },
      ),
    );
  });
});

describe('parseCidr and cidrContains', () => {
  it('an IPv4 block holds exactly the addresses sharing its prefix', () => {
    fc.assert(
      fc.property(v4, fc.integer({ min: 0, max: 32 }), v4, (base, prefix, probe) => {
        const cidr = parseCidr(`${v4Text(base)}/${prefix}`);
        expect(cidr).toMatchObject({ family: 4, prefix });
        if (!cidr) return;
        expect(cidrContains(cidr, v4Text(probe))).toBe(inside(probe, base, prefix, 32));
        expect(cidrContains(cidr, v4Text(base))).toBe(true);
      }),
    );
  });

  it('an IPv6 block holds exactly the addresses sharing its prefix', () => {
    fc.assert(
      fc.property(v6, fc.integer({ min: 0, max: 128 }), v6, (base, prefix, probe) => {
        const cidr = parseCidr(`${v6Text(base, true)}/${prefix}`);
        expect(cidr).toMatchObject({ family: 6, prefix });
        if (!cidr) return;
        expect(cidrContains(cidr, v6Text(probe, true))).toBe(inside(probe, base, prefix, 128));
        expect(cidrContains(cidr, v6Text(base, false))).toBe(true);
      }),
    );
  });

  it('a family never holds an address of the other', () => {
    fc.assert(
      fc.property(v4, v6, fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
        const four = parseCidr(`${v4Text(a)}/${prefix}`);
        const six = parseCidr(`${v6Text(b, true)}/${prefix}`);
        if (!four || !six) throw new Error('unparsed');
        expect(cidrContains(four, v6Text(b, true))).toBe(false);
        expect(cidrContains(six, v4Text(a))).toBe(false);
      }),
    );
  });

  it('a bare address is its own /32 or /128', () => {
    expect(parseCidr('10.1.2.3')).toMatchObject({ prefix: 32 });
    expect(parseCidr('2001:db8::1')).toMatchObject({ prefix: 128 });
    expect(
      addressWithin(
        '10.1.2.3',
        [parseCidr('10.1.2.3')].filter((c) => c !== undefined),
      ),
    ).toBe(true);
  });

  it.each([
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/ 8',
    '10.0.0.0/0x8',
    '10.0.0.0/1e1',
    '10.0.0.0/8/8',
    '2001:db8::/129',
    'fe80::/10%eth0',
    '/8',
    'example.com/8',
  ])('%j is not a block', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });
});

describe('blockWithin and addressWithin', () => {
  it('a block lies within another exactly when it is as long and shares its prefix', () => {
    fc.assert(
      fc.property(
        v4,
        fc.integer({ min: 0, max: 32 }),
        v4,
        fc.integer({ min: 0, max: 32 }),
        (outer, outerPrefix, inner, innerPrefix) => {
          const allowed = [parseCidr(`${v4Text(outer)}/${outerPrefix}`)].filter(
            (c) => c !== undefined,
          );
          const expected = outerPrefix <= innerPrefix && inside(inner, outer, outerPrefix, 32);
          expect(blockWithin(`${v4Text(inner)}/${innerPrefix}`, allowed)).toBe(expected);
        },
      ),
    );
  });

  it('an address is within a list when one block holds it; an empty list holds nothing', () => {
    const allowed = ['10.0.0.0/8', '2001:db8::/32'].map((t) => parseCidr(t)).filter((c) => !!c);
    expect(addressWithin('10.9.8.7', allowed)).toBe(true);
    expect(addressWithin('2001:db8:1::1', allowed)).toBe(true);
    expect(addressWithin('11.0.0.1', allowed)).toBe(false);
    expect(addressWithin('10.9.8.7', [])).toBe(false);
    expect(addressWithin('not-an-address', allowed)).toBe(false);
  });
});
