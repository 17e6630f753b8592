import { describe, expect, it } from '@jest/globals';
import { errorMessage, plural } from '../../../lib/common/index.js';

describe('plural', () => {
  const cases: Array<{ name: string; n: number; word: string; many?: string; expected: string }> = [
    { name: 'zero is plural', n: 0, word: 'write', expected: '0 writes' },
    { name: 'one is singular', n: 1, word: 'write', expected: '1 write' },
    { name: 'two is plural', n: 2, word: 'write', expected: '2 writes' },
    { name: 'an irregular plural', n: 3, word: 'entry', many: 'entries', expected: '3 entries' },
    { name: 'an irregular singular', n: 1, word: 'entry', many: 'entries', expected: '1 entry' },
  ];
  it.each(cases)('$name: $expected', ({ n, word, many, expected }) => {
    expect(many === undefined ? plural(n, word) : plural(n, word, many)).toBe(expected);
  });
});

describe('errorMessage', () => {
  class Custom extends Error {}
  const cases: Array<{ name: string; error: unknown; expected: string }> = [
    { name: 'an Error', error: new Error('it broke'), expected: 'it broke' },
    { name: 'an Error subclass', error: new Custom('custom'), expected: 'custom' },
    { name: 'a string', error: 'plain words', expected: 'plain words' },
    { name: 'an object is never printed', error: { secret: 'x' }, expected: 'unknown error' },
    { name: 'undefined', error: undefined, expected: 'unknown error' },
    { name: 'a number', error: 42, expected: 'unknown error' },
  ];
  it.each(cases)('$name', ({ error, expected }) => {
    expect(errorMessage(error)).toBe(expected);
  });
});
