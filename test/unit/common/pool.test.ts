import { describe, expect, it } from '@jest/globals';
import { runPool } from '../../../lib/common/index.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** A worker that records the items it ran and the peak number in flight. */
function tracker() {
  const started: number[] = [];
  let inFlight = 0;
  let peak = 0;
  const worker = async (item: number) => {
    started.push(item);
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    await tick();
    inFlight -= 1;
  };
  return { started, worker, peak: () => peak };
}

describe('runPool', () => {
  const cases: Array<{ name: string; items: number; concurrency: number; expectedPeak: number }> = [
    { name: 'concurrency 1 runs one at a time', items: 5, concurrency: 1, expectedPeak: 1 },
    { name: 'concurrency 3 keeps 3 in flight', items: 10, concurrency: 3, expectedPeak: 3 },
    { name: 'fewer items than lanes', items: 2, concurrency: 8, expectedPeak: 2 },
    { name: 'concurrency 0 still runs (one lane)', items: 3, concurrency: 0, expectedPeak: 1 },
    { name: 'negative concurrency still runs', items: 3, concurrency: -2, expectedPeak: 1 },
  ];
  it.each(cases)('$name', async ({ items, concurrency, expectedPeak }) => {
    const t = tracker();
    const all = Array.from({ length: items }, (_, i) => i);
    await runPool(all, concurrency, t.worker);
    expect([...t.started].sort((a, b) => a - b)).toEqual(all);
    expect(t.peak()).toBe(expectedPeak);
  });

  it('starts items in order, each exactly once', async () => {
    const t = tracker();
    await runPool([0, 1, 2, 3, 4, 5], 2, t.worker);
    expect(t.started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('does nothing for no items', async () => {
    const t = tracker();
    await runPool([], 4, t.worker);
    expect(t.started).toEqual([]);
  });

  it('starts no new item once stopped, and lets items in flight finish', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    let stop = false;
    await runPool(
      [0, 1, 2, 3, 4, 5, 6, 7],
      2,
      async (item) => {
        started.push(item);
        if (item === 2) stop = true;
        await tick();
        finished.push(item);
      },
      () => stop,
    );
    expect(started).toEqual([0, 1, 2]);
    expect([...finished].sort()).toEqual([0, 1, 2]);
  });

  it('starts nothing when already stopped', async () => {
    const t = tracker();
    await runPool([1, 2, 3], 2, t.worker, () => true);
    expect(t.started).toEqual([]);
  });

  it('rejects with a worker error', async () => {
    const boom = new Error('boom');
    await expect(
      runPool([1, 2, 3], 1, async (item) => {
        if (item === 2) throw boom;
      }),
    ).rejects.toBe(boom);
  });
});
