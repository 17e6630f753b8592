import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  cloneJson,
  JsonDepthError,
  jsonDigest,
  jsonEqual,
  MAX_JSON_DEPTH,
  stableJson,
} from '../../../lib/common/index.js';

describe('stableJson', () => {
  const cases: Array<{ name: string; value: unknown; expected: string }> = [
    { name: 'keys sorted', value: { b: 1, a: 2 }, expected: '{"a":2,"b":1}' },
    {
      name: 'nested keys sorted, array order kept',
      value: { z: [{ y: 1, x: 2 }, 3], a: { d: null, c: 'c' } },
      expected: '{"a":{"c":"c","d":null},"z":[{"x":2,"y":1},3]}',
    },
    { name: 'undefined members dropped', value: { a: undefined, b: 1 }, expected: '{"b":1}' },
    { name: 'null kept', value: { a: null }, expected: '{"a":null}' },
    { name: 'a bare undefined prints as null', value: undefined, expected: 'null' },
    { name: 'strings escaped', value: { 'k"': 'v\n' }, expected: '{"k\\"":"v\\n"}' },
    { name: 'an empty object', value: {}, expected: '{}' },
    { name: 'an empty array', value: [], expected: '[]' },
    { name: 'a number', value: 1.5, expected: '1.5' },
  ];
  it.each(cases)('$name', ({ value, expected }) => {
    expect(stableJson(value)).toBe(expected);
  });

  it('agrees with JSON.parse: it prints valid JSON of the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonEqual(JSON.parse(stableJson(value)), value)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('jsonEqual', () => {
  const cases: Array<{ name: string; a: unknown; b: unknown; expected: boolean }> = [
    { name: 'key order ignored', a: { a: 1, b: 2 }, b: { b: 2, a: 1 }, expected: true },
    {
      name: 'nested key order ignored',
      a: { o: { x: 1, y: [1, { p: 1, q: 2 }] } },
      b: { o: { y: [1, { q: 2, p: 1 }], x: 1 } },
      expected: true,
    },
    { name: 'array order matters', a: [1, 2], b: [2, 1], expected: false },
    { name: 'different values', a: { a: 1 }, b: { a: 2 }, expected: false },
    { name: 'an extra key', a: { a: 1 }, b: { a: 1, b: 1 }, expected: false },
    {
      name: 'an undefined member equals a missing one',
      a: { a: undefined },
      b: {},
      expected: true,
    },
    { name: 'null is not a missing member', a: { a: null }, b: {}, expected: false },
    { name: 'a string is not a number', a: { a: '1' }, b: { a: 1 }, expected: false },
    { name: 'an object is not an array', a: {}, b: [], expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ a, b, expected }) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });

  it('any reordering of an object’s keys is equal to the original', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(jsonEqual(object, reversed)).toBe(true);
        expect(stableJson(object)).toBe(stableJson(reversed));
      }),
      { numRuns: 200 },
    );
  });
});

