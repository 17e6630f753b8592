/**
 * Budget: effectiveBudget's defaults and clamping, and PassBounds (the write budget, the deadline
 * latched when first seen, backing off on 429, sharing fewer writes than kinds across passes). The
 * pass as a whole under its bounds is tested in `test/unit/engine/pass/` (pass-bounds,
 * pass-failures, pass-dry-run, pass-status).
 */
import { describe, expect, it } from '@jest/globals';
import {
  type Budget,
  DEFAULT_BUDGET,
  effectiveBudget,
  PassBounds,
} from '../../../../lib/engine/bounds/budget.js';
import { ClusterError } from '../../../../lib/ports/index.js';

describe('effectiveBudget', () => {
  const cases: Array<{ name: string; partial: Partial<Budget> | undefined; expected: Budget }> = [
    { name: 'nothing given', partial: undefined, expected: { pageSize: 500, concurrency: 8 } },
    { name: 'an empty budget', partial: {}, expected: { pageSize: 500, concurrency: 8 } },
    {
      name: 'explicit undefined means the default',
      partial: { pageSize: undefined, concurrency: undefined, maxWrites: undefined },
      expected: { pageSize: 500, concurrency: 8 },
    },
    {
      name: 'values given are kept',
      partial: { pageSize: 50, concurrency: 2, maxWrites: 10, deadline: 1_234 },
      expected: { pageSize: 50, concurrency: 2, maxWrites: 10, deadline: 1_234 },
    },
    {
      name: 'zero page size and concurrency clamp to 1',
      partial: { pageSize: 0, concurrency: 0 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'negative page size and concurrency clamp to 1',
      partial: { pageSize: -5, concurrency: -1 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'fractions round down',
      partial: { pageSize: 2.9, concurrency: 3.5, maxWrites: 4.99 },
      expected: { pageSize: 2, concurrency: 3, maxWrites: 4 },
    },
    {
      name: 'a fraction below 1 clamps to 1',
      partial: { pageSize: 0.5, concurrency: 0.2 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'non-finite page size and concurrency mean the default',
      partial: { pageSize: Number.NaN, concurrency: Number.POSITIVE_INFINITY },
      expected: { pageSize: 500, concurrency: 8 },
    },
    {
      name: 'a write budget of 0 is kept (no writes at all)',
      partial: { maxWrites: 0 },
      expected: { pageSize: 500, concurrency: 8, maxWrites: 0 },
    },
    {
      name: 'a negative write budget clamps to 0',
      partial: { maxWrites: -3 },
      expected: { pageSize: 500, concurrency: 8, maxWrites: 0 },
    },
    {
      name: 'a deadline of 0 is kept',
      partial: { deadline: 0 },
      expected: { pageSize: 500, concurrency: 8, deadline: 0 },
    },
  ];
  it.each(cases)('$name', ({ partial, expected }) => {
    expect(effectiveBudget(partial)).toEqual(expected);
  });

  it('the defaults are frozen and never shared with a result', () => {
    expect(Object.isFrozen(DEFAULT_BUDGET)).toBe(true);
    const budget = effectiveBudget();
    budget.pageSize = 1;
    expect(effectiveBudget().pageSize).toBe(500);
  });
});

describe('PassBounds', () => {
  const DEADLINE = Date.parse('2030-01-01T00:01:00.000Z');

  function bounds(budget: Partial<Budget> = {}, start = DEADLINE - 60_000) {
    const clock = { time: start, now: () => clock.time };
    return { clock, bounds: new PassBounds(effectiveBudget(budget), clock) };
  }

  const writeCases: Array<{
    name: string;
    maxWrites: number | undefined;
    attempts: number;
    expectedGranted: boolean[];
    expectedReason: string | undefined;
  }> = [
    {
      name: 'no write budget grants every write',
      maxWrites: undefined,
      attempts: 5,
      expectedGranted: [true, true, true, true, true],
      expectedReason: undefined,
    },
    {
      name: 'a budget of 2 grants 2, then refuses',
      maxWrites: 2,
      attempts: 4,
      expectedGranted: [true, true, false, false],
      expectedReason: 'the write budget of 2 writes was spent',
    },
    {
      name: 'a budget of 1 speaks in the singular',
      maxWrites: 1,
      attempts: 2,
      expectedGranted: [true, false],
      expectedReason: 'the write budget of 1 write was spent',
    },
    {
      name: 'a budget of 0 refuses the first write',
      maxWrites: 0,
      attempts: 1,
      expectedGranted: [false],
      expectedReason: 'the write budget of 0 writes was spent',
    },
    {
      name: 'a budget exactly spent is not yet a stop',
      maxWrites: 2,
      attempts: 2,
      expectedGranted: [true, true],
      expectedReason: undefined,
    },
  ];
  it.each(writeCases)('$name', ({ maxWrites, attempts, expectedGranted, expectedReason }) => {
    const { bounds: b } = bounds(maxWrites === undefined ? {} : { maxWrites });
    const granted = Array.from({ length: attempts }, () => b.reserveWrite());
    expect(granted).toEqual(expectedGranted);
    expect(b.writes).toBe(expectedGranted.filter(Boolean).length);
    expect(b.stopReason).toBe(expectedReason);
    // A spent write budget defers writes; it does not stop the pass (listings and GC go on).
    expect(b.isStopped()).toBe(false);
    expect(b.deferred).toBe(expectedGranted.filter((g) => !g).length);
  });

  it('stops at the deadline, not before, and latches it', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE });
    expect(b.isStopped()).toBe(false);
    clock.time = DEADLINE - 1;
    expect(b.isStopped()).toBe(false);
    expect(b.stopReason).toBeUndefined();
    clock.time = DEADLINE;
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toBe('the pass deadline (2030-01-01T00:01:00.000Z) was reached');
    // A clock that goes back does not undo the stop.
    clock.time = DEADLINE - 30_000;
    expect(b.isStopped()).toBe(true);
  });

  it('a passed deadline is only a reason once it has been seen', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE });
    clock.time = DEADLINE + 1;
    expect(b.stopReason).toBeUndefined();
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toMatch(/deadline/);
  });

  it('the deadline seen first stays the reason when the write budget is spent later', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE, maxWrites: 1 });
    clock.time = DEADLINE;
    expect(b.isStopped()).toBe(true);
    expect(b.reserveWrite()).toBe(true);
    expect(b.reserveWrite()).toBe(false);
    expect(b.stopReason).toMatch(/^the pass deadline .* was reached$/);
  });

  it('the write budget spent first stays the reason when the deadline passes later', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE, maxWrites: 0 });
    expect(b.reserveWrite()).toBe(false);
    clock.time = DEADLINE + 1;
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toBe('the write budget of 0 writes was spent');
  });

  const throttleCases: Array<{ name: string; error: unknown; expectedReason: string | undefined }> =
    [
      {
        name: 'a 429 with Retry-After',
        error: new ClusterError('TooManyRequests', 'slow down', { retryAfterSeconds: 5 }),
        expectedReason:
          'an API server asked for less load (429 Too Many Requests, retry after 5 s), so the pass stopped early',
      },
      {
        name: 'a 429 without Retry-After',
        error: new ClusterError('TooManyRequests', 'slow down'),
        expectedReason:
          'an API server asked for less load (429 Too Many Requests), so the pass stopped early',
      },
      {
        name: 'a Conflict',
        error: new ClusterError('Conflict', 'modified'),
        expectedReason: undefined,
      },
      {
        name: 'a Forbidden',
        error: new ClusterError('Forbidden', 'no'),
        expectedReason: undefined,
      },
      {
        name: 'a plain Error that mentions 429',
        error: new Error('429 Too Many Requests'),
        expectedReason: undefined,
      },
      { name: 'not an error at all', error: 'TooManyRequests', expectedReason: undefined },
    ];
  it.each(throttleCases)('backOffIfThrottled: $name', ({ error, expectedReason }) => {
    const { bounds: b } = bounds();
    b.backOffIfThrottled(error);
    expect(b.stopReason).toBe(expectedReason);
    expect(b.isStopped()).toBe(expectedReason !== undefined);
  });

  it('a 429 after another bound keeps the first reason; a 429 first stays the reason', () => {
    const throttled = new ClusterError('TooManyRequests', 'slow down');
    const spent = bounds({ maxWrites: 0 }).bounds;
    spent.reserveWrite();
    spent.backOffIfThrottled(throttled);
    expect(spent.stopReason).toMatch(/write budget/);

    const first = bounds({ maxWrites: 0 }).bounds;
    first.backOffIfThrottled(throttled);
    first.reserveWrite();
    expect(first.stopReason).toMatch(/429/);
  });
});

