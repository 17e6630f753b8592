import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { jsonEqual, stableJson } from '../../../lib/common/index.js';

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
