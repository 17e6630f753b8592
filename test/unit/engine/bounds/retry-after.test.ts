/**
 * What a 429 means for the request it answered (`bounds/retry-after.ts`): wait as `Retry-After`
 * says when the wait fits the request's deadline, else leave it to the next pass, no earlier than
 * the server asked; and the plain words Decisions and the pass say it in.
 */
import { describe, expect, it } from '@jest/globals';
import {
  askedText,
  MAX_RETRY_WAITS,
  type RetryVerdict,
  retryVerdict,
  type ThrottledAnswer,
  waitedText,
} from '../../../../lib/engine/bounds/retry-after.js';

const deadline = (atMs: number) => ({ atMs, what: 'the pass deadline' });

describe('retryVerdict', () => {
  const cases: Array<{ name: string; answer: ThrottledAnswer; expected: RetryVerdict }> = [
    {
      name: 'a wait that ends a second before the deadline: wait',
      answer: { retryAfterSeconds: 3, nowMs: 10_000, deadline: deadline(14_000), waits: 0 },
      expected: { wait: true, waitMs: 3_000 },
    },
    {
      name: 'a wait that leaves no second for the request: next pass',
      answer: { retryAfterSeconds: 3, nowMs: 10_000, deadline: deadline(13_999), waits: 0 },
      expected: {
        wait: false,
        why: 'longer than the 3 s left before the pass deadline',
        notBeforeMs: 13_000,
      },
    },
    {
      name: 'Retry-After: 0 is sent again at once',
      answer: { retryAfterSeconds: 0, nowMs: 10_000, deadline: deadline(12_000), waits: 0 },
      expected: { wait: true, waitMs: 0 },
    },
    {
      name: 'no Retry-After: the server did not say when, so not this pass',
      answer: { retryAfterSeconds: undefined, nowMs: 0, deadline: undefined, waits: 0 },
      expected: { wait: false },
    },
    {
      name: 'no deadline: a minute at most',
      answer: { retryAfterSeconds: 60, nowMs: 0, deadline: undefined, waits: 0 },
      expected: { wait: true, waitMs: 60_000 },
    },
    {
      name: 'no deadline, more than a minute: next pass',
      answer: { retryAfterSeconds: 61, nowMs: 0, deadline: undefined, waits: 0 },
      expected: { wait: false, why: 'longer than a pass waits (60 s)', notBeforeMs: 61_000 },
    },
    {
      name: `after ${MAX_RETRY_WAITS} waits the request is the next pass's`,
      answer: { retryAfterSeconds: 1, nowMs: 0, deadline: undefined, waits: MAX_RETRY_WAITS },
      expected: { wait: false, why: 'for the 6th time', notBeforeMs: 1_000 },
    },
    {
      name: 'a deadline already past',
      answer: { retryAfterSeconds: 1, nowMs: 20_000, deadline: deadline(10_000), waits: 0 },
      expected: {
        wait: false,
        why: 'longer than the 0 s left before the pass deadline',
        notBeforeMs: 21_000,
      },
    },
  ];
  it.each(cases)('$name', ({ answer, expected }) => {
    expect(retryVerdict(answer)).toEqual(expected);
  });
});

describe('the words', () => {
  it('names the cluster, the wait and the status', () => {
    expect(askedText('host', 3)).toBe(
      'the host apiserver asked to retry after 3 s (429 Too Many Requests)',
    );
    expect(askedText('tenant', undefined)).toBe(
      'the tenant apiserver answered 429 Too Many Requests without a Retry-After',
    );
    expect(waitedText('host', [3])).toBe(
      'the host apiserver asked to retry after 3 s (429 Too Many Requests); sent again after waiting as asked',
    );
    expect(waitedText('host', [1, 2])).toMatch(/retry after 1 s, then 2 s \(429/);
  });
});
