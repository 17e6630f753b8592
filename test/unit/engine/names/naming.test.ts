import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { hostName } from '../../../../lib/engine/index.js';

// Expected values were computed once outside this code (`printf '%s' 'name/vns/tenant' | sha256sum`,
// prefixes by hand) and are frozen: if one of these changes, every host object gets renamed.
const a = (n: number) => 'a'.repeat(n);
const VECTORS: Array<[name: string, vns: string, tenant: string, expected: string]> = [
  ['nginx', 'default', 'dev', 'nginx-x-default-x-dev'],
  // Parts containing -x- are hashed so the plain form stays injective.
  ['a-x-b', 'c', 't', 'a-x-b-x-c-x-t-5c0b1191ed'],
  ['a', 'b-x-c', 't', 'a-x-b-x-c-x-t-be3b181665'],
  ['a-x-', 'b', 'c', 'a-x--x-b-x-c-7b6aaf6d05'],
  ['x', 'kube-system-x-', 'dev', 'x-x-kube-system-x--x-dev-c7cc01369a'],
  // Exactly 63 characters stays plain; 64 is hashed.
  ['n'.repeat(47), 'default', 'dev', `${'n'.repeat(47)}-x-default-x-dev`],
  ['n'.repeat(48), 'default', 'dev', `${'n'.repeat(48)}-x-d-5b904d2db6`],
  // Long names: 52-character prefix, then the hash.
  [a(60), 'default', 'dev', `${a(52)}-dda284b7c0`],
  ['web', 'team-a', 't'.repeat(63), `web-x-team-a-x-${'t'.repeat(37)}-8d79e2c6e4`],
  // A trailing '-' or '.' at the cut is removed.
  [`${a(51)}-bbbbbbbbbb`, 'ns', 't', `${a(51)}-c9b12df30c`],
  [`${a(51)}.${'c'.repeat(20)}`, 'ns', 't', `${a(51)}-b287941186`],
  // The hash covers UTF-8 bytes.
  ['\u00e9'.repeat(60), 'ns', 't', `${'\u00e9'.repeat(52)}-f43dac06b5`],
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 labels, biased towards '-x-' fragments and lengths around the 63-character limit. */
const labelPart = fc
  .array(fc.constantFrom('a', 'b', 'x', '0', '-', '-x-', 'x-', '-x', 'longer-segment'), {
    minLength: 1,
    maxLength: 30,
  })
  .map((pieces) => pieces.join(''))
  .map((s) =>
    s
      .replace(/^-+|-+$/g, '')
      .slice(0, 63)
      .replace(/-+$/, ''),
  )
  .filter((s) => s.length > 0 && DNS_LABEL.test(s));

describe('hostName', () => {
  it.each(VECTORS)('hostName(%j, %j, %j) is frozen', (name, vns, tenant, expected) => {
    expect(hostName(name, vns, tenant)).toBe(expected);
  });

  it('never exceeds 63 characters', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.string({ maxLength: 100 }),
        fc.string(),
        (n, v, t) => {
          expect(hostName(n, v, t).length).toBeLessThanOrEqual(63);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is a DNS-1123 label whenever its inputs are', () => {
    fc.assert(
      fc.property(labelPart, labelPart, labelPart, (n, v, t) => {
        expect(hostName(n, v, t)).toMatch(DNS_LABEL);
      }),
      { numRuns: 3000 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (n, v, t) => {
        expect(hostName(n, v, t)).toBe(hostName(n, v, t));
      }),
    );
  });

  it('gives distinct inputs distinct outputs over a large sample full of -x- parts', () => {
    const sample = fc.sample(fc.tuple(labelPart, labelPart, labelPart), {
      numRuns: 20000,
      seed: 42,
    });
    const seen = new Map<string, string>();
    for (const [n, v, t] of sample) {
      const input = `${n}/${v}/${t}`;
      const output = hostName(n, v, t);
      const previous = seen.get(output);
      if (previous !== undefined) expect(previous).toBe(input);
      seen.set(output, input);
    }
    expect(seen.size).toBeGreaterThan(5000);
  });

  it('keeps the documented collision pair apart', () => {
    expect(hostName('a-x-b', 'c', 't')).not.toBe(hostName('a', 'b-x-c', 't'));
  });
});
