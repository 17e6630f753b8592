import { describe, expect, it } from '@jest/globals';
import { isRecord } from '../../../lib/common/index.js';

describe('isRecord', () => {
  const cases: Array<{ name: string; value: unknown; expected: boolean }> = [
    { name: 'an empty object', value: {}, expected: true },
    { name: 'an object with fields', value: { a: 1 }, expected: true },
    { name: 'an object without a prototype', value: Object.create(null), expected: true },
    { name: 'null', value: null, expected: false },
    { name: 'undefined', value: undefined, expected: false },
    { name: 'an array', value: [], expected: false },
    { name: 'an array of objects', value: [{}], expected: false },
    { name: 'a string', value: '{}', expected: false },
    { name: 'a number', value: 0, expected: false },
    { name: 'a boolean', value: true, expected: false },
    { name: 'a function', value: () => ({}), expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ value, expected }) => {
    expect(isRecord(value)).toBe(expected);
  });
});
