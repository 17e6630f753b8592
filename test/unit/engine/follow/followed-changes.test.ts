/**
 * The follow's tenant watches as the proof of a pass's resumed watch (`FollowedChanges`): the
 * changes after the asked point up to what the watch delivered, at once; the apiserver's own watch
 * whenever the chain does not cover the point.
 */
import { describe, expect, it } from '@jest/globals';
import { FollowedChanges, MAX_BUFFERED } from '../../../../lib/engine/follow/followed-changes.js';
import type { ClusterApi, WatchChange, WatchOptions } from '../../../../lib/ports/index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const change = (name: string, rv: string, type: WatchChange['type'] = 'MODIFIED'): WatchChange => ({
  type,
  object: { ...CM, metadata: { name, namespace: 'a', resourceVersion: rv } },
});
const ask = (resourceVersion: string): WatchOptions => ({
  resourceVersion,
  timeoutSeconds: 3,
  allowWatchBookmarks: true,
});
const names = (outcome: ReturnType<FollowedChanges['answer']>) =>
  outcome && 'changes' in outcome ? outcome.changes.map((c) => c.object.metadata.name) : outcome;

describe('FollowedChanges', () => {
  it('answers the changes after the asked point, up to the last event or bookmark', () => {
    const followed = new FollowedChanges();
    followed.opened(CM, '100');
    followed.changed(CM, change('a', '105'));
    followed.changed(CM, change('b', '110', 'DELETED'));
    followed.bookmarked(CM, '130');
    expect(followed.answer(CM, ask('100'))).toEqual({
      resumed: true,
      changes: [change('a', '105'), change('b', '110', 'DELETED')],
      resourceVersion: '130',
    });
    expect(names(followed.answer(CM, ask('105')))).toEqual(['b']);
    // A point past what arrived: nothing new is claimed.
    expect(followed.answer(CM, ask('200'))).toEqual({
      resumed: true,
      changes: [],
      resourceVersion: '200',
    });
  });

  it.each([
    ['a point older than the watch', (f: FollowedChanges) => f.opened(CM, '100'), '99'],
    ['a kind never watched', () => undefined, '100'],
    [
      'a watch that broke',
      (f: FollowedChanges) => {
        f.opened(CM, '100');
        f.broken(CM);
      },
      '100',
    ],
    [
      'a buffer past its bound',
      (f: FollowedChanges) => {
        f.opened(CM, '100');
        for (let i = 0; i <= MAX_BUFFERED; i++) f.changed(CM, change(`c${i}`, String(101 + i)));
      },
      '100',
    ],
    [
      'an older point after a newer one was asked (the buffer was trimmed)',
      (f: FollowedChanges) => {
        f.opened(CM, '100');
        f.answer(CM, ask('120'));
      },
      '110',
    ],
  ])('leaves the watch to the apiserver for %s', (_name, setUp, from) => {
    const followed = new FollowedChanges();
    setUp(followed);
    expect(followed.answer(CM, ask(from))).toBeUndefined();
  });

  it('feeds the changes to the pass’s window, and a refusal is a bounded fallback', () => {
    const followed = new FollowedChanges();
    followed.opened(CM, '100');
    followed.changed(CM, change('a', '101'));
    followed.changed(CM, change('b', '102'));
    const taken: string[] = [];
    const take = (c: WatchChange) => {
      taken.push(c.object.metadata.name);
      return taken.length > 1 ? 'more than 1 object changed' : undefined;
    };
    expect(followed.answer(CM, { ...ask('100'), take })).toEqual({
      resumed: false,
      reason: 'more than 1 object changed',
      bounded: true,
    });
    expect(taken).toEqual(['a', 'b']);
  });

  it('wraps a client: a covered watch is answered without a request, others go to the client', async () => {
    const served = { buffered: 0, delegated: 0 };
    const followed = new FollowedChanges(served);
    followed.opened(CM, '100');
    const asked: string[] = [];
    const client = {
      watchChanges: async (_kind: unknown, options: WatchOptions) => {
        asked.push(options.resourceVersion);
        return { resumed: true as const, changes: [], resourceVersion: '150' };
      },
      requestCount: () => ({ reads: 7, writes: 0 }),
    } as unknown as ClusterApi;
    const wrapped = followed.wrap(client);
    await wrapped.watchChanges?.(CM, ask('100'));
    await wrapped.watchChanges?.(CM, ask('50'));
    expect(asked).toEqual(['50']);
    expect(served).toEqual({ buffered: 1, delegated: 1 });
    expect(wrapped.requestCount()).toEqual({ reads: 7, writes: 0 });
  });
});