// jsonEqual walks the values instead of printing them (drift compares every object of every pass);
// it must still be exactly "the printings are equal", odd values included.
describe('jsonEqual is exactly stableJson equality', () => {
  const odd = fc.anything({
    withNullPrototype: true,
    withDate: true,
    withBoxedValues: true,
    withSparseArray: true,
    withObjectString: true,
  });

  it('for any two values, JSON or not (holes, undefined, Dates, boxed values, NaN)', () => {
    fc.assert(
      fc.property(odd, odd, (a, b) => {
        expect(jsonEqual(a, b)).toBe(stableJson(a) === stableJson(b));
      }),
      { numRuns: 3000 },
    );
  });

  it('for an object and a near copy (members added, changed or set to undefined)', () => {
    const members = fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
    );
    fc.assert(
      fc.property(members, members, (a, extra) => {
        const b = { ...a, ...extra };
        const expected = stableJson(a) === stableJson(b);
        expect(jsonEqual(a, b)).toBe(expected);
        expect(jsonEqual(b, a)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  const cases: Array<{ name: string; a: unknown; b: unknown; expected: boolean }> = [
    { name: 'a hole prints like nothing', a: new Array<unknown>(1), b: [], expected: true },
    { name: 'undefined in an array prints as null', a: [undefined], b: [null], expected: true },
    { name: 'NaN prints as null', a: { n: Number.NaN }, b: { n: null }, expected: true },
    { name: '-0 prints as 0', a: -0, b: 0, expected: true },
    { name: 'an undefined member is no member', a: { a: undefined }, b: {}, expected: true },
    { name: 'null is a member', a: { a: null }, b: { a: undefined }, expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ a, b, expected }) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });
});

describe('cloneJson', () => {
  it('copies JSON deeply: equal content, nothing shared', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value);
        expect(copy).toEqual(value);
        expect(stableJson(copy)).toBe(stableJson(value));
        if (typeof value === 'object' && value !== null) expect(copy).not.toBe(value);
      }),
      { numRuns: 500 },
    );
    const value = { a: { b: [1, { c: 'x' }] } };
    const copy = cloneJson(value);
    (copy.a.b[1] as { c: string }).c = 'changed';
    expect(value.a.b[1]).toEqual({ c: 'x' });
  });

  it('keeps a member named __proto__ as a member, never as the prototype', () => {
    const data = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": "b"}') as Record<
      string,
      unknown
    >;
    const copy = cloneJson({ data }).data;
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: string }).polluted).toBeUndefined();
    expect(stableJson(copy)).toBe(stableJson(data));
    expect(jsonEqual(copy, data)).toBe(true);
  });

  it('copies what is not plain JSON as structuredClone does', () => {
    const date = new Date(0);
    const copy = cloneJson({ at: date, map: new Map([['k', 1]]) });
    expect(copy.at).toEqual(date);
    expect(copy.at).not.toBe(date);
    expect(copy.map.get('k')).toBe(1);
    expect(() => cloneJson({ f: () => 1 })).toThrow();
  });
});

/** `{"a":{"a":...1}}` nested `levels` objects deep, as JSON.parse makes it (the apiserver's answer). */
function nested(levels: number, list = false): unknown {
  const open = list ? '[' : '{"a":';
  const close = list ? ']' : '}';
  return JSON.parse(`${open.repeat(levels)}1${close.repeat(levels)}`);
}

// A custom resource that preserves unknown fields may nest 10,000 levels (the apiserver's limit);
// recursing that deep overflowed the stack (`Maximum call stack size exceeded`) and stopped passes.
describe('the JSON helpers recurse no deeper than MAX_JSON_DEPTH', () => {
  const helpers: Array<{ name: string; run: (value: unknown, twin: unknown) => unknown }> = [
    { name: 'stableJson', run: (value) => stableJson(value) },
    { name: 'jsonDigest', run: (value) => jsonDigest(value) },
    { name: 'cloneJson', run: (value) => cloneJson(value) },
    { name: 'jsonEqual', run: (value, twin) => jsonEqual(value, twin) },
  ];
  const depths = [
    { levels: MAX_JSON_DEPTH, list: false, fails: false },
    { levels: MAX_JSON_DEPTH, list: true, fails: false },
    { levels: MAX_JSON_DEPTH + 1, list: false, fails: true },
    { levels: 3_500, list: false, fails: true },
    { levels: 10_000, list: true, fails: true },
  ];
  const cases = helpers.flatMap((h) =>
    depths.map((d) => ({
      ...d,
      ...h,
      title: `${h.name}, ${d.levels} levels of ${d.list ? 'lists' : 'objects'}`,
    })),
  );
  it.each(cases)('$title', ({ run, levels, list, fails }) => {
    // Two separately parsed values, so jsonEqual walks both.
    const value = nested(levels, list);
    const twin = nested(levels, list);
    if (fails) {
      expect(() => run(value, twin)).toThrow(JsonDepthError);
      expect(() => run(value, twin)).toThrow(`more than ${MAX_JSON_DEPTH} levels deep`);
    } else expect(() => run(value, twin)).not.toThrow();
  });

  it('jsonEqual of a deep value and a shallow one answers without walking the deep one', () => {
    expect(jsonEqual(nested(10_000), { a: 2 })).toBe(false);
    expect(jsonEqual({ a: 2 }, nested(10_000, true))).toBe(false);
  });
});
