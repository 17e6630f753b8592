/**
 * ReadAhead: the reads a pass starts ahead of the step that uses them, one under each key. The
 * first read started under a key stays; `take` hands it over, `peek` leaves it held; `drop` and
 * `settle` end what is held and wait for it, each read once; a rejected read held there is never
 * an unhandled rejection, and whoever takes it still sees the rejection.
 */
import { describe, expect, it } from '@jest/globals';
import { ReadAhead, readKey } from '../../../../lib/engine/context/read-ahead.js';

const LISTING = readKey<Promise<string[]>>('listing');
const COUNT = readKey<number>('count');
const NAMES = readKey<Set<string>>('names');

/** A promise and the function that resolves it. */
function gate<T = void>() {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets pending promise callbacks and timers run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Whether `promise` has settled by the next tick. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await tick();
  return done;
}

describe('start, has, peek and take', () => {
  it('start keeps the first read under a key; a later one is ignored, its settle never called', async () => {
    const reads = new ReadAhead();
    const ignored: number[] = [];
    reads.start(COUNT, 1);
    reads.start(COUNT, 2, async (value) => {
      ignored.push(value);
    });
    expect(reads.peek(COUNT)).toBe(1);
    await reads.settle();
    expect(ignored).toEqual([]);
  });

  it('peek leaves the read held; take hands it over once', () => {
    const reads = new ReadAhead();
    const names = new Set(['a']);
    reads.start(NAMES, names);
    expect(reads.has(NAMES)).toBe(true);
    expect(reads.peek(NAMES)).toBe(names);
    expect(reads.peek(NAMES)).toBe(names);
    expect(reads.has(NAMES)).toBe(true);

    expect(reads.take(NAMES)).toBe(names);
    expect(reads.has(NAMES)).toBe(false);
    expect(reads.peek(NAMES)).toBeUndefined();
    expect(reads.take(NAMES)).toBeUndefined();
  });

  it('a promise started is the very promise taken', async () => {
    const reads = new ReadAhead();
    const listing = Promise.resolve(['a', 'b']);
    reads.start(LISTING, listing);
    const taken = reads.take(LISTING);
    expect(taken).toBe(listing);
    await expect(taken).resolves.toEqual(['a', 'b']);
  });

  it('keys are apart: taking one leaves the others held', () => {
    const reads = new ReadAhead();
    reads.start(COUNT, 7);
    reads.start(NAMES, new Set());
    expect(reads.take(COUNT)).toBe(7);
    expect(reads.has(COUNT)).toBe(false);
    expect(reads.has(NAMES)).toBe(true);
  });

  it('a key taken can be started anew', () => {
    const reads = new ReadAhead();
    reads.start(COUNT, 1);
    reads.take(COUNT);
    reads.start(COUNT, 2);
    expect(reads.peek(COUNT)).toBe(2);
  });

  it('nothing held: has is false, peek and take are undefined', () => {
    const reads = new ReadAhead();
    expect(reads.has(LISTING)).toBe(false);
    expect(reads.peek(LISTING)).toBeUndefined();
    expect(reads.take(LISTING)).toBeUndefined();
  });
});

describe('drop', () => {
  it('forgets the read at once, calls the custom settle with it and waits for it', async () => {
    const reads = new ReadAhead();
    const held = gate();
    const given: number[] = [];
    reads.start(COUNT, 3, (value) => {
      given.push(value);
      return held.promise;
    });
    const dropping = reads.drop(COUNT);
    expect(reads.has(COUNT)).toBe(false);
    expect(given).toEqual([3]);
    expect(await settledSoon(dropping)).toBe(false);
    held.open();
    await dropping;
  });

  it('by default waits for a promise held, and resolves although it rejects', async () => {
    const reads = new ReadAhead();
    const listing = gate<string[]>();
    reads.start(LISTING, listing.promise);
    const dropping = reads.drop(LISTING);
    expect(await settledSoon(dropping)).toBe(false);
    listing.open(['a']);
    await expect(dropping).resolves.toBeUndefined();

    reads.start(LISTING, Promise.reject(new Error('listing failed')));
    await expect(reads.drop(LISTING)).resolves.toBeUndefined();
  });

  it('a custom settle that rejects never makes drop reject', async () => {
    const reads = new ReadAhead();
    reads.start(COUNT, 1, async () => {
      throw new Error('could not stop');
    });
    await expect(reads.drop(COUNT)).resolves.toBeUndefined();
  });

  it('a read taken before is not the drop’s to settle', async () => {
    const reads = new ReadAhead();
    let settles = 0;
    reads.start(COUNT, 1, async () => {
      settles += 1;
    });
    reads.take(COUNT);
    await reads.drop(COUNT);
    expect(settles).toBe(0);
  });

  it('nothing held under the key: resolves at once', async () => {
    await expect(new ReadAhead().drop(COUNT)).resolves.toBeUndefined();
  });
});

describe('settle', () => {
  it('ends every read still held, each once, and waits for all of them', async () => {
    const reads = new ReadAhead();
    const calls: string[] = [];
    const slow = gate();
    const listing = gate<string[]>();
    reads.start(COUNT, 1, async () => {
      calls.push('count');
      await slow.promise;
    });
    reads.start(NAMES, new Set(), async () => {
      calls.push('names');
    });
    reads.start(LISTING, listing.promise);

    const settling = reads.settle();
    expect([reads.has(COUNT), reads.has(NAMES), reads.has(LISTING)]).toEqual([false, false, false]);
    expect(calls.sort()).toEqual(['count', 'names']);
    expect(await settledSoon(settling)).toBe(false);
    slow.open();
    expect(await settledSoon(settling)).toBe(false); // the listing is still out
    listing.open([]);
    await settling;

    await reads.settle();
    expect(calls.sort()).toEqual(['count', 'names']);
  });

  it('skips what was taken or dropped before it', async () => {
    const reads = new ReadAhead();
    const calls: string[] = [];
    const key = (name: string) => readKey<string>(name);
    for (const name of ['taken', 'dropped', 'held']) {
      reads.start(key(name), name, async (value) => {
        calls.push(value);
      });
    }
    reads.take(key('taken'));
    await reads.drop(key('dropped'));
    await reads.settle();
    expect(calls).toEqual(['dropped', 'held']);
  });

  it('resolves although held reads reject or their settles throw', async () => {
    const reads = new ReadAhead();
    reads.start(LISTING, Promise.reject(new Error('listing failed')));
    reads.start(COUNT, 1, async () => {
      throw new Error('could not stop');
    });
    await expect(reads.settle()).resolves.toBeUndefined();
  });
});

describe('rejections', () => {
  // Jest fails the test during which a rejection goes unhandled (a promise rejected with no handler
  // by the time the microtasks and timers of a tick have run), so these fail if one does.
  it('a rejected promise held is never an unhandled rejection; taken, it still rejects', async () => {
    const failure = new Error('listing failed');
    const reads = new ReadAhead();
    reads.start(LISTING, Promise.reject(failure));
    await tick();
    await tick();
    await expect(reads.take(LISTING)).rejects.toBe(failure);
  });

  it('nor one that rejects later, while it is held', async () => {
    const failure = new Error('listing failed');
    const reads = new ReadAhead();
    let fail: (error: Error) => void = () => undefined;
    reads.start(
      LISTING,
      new Promise<string[]>((_, reject) => {
        fail = reject;
      }),
    );
    await tick();
    fail(failure);
    await tick();
    await tick();
    await expect(reads.take(LISTING)).rejects.toBe(failure);
  });
});
