import { describe, expect, it } from '@jest/globals';
import type { KubeHttp, RequestSpec } from '../../../../lib/adapters/kube/http.js';
import {
  orderOfResourceVersions,
  parseWatchLine,
  watchChanges,
  watchQuery,
} from '../../../../lib/adapters/kube/watch.js';
import { ClusterError, ClusterErrorReason } from '../../../../lib/ports/index.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const OPTIONS = { resourceVersion: '100', timeoutSeconds: 3, allowWatchBookmarks: true };

const event = (type: string, name: string, rv: string) =>
  JSON.stringify({ type, object: { metadata: { name, namespace: 'ns', resourceVersion: rv } } });
const bookmark = (rv: string) =>
  JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: rv } } });

/** A KubeHttp that answers the one-item LIST with `current` and streams `lines` to the watch. */
function fakeHttp(current: string | Error, lines: readonly string[] | Error = []) {
  const calls: RequestSpec[] = [];
  const http = {
    async request(spec: RequestSpec) {
      calls.push(spec);
      if (current instanceof Error) throw current;
      return { metadata: { resourceVersion: current }, items: [] };
    },
    async streamLines(spec: RequestSpec, _timeoutMs: number, onLine: (l: string) => boolean) {
      calls.push(spec);
      if (lines instanceof Error) throw lines;
      for (const line of lines) if (onLine(line)) return;
    },
  };
  return { http: http as unknown as KubeHttp, calls };
}

const stall = new ClusterError(
  ClusterErrorReason.Transport,
  'https://tenant stalled: no answer to GET /api/v1/configmaps before the pass deadline (10 ms)',
  { timedOut: true },
);

describe('watchChanges: a resume proven by a bookmark at or past the current resourceVersion', () => {
  const cases: {
    name: string;
    current: string | Error;
    lines?: readonly string[] | Error;
    resourceVersion?: string;
    expected: unknown;
    requests: number;
  }[] = [
    {
      name: 'nothing changed in the cluster at all: no watch',
      current: '100',
      expected: { resumed: true, changes: [], resourceVersion: '100' },
      requests: 1,
    },
    {
      name: 'a quiet resource: the bookmark at the current resourceVersion ends it',
      current: '120',
      lines: [bookmark('110'), bookmark('120'), event('ADDED', 'late', '130')],
      expected: { resumed: true, changes: [], resourceVersion: '120' },
      requests: 2,
    },
    {
      name: 'an event at the current resourceVersion is its own proof',
      current: '120',
      lines: [event('ADDED', 'a', '105'), event('DELETED', 'b', '120'), bookmark('999')],
      expected: {
        resumed: true,
        resourceVersion: '120',
        changes: [
          expect.objectContaining({ type: 'ADDED' }),
          expect.objectContaining({ type: 'DELETED' }),
        ],
      },
      requests: 2,
    },
    {
      name: 'a stored resourceVersion ahead of the cluster: recorded elsewhere',
      current: '50',
      expected: { resumed: false, reason: expect.stringMatching(/ahead of the cluster's 50/) },
      requests: 1,
    },
    {
      name: 'a stored resourceVersion that does not parse: no request at all',
      current: '100',
      resourceVersion: '12abc',
      expected: { resumed: false, reason: expect.stringMatching(/does not parse/) },
      requests: 0,
    },
    {
      name: '410 as an ERROR event',
      current: '120',
      lines: [JSON.stringify({ type: 'ERROR', object: { code: 410, message: 'too old' } })],
      expected: { resumed: false, reason: 'the watch answered ERROR 410 (too old)' },
      requests: 2,
    },
    {
      name: 'the watch ends at its timeout with only an early bookmark',
      current: '120',
      lines: [event('MODIFIED', 'a', '105'), bookmark('110')],
      expected: { resumed: false, reason: 'the watch ended without a bookmark at 120 or later' },
      requests: 2,
    },
    {
      name: 'the LIST answered 429',
      current: new ClusterError(ClusterErrorReason.TooManyRequests, 'slow down', { status: 429 }),
      expected: {
        resumed: false,
        reason: expect.stringMatching(/reading the current resourceVersion answered HTTP 429/),
      },
      requests: 1,
    },
    {
      name: 'the watch answered 504',
      current: '120',
      lines: new ClusterError(ClusterErrorReason.Unknown, 'gateway', { status: 504 }),
      expected: { resumed: false, reason: expect.stringMatching(/the watch answered HTTP 504/) },
      requests: 2,
    },
  ];

  it.each(cases)('$name', async ({ current, lines, resourceVersion, expected, requests }) => {
    const { http, calls } = fakeHttp(current, lines);
    const outcome = await watchChanges(http, '/api/v1/configmaps', CONFIGMAP, {
      ...OPTIONS,
      ...(resourceVersion ? { resourceVersion } : {}),
    });
    expect(outcome).toEqual(expected);
    expect(calls).toHaveLength(requests);
    if (requests > 0) expect(calls[0]?.query).toEqual({ limit: 1 });
  });

  it('a stalled tenant is not a failed resume: the stall is thrown for the pass to stop on', async () => {
    await expect(watchChanges(fakeHttp(stall).http, '/p', CONFIGMAP, OPTIONS)).rejects.toBe(stall);
    await expect(watchChanges(fakeHttp('120', stall).http, '/p', CONFIGMAP, OPTIONS)).rejects.toBe(
      stall,
    );
  });

  it('hands each change to `take` as it streams, holding none, and stops when it refuses', async () => {
    const lines = [event('ADDED', 'a', '105'), event('MODIFIED', 'a', '110'), bookmark('120')];
    const taken: [string, number | undefined][] = [];
    const take = (c: { object: { metadata: { name: string } } }, bytes: number | undefined) => {
      taken.push([c.object.metadata.name, bytes]);
      return undefined;
    };
    const held = await watchChanges(fakeHttp('120', lines).http, '/p', CONFIGMAP, {
      ...OPTIONS,
      take,
    });
    expect(held).toEqual({ resumed: true, changes: [], resourceVersion: '120' });
    expect(taken).toEqual([
      ['a', lines[0]?.length],
      ['a', lines[1]?.length],
    ]);
    const refused = await watchChanges(fakeHttp('120', lines).http, '/p', CONFIGMAP, {
      ...OPTIONS,
      take: () => 'over budget',
    });
    expect(refused).toEqual({ resumed: false, reason: 'over budget', bounded: true });
  });
});

describe('watch helpers', () => {
  it('compares resourceVersions as integers, not strings', () => {
    expect(orderOfResourceVersions('100', '100')).toBe('same');
    expect(orderOfResourceVersions('99', '100')).toBe('behind');
    expect(orderOfResourceVersions('1000', '999')).toBe('ahead');
  });

  it('asks for bookmarks and a short timeout', () => {
    expect(watchQuery(OPTIONS)).toEqual({
      watch: 'true',
      resourceVersion: '100',
      allowWatchBookmarks: 'true',
      timeoutSeconds: 3,
    });
  });

  it('parses events with the kind filled in, and refuses what cannot be trusted', () => {
    expect(parseWatchLine(event('ADDED', 'a', '5'), CONFIGMAP)).toEqual({
      change: { type: 'ADDED', object: expect.objectContaining({ kind: 'ConfigMap' }) },
    });
    expect(parseWatchLine('{', CONFIGMAP)).toEqual({ failed: expect.stringMatching(/not JSON/) });
    expect(parseWatchLine(bookmark('x1'), CONFIGMAP)).toEqual({
      failed: expect.stringMatching(/bookmark without a resourceVersion/),
    });
  });
});
