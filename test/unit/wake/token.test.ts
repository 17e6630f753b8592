import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bearerToken, MAX_TOKEN_LENGTH, tokensEqual } from '../../../lib/wake/index.js';

describe('bearerToken', () => {
  const cases: Array<{ header: string | undefined; expected: string | undefined }> = [
    { header: 'Bearer abc', expected: 'abc' },
    { header: 'bearer abc', expected: 'abc' },
    { header: 'BEARER  abc ', expected: 'abc' },
    { header: undefined, expected: undefined },
    { header: '', expected: undefined },
    { header: 'abc', expected: undefined },
    { header: 'Basic abc', expected: undefined },
    { header: 'Bearer', expected: undefined },
    { header: 'Bearer a b', expected: undefined },
    { header: 'Bearer ab\tc', expected: undefined },
    { header: `Bearer ${'a'.repeat(MAX_TOKEN_LENGTH)}`, expected: 'a'.repeat(MAX_TOKEN_LENGTH) },
    { header: `Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`, expected: undefined },
  ];
  it.each(cases)('$header', ({ header, expected }) => {
    expect(bearerToken(header)).toBe(expected);
  });
});

describe('tokensEqual', () => {
  it('is string equality, for any two strings', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        expect(tokensEqual(a, b)).toBe(a === b);
        expect(tokensEqual(a, a)).toBe(true);
      }),
    );
  });

  it('an empty expected token matches nothing, not even an empty one', () => {
    expect(tokensEqual('', '')).toBe(false);
    expect(tokensEqual('x', '')).toBe(false);
  });
});
