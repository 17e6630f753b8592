/**
 * The pure parts of follow mode: which watches follow a tenant (`followTriggers`), what woke a
 * follow since its last pass (`Wakeups`), and the latency percentiles of `FollowRecord`.
 */
import { describe, expect, it } from '@jest/globals';
import { percentile } from '../../../../lib/engine/follow/follow-status.js';
import { followTriggers } from '../../../../lib/engine/follow/triggers.js';
import { Wakeups } from '../../../../lib/engine/follow/wakeups.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import type { Clock, KubeObject, WatchChange } from '../../../../lib/ports/index.js';

const clockAt = (ms: { now: number }): Clock => ({ now: () => ms.now }) as Clock;
const policy = (toHost: Array<{ apiVersion: string; kind: string }>) =>
  parseSyncPolicy('dev', { hostNamespace: 'h-dev', toHost });
const change = (type: WatchChange['type'], object: Partial<KubeObject>): WatchChange => ({
  type,
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'h-dev' }, ...object },
});

const none = {
  namespace: undefined,
  labelSelector: undefined,
  fieldSelector: undefined,
  fullOnDelete: undefined,
};

describe('followTriggers', () => {
  it('watches every synced kind in the tenant, and on the host the copies whose status comes back, their Warning Events and the TenantCluster by name', () => {
    const triggers = followTriggers(
      'dev',
      policy([
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { apiVersion: 'v1', kind: 'Pod' },
      ]),
      3,
    );
    expect(
      triggers.map((t) => ({
        side: t.side,
        kind: t.kind.kind,
        namespace: t.namespace,
        labelSelector: t.labelSelector,
        fieldSelector: t.fieldSelector,
        fullOnDelete: t.fullOnDelete,
      })),
    ).toStrictEqual([
      { side: 'tenant', kind: 'ConfigMap', ...none },
      { side: 'tenant', kind: 'Pod', ...none },
      {
        side: 'host',
        kind: 'Pod',
        namespace: 'h-dev',
        labelSelector: expect.stringContaining('dev'),
        fieldSelector: undefined,
        fullOnDelete: true,
      },
      {
        ...none,
        side: 'host',
        kind: 'Event',
        namespace: 'h-dev',
        fieldSelector: 'type=Warning',
      },
      { ...none, side: 'host', kind: 'TenantCluster', fieldSelector: 'metadata.name=dev' },
    ]);
  });

  it('the TenantCluster wakes the follow only for a new generation or a deletion, not for its status', () => {
    const tc = followTriggers('dev', policy([{ apiVersion: 'v1', kind: 'ConfigMap' }]), 3).at(-1);
    const object = (metadata: Record<string, unknown>) =>
      change('MODIFIED', { metadata: { name: 'dev', ...metadata } });
    expect(tc?.wakes?.(object({ generation: 3 }))).toBe(false);
    expect(tc?.wakes?.(object({ generation: 4 }))).toBe(true);
    expect(tc?.wakes?.(object({ generation: 3, deletionTimestamp: 'now' }))).toBe(true);
  });

  it('a host Event wakes the follow only when it is about a name that can be this tenant’s copy', () => {
    const triggers = followTriggers('dev', policy([{ apiVersion: 'v1', kind: 'Pod' }]), 1);
    const events = triggers.find((t) => t.kind.kind === 'Event');
    const about = (name: string) =>
      change('ADDED', { kind: 'Event', involvedObject: { kind: 'Pod', name, namespace: 'h-dev' } });
    expect(events?.wakes?.(about('web-x-apps-x-dev'))).toBe(true);
    expect(events?.wakes?.(about('web-x-apps-x-other'))).toBe(false);
  });
});

describe('followTriggers: what a tenant change wakes', () => {
  const [configMaps] = followTriggers(
    'dev',
    parseSyncPolicy('dev', {
      hostNamespace: 'h-dev',
      toHost: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          exclude: { namespaces: ['ops'], names: ['local-only'] },
        },
      ],
    }),
    1,
  );
  const configMap = (namespace: string, name: string) =>
    change('MODIFIED', { kind: 'ConfigMap', metadata: { name, namespace } });

  it.each([
    { name: 'a ConfigMap the policy syncs', namespace: 'apps', object: 'web', wakes: true },
    {
      name: 'a controller’s ConfigMap in kube-system',
      namespace: 'kube-system',
      object: 'lock',
      wakes: false,
    },
    { name: 'one in kube-node-lease', namespace: 'kube-node-lease', object: 'n1', wakes: false },
    { name: 'one in a namespace the rule excludes', namespace: 'ops', object: 'web', wakes: false },
    {
      name: 'one of a name the rule excludes',
      namespace: 'apps',
      object: 'local-only',
      wakes: false,
    },
    {
      name: 'the tenant’s own root CA',
      namespace: 'apps',
      object: 'kube-root-ca.crt',
      wakes: false,
    },
  ])('$name: wakes $wakes', ({ namespace, object, wakes }) => {
    expect(configMaps?.wakes?.(configMap(namespace, object))).toBe(wakes);
  });
});

describe('Wakeups', () => {
  const [tenantPods, hostPods] = followTriggers(
    'dev',
    policy([{ apiVersion: 'v1', kind: 'Pod' }]),
    1,
  );

  it('collects arrival times, gaps and full-pass requests until a pass takes them', () => {
    const time = { now: 1000 };
    const wakeups = new Wakeups(clockAt(time), (ns, name) => ns === 'h-dev' && name === 'mine');
    expect(wakeups.pending()).toBe(false);
    wakeups.changed(tenantPods as never, change('ADDED', {}));
    time.now = 1010;
    // A copy the follow's own pass deleted: no full pass.
    wakeups.changed(
      hostPods as never,
      change('DELETED', { metadata: { name: 'mine', namespace: 'h-dev' } }),
    );
    expect(wakeups.pending()).toBe(true);
    expect(wakeups.take()).toEqual({
      arrivals: [1000, 1010],
      gaps: [],
      policyChanged: false,
      deleted: false,
      full: false,
    });
    expect(wakeups.pending()).toBe(false);
    // A copy the host deleted: the next pass lists in full.
    wakeups.changed(
      hostPods as never,
      change('DELETED', { metadata: { name: 'evicted', namespace: 'h-dev' } }),
    );
    wakeups.gap(tenantPods as never, 'the watch answered ERROR 410 (too old)');
    expect(wakeups.take()).toMatchObject({
      full: true,
      gaps: ['the tenant watch of Pod: the watch answered ERROR 410 (too old)'],
    });
  });

  it('next() resolves at the next wake-up, or at its time', async () => {
    const wakeups = new Wakeups(clockAt({ now: Date.now() }));
    const abort = new AbortController();
    const waiting = wakeups.next(Number.POSITIVE_INFINITY, abort.signal);
    wakeups.changed(tenantPods as never, change('MODIFIED', {}));
    await expect(waiting).resolves.toBeUndefined();
    wakeups.take();
    const started = Date.now();
    await wakeups.next(Date.now() + 30, abort.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('percentile', () => {
  it.each([
    [[], 0.5, 0],
    [[5], 0.99, 5],
    [[1, 2, 3, 4], 0.5, 2],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.99, 99],
    [Array.from({ length: 100 }, (_, i) => i + 1), 1, 100],
  ])('of %j at %d is %d (nearest rank)', (sorted, p, expected) => {
    expect(percentile(sorted, p)).toBe(expected);
  });
});