describe('fewer writes than kinds', () => {
  const clock = { now: () => 0 };

  /** The writes each of `count` kinds may start in one pass whose turns start at `offset`. */
  function writesPerKind(maxWrites: number, count: number, offset: number): number[] {
    const bounds = new PassBounds(effectiveBudget({ maxWrites }), clock);
    bounds.rotateTurns(offset);
    const got: number[] = [];
    for (let i = 0; i < count; i++) {
      bounds.beginKind(i, count);
      let n = 0;
      while (bounds.reserveWrite()) n++;
      bounds.endKind();
      got.push(n);
    }
    return got;
  }

  it.each([
    { name: 'B=1, K=3, turn 0', maxWrites: 1, count: 3, offset: 0, expected: [1, 0, 0] },
    { name: 'B=1, K=3, turn 1', maxWrites: 1, count: 3, offset: 1, expected: [0, 1, 0] },
    { name: 'B=1, K=3, turn 2', maxWrites: 1, count: 3, offset: 5, expected: [0, 0, 1] },
    { name: 'B=2, K=3, window wraps', maxWrites: 2, count: 3, offset: 2, expected: [1, 0, 1] },
  ])('$name: $expected', ({ maxWrites, count, offset, expected }) => {
    expect(writesPerKind(maxWrites, count, offset)).toEqual(expected);
  });

  it('over K consecutive turns every kind gets a write, never more than the budget in one pass', () => {
    const seen = new Set<number>();
    for (let offset = 0; offset < 4; offset++) {
      const got = writesPerKind(1, 4, offset);
      expect(got.reduce((a, b) => a + b, 0)).toBe(1);
      seen.add(got.indexOf(1));
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it('a kind that needs nothing leaves its write to the kinds after it', () => {
    const bounds = new PassBounds(effectiveBudget({ maxWrites: 1 }), clock);
    bounds.rotateTurns(0);
    bounds.beginKind(0, 2);
    bounds.endKind();
    bounds.beginKind(1, 2);
    expect(bounds.reserveWrite()).toBe(true);
  });
});
