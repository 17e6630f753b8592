/**
 * Follow mode on the real clusters (issue 29): with a follow running and no other command, a
 * tenant ConfigMap's create, edit and delete reach the host as they happen; an idle follow writes
 * nothing on either side (uid/resourceVersion snapshots) and sends no request in 20 s; a second
 * follower of the tenant writes nothing and says who holds the lease; a quiet follow ends by
 * itself; a signal ends a follow with `status.follow` recorded and the lease released.
 */
import { describe, expect, it } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import {
  FollowEnd,
  type FollowOptions,
  type FollowResult,
  hostName,
  runFollow,
} from '../../../lib/engine/index.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const LEASE: KindRef = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

/** A follow of `t` running in the background, with what its passes did. */
interface Following {
  passes: PassResult[];
  stop(): Promise<FollowResult>;
  done: Promise<FollowResult>;
}

function follow(t: Tenant, options: Partial<FollowOptions> = {}): Following {
  const abort = new AbortController();
  const passes: PassResult[] = [];
  const done = runFollow({
    tenant: t.name,
    tenantApi: t.tenantApi,
    hostApi: t.hostApi,
    sinks: [new KubernetesEventsSink({ hostApi: t.hostApi, tenant: t.name })],
    signal: abort.signal,
    onPass: (result) => passes.push(result),
    ...options,
  });
  return {
    passes,
    done,
    stop: async () => {
      abort.abort();
      return done;
    },
  };
}

/** `status.follow` of the tenant's TenantCluster. */
async function followStatus(t: Tenant): Promise<Record<string, unknown> | undefined> {
  const status = (await tenantClusterObject(t)).status as { follow?: Record<string, unknown> };
  return status?.follow;
}

describe('follow mode', () => {
  it('converges tenant changes as they happen, writes nothing while idle, and records how it went', async () => {
    const t = await createTenant(apis(), 'follow');
    const ns = t.vns.a;
    const following = follow(t);
    await waitFor('the follow active', async () =>
      (await followStatus(t))?.active === true && following.passes.length > 0 ? true : undefined,
    );
    const h = hostName('settings', ns, t.name);

    await t.tenantApi.create(tenantConfigMap(t, ns, 'settings', { mode: 'a' }));
    await waitFor('the host copy', () => t.hostApi.get(CONFIGMAP, t.hostNamespace, h), 10_000);
    const created = (await t.tenantApi.get(CONFIGMAP, ns, 'settings')) as KubeObject;
    await t.tenantApi.update({ ...created, data: { mode: 'b' } });
    await waitFor(
      'the edit on the host',
      async () =>
        ((await t.hostApi.get(CONFIGMAP, t.hostNamespace, h))?.data as { mode?: string })?.mode ===
        'b'
          ? true
          : undefined,
      10_000,
    );

    // Idle: no change for 20 s, nothing written on either side, no request sent.
    await new Promise((r) => setTimeout(r, 1_000)); // the echo of the last write settles
    const before = { host: await snapshot(t.hostNamespace), tenant: await snapshot(ns) };
    const requests = { host: t.hostApi.requestCount(), tenant: t.tenantApi.requestCount() };
    const passes = following.passes.length;
    await new Promise((r) => setTimeout(r, 20_000));
    expect(following.passes.length).toBe(passes);
    expect(t.hostApi.requestCount()).toEqual(requests.host);
    expect(t.tenantApi.requestCount()).toEqual(requests.tenant);
    const unchanged = { created: [], changed: [], deleted: [] };
    expect(diffSnapshots(before.host, await snapshot(t.hostNamespace))).toEqual(unchanged);
    expect(diffSnapshots(before.tenant, await snapshot(ns))).toEqual(unchanged);

    const copy = await t.tenantApi.get(CONFIGMAP, ns, 'settings');
    await t.tenantApi.delete(CONFIGMAP, ns, 'settings', { uid: copy?.metadata.uid as string });
    await waitFor(
      'the host copy deleted',
      async () => ((await t.hostApi.get(CONFIGMAP, t.hostNamespace, h)) ? undefined : true),
      10_000,
    );

    const result = await following.stop();
    expect(result.endReason).toBe(FollowEnd.Signal);
    expect(result.failures).toEqual([]);
    expect(result.changes).toBeGreaterThanOrEqual(3);
    expect(result.latency?.p99Ms).toBeGreaterThan(0);
    expect(following.passes.every((p) => p.errors.length === 0)).toBe(true);
    // Every pass after the first resumed: only what changed was read, and what changed was
    // proven by the follow's own watch, with no bookmark wait.
    expect(following.passes.slice(1).map((p) => p.path)).not.toContain('full');
    expect(result.resumedWatches.fromFollow).toBeGreaterThan(0);
    expect(await followStatus(t)).toMatchObject({
      active: false,
      endReason: 'signal',
      holder: result.holder,
      changes: result.changes,
      passes: result.passes,
    });
    const leases = await t.hostApi.list(LEASE, { namespace: t.hostNamespace });
    expect(leases.items).toEqual([]);
  }, 90_000);

  it('a second follower writes nothing and names the holder; a quiet follow ends by itself', async () => {
    const t = await createTenant(apis(), 'follow-two');
    const first = follow(t, { quietSeconds: 30 });
    await waitFor('the first follower active', async () =>
      first.passes.length > 0 ? true : undefined,
    );
    const before = await snapshot(t.hostNamespace);
    const second = await runFollow({
      tenant: t.name,
      tenantApi: t.tenantApi,
      hostApi: t.hostApi,
      whenHeld: 'exit',
    });
    expect(second.endReason).toBe(FollowEnd.Held);
    expect(second.passes).toBe(0);
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
    expect(second.heldBy?.holder).toBe((await first.stop()).holder);

    const quiet = await runFollow({
      tenant: t.name,
      tenantApi: t.tenantApi,
      hostApi: t.hostApi,
      quietSeconds: 2,
    });
    expect(quiet.endReason).toBe(FollowEnd.Quiet);
    expect(quiet.passes).toBe(1);
    expect((await followStatus(t))?.endReason).toBe('quiet');

    // A deadline (a Lambda's remaining time) ends it cleanly, before the deadline itself.
    const untilMs = Date.now() + 5_000;
    const bounded = await runFollow({
      tenant: t.name,
      tenantApi: t.tenantApi,
      hostApi: t.hostApi,
      untilMs,
    });
    expect(bounded.endReason).toBe(FollowEnd.Deadline);
    expect(Date.parse(bounded.endedAt)).toBeLessThanOrEqual(untilMs);
    expect(await followStatus(t)).toMatchObject({ active: false, endReason: 'deadline' });
    const leases = await t.hostApi.list(LEASE, { namespace: t.hostNamespace });
    expect(leases.items).toEqual([]);
  }, 60_000);
});
