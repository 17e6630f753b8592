/**
 * Back-off on 429 for one pass (`bounds/throttle.ts`): a request answered 429 waits as
 * `Retry-After` says and is sent again when that fits its deadline, holding the pass's other
 * requests to that cluster until then; one that does not fit is a ThrottledError that stops the
 * pass and says when the server takes it again; the Decision of a write that waited says so.
 */
import { describe, expect, it } from '@jest/globals';
import { PassBounds } from '../../../../lib/engine/bounds/budget.js';
import {
  Throttle,
  ThrottledError,
  throttledClient,
} from '../../../../lib/engine/bounds/throttle.js';
import { ClusterError, withRequestDeadline } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm } from '../support.js';

/** A clock whose waits move its own time, and remember how long each was. */
class WaitingClock {
  readonly waits: number[] = [];
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
    this.at += ms;
  }
}

const tooMany = (retryAfterSeconds?: number) =>
  new ClusterError('TooManyRequests', 'Too many requests, please try again later.', {
    status: 429,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });

/** A host whose first `times` creates are answered 429 with `Retry-After: seconds`. */
function throttledHost(times: number, seconds?: number) {
  const host = new MemoryCluster('host');
  const sentAt: number[] = [];
  const clock = new WaitingClock(1_000);
  let answered = 0;
  host.failWhen((call) => {
    if (call.method !== 'create') return undefined;
    sentAt.push(clock.now());
    answered += 1;
    return answered <= times ? tooMany(seconds) : undefined;
  });
  const throttle = new Throttle(clock);
  return { host, clock, sentAt, throttle, api: throttledClient(host, 'host', throttle) };
}

describe('throttledClient', () => {
  it('waits as each 429 asks and sends the request again, once the server takes it', async () => {
    const { host, clock, sentAt, throttle, api } = throttledHost(2, 3);
    await api.create(cm('ns', 'a'));
    expect(sentAt).toEqual([1_000, 4_000, 7_000]);
    expect(clock.waits).toEqual([3_000, 3_000]);
    expect(host.peek(CONFIGMAP, 'ns', 'a')).toBeDefined();
    expect(throttle.summary()).toEqual({ retried: 2, waitedMs: 6_000 });
    // The Decision about that object says so, once.
    expect(throttle.takeNote({ hostRef: { namespace: 'ns', name: 'a' } })).toBe(
      'the host apiserver asked to retry after 3 s, then 3 s (429 Too Many Requests); sent again after waiting as asked',
    );
    expect(throttle.takeNote({ hostRef: { namespace: 'ns', name: 'a' } })).toBeUndefined();
  });

  it('holds the other requests to the same cluster until then, not those to the other one', async () => {
    const clock = new WaitingClock(0);
    const throttle = new Throttle(clock);
    throttle.throttled('host', tooMany(2), 0);
    await throttle.ready('tenant');
    expect(clock.waits).toEqual([]);
    await throttle.ready('host');
    expect(clock.waits).toEqual([2_000]);
    await throttle.ready('host');
    expect(clock.waits).toEqual([2_000]); // open again
  });

  it('a wait longer than the deadline leaves: a ThrottledError, not sent again, and when', async () => {
    const { sentAt, throttle, api } = throttledHost(1, 30);
    const sent = withRequestDeadline({ atMs: 11_000, what: 'the pass deadline' }, () =>
      api.create(cm('ns', 'a')),
    );
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottledError);
    expect(error).toMatchObject({
      reason: 'TooManyRequests',
      status: 429,
      retryAfterSeconds: 30,
      message:
        'the host apiserver asked to retry after 30 s (429 Too Many Requests), longer than the 10 s left before the pass deadline: not sent again this pass',
    });
    expect(sentAt).toEqual([1_000]);
    expect(throttle.summary()).toEqual({
      retried: 0,
      waitedMs: 0,
      notBefore: new Date(31_000).toISOString(),
    });
    // The pass stops starting work, in the same words.
    const bounds = new PassBounds({ pageSize: 1, concurrency: 1 }, { now: () => 1_000 }, throttle);
    bounds.backOffIfThrottled(error);
    expect(bounds.stopReason).toBe(
      'the host apiserver asked to retry after 30 s (429 Too Many Requests), longer than the 10 s left before the pass deadline, so the pass stopped early',
    );
  });

  it('a 429 without Retry-After is not sent again', async () => {
    const { sentAt, throttle, api } = throttledHost(1);
    await expect(api.create(cm('ns', 'a'))).rejects.toThrow(
      'the host apiserver answered 429 Too Many Requests without a Retry-After: not sent again this pass',
    );
    expect(sentAt).toEqual([1_000]);
    expect(throttle.summary()).toBeUndefined();
  });

  it('other failures go through as they are, and reads are retried too', async () => {
    const host = new MemoryCluster('host');
    const clock = new WaitingClock(0);
    const throttle = new Throttle(clock);
    const api = throttledClient(host, 'host', throttle);
    const conflict = new ClusterError('Conflict', 'changed', { status: 409 });
    let lists = 0;
    host.failWhen((call) => {
      if (call.method === 'update') return conflict;
      if (call.method === 'list') lists += 1;
      return call.method === 'list' && lists === 1 ? tooMany(1) : undefined;
    });
    await expect(api.update(cm('ns', 'a'))).rejects.toBe(conflict);
    await api.list(CONFIGMAP, { namespace: 'ns' });
    expect(lists).toBe(2);
    expect(clock.waits).toEqual([1_000]);
    expect(api.requestCount()).toEqual(host.requestCount());
  });
});
