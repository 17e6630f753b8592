/**
 * One lease per tenant whatever the namespace, renewed while the pass runs: the Lease lives in the
 * first host namespace the TenantCluster remembers, so two passes that read different
 * `spec.hostNamespace` values during a move contend for the same Lease; a pass lists an old
 * namespace (to retire it, then forget it) only under the lease; without a deadline the lease is
 * renewed every third of its duration, and a renewal that finds it taken over refuses every later
 * write.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/pass/pass.js';
import { leaseGuarded } from '../../../../lib/engine/tenant/lease-guard.js';
import {
  DEFAULT_LEASE_MS,
  LEASE,
  LeaseHeldError,
  leaseName,
  leaseNamespaceOf,
  TenantLease,
} from '../../../../lib/engine/tenant/tenant-lease.js';
import {
  ClusterError,
  type KubeObject,
  type PassResult,
  TENANT_CLUSTER,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, cm, HOST_NS, TENANT, tenantCluster } from '../support.js';

const NEW_NS = 'tenant-dev-new';
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
const LEASE_REF = `${HOST_NS}/${leaseName(TENANT)}`;

function otherLease(namespace = HOST_NS): KubeObject {
  const since = Date.now() - 5_000;
  return {
    ...LEASE,
    metadata: { name: leaseName(TENANT), namespace },
    spec: {
      holderIdentity: 'tenantplane pass other',
      leaseDurationSeconds: 600,
      acquireTime: micro(since),
      renewTime: micro(since),
    },
  };
}

const copiesIn = (hostApi: MemoryCluster, namespace: string) =>
  hostApi.objects(CONFIGMAP).filter((o) => o.metadata.namespace === namespace).length;
const writesIn = (hostApi: MemoryCluster, namespace: string) =>
  hostApi.calls.filter(
    (c) => c.namespace === namespace && c.method !== 'get' && c.method !== 'list',
  ).length;

describe('the lease across a host namespace move', () => {
  it('lives in the first remembered host namespace, not in spec.hostNamespace', () => {
    const moved = tenantCluster({ hostNamespace: NEW_NS });
    moved.status = { hostNamespaces: [HOST_NS, NEW_NS] };
    expect(leaseNamespaceOf(moved)).toBe(HOST_NS);
    expect(leaseNamespaceOf(tenantCluster({ hostNamespace: NEW_NS }, TENANT, true))).toBe(NEW_NS);
  });

  it('two passes reading different host namespaces contend for the same Lease', async () => {
    const sources = Array.from({ length: 6 }, (_, i) => cm('a', `c${i}`));
    const { tenantApi, hostApi } = clusters(sources, [], { toHost: [CONFIGMAP] });
    const pass = () => runPass({ tenant: TENANT, tenantApi, hostApi, budget: { concurrency: 1 } });
    let second: Promise<PassResult> | undefined;
    hostApi.failWhen((call) => {
      if (!second && call.method === 'create' && call.kind === 'ConfigMap') {
        // Pass A is writing into the old namespace: the operator moves the tenant, pass B starts.
        const current = hostApi.peek(TENANT_CLUSTER, undefined, TENANT);
        if (current)
          hostApi.replace({
            ...current,
            spec: { ...(current.spec as object), hostNamespace: NEW_NS },
          });
        second = pass();
      }
      return undefined;
    });
    const first = await pass();
    const b = await (second as Promise<PassResult>);
    expect(first.complete).toBe(true);
    expect(b.leaseHeld?.lease).toBe(LEASE_REF);
    expect(writesIn(hostApi, NEW_NS)).toBe(0);
    expect(copiesIn(hostApi, HOST_NS)).toBe(6);

    // Afterwards the passes converge: every copy in the new namespace, none left in the old one,
    // which is forgotten; the lease then lives in the new namespace.
    await pass();
    await pass();
    expect(copiesIn(hostApi, NEW_NS)).toBe(6);
    expect(copiesIn(hostApi, HOST_NS)).toBe(0);
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as {
      hostNamespaces: string[];
    };
    expect(status.hostNamespaces).toEqual([NEW_NS]);
    expect(hostApi.objects(LEASE)).toEqual([]);
  });

  it('a pass that would only forget an old namespace lists it under the lease', async () => {
    const moved = tenantCluster({ hostNamespace: NEW_NS, toHost: [CONFIGMAP] });
    moved.status = {
      ...(moved.status as Record<string, unknown>),
      hostNamespaces: [HOST_NS, NEW_NS],
    };
    const hostApi = new MemoryCluster('host').seed(moved, otherLease());
    const tenantApi = new MemoryCluster('tenant');
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.leaseHeld?.lease).toBe(LEASE_REF);
    const status = hostApi.peek(moved, undefined, TENANT)?.status as { hostNamespaces: string[] };
    expect(status.hostNamespaces).toEqual([HOST_NS, NEW_NS]);
  });
});

/** A clock and a renewal timer the test moves by hand. */
function fakeTime() {
  const time = { now: Date.now(), interval: 0, ticks: [] as Array<() => void>, stopped: 0 };
  const clock = { now: () => time.now };
  const timer = (ms: number, renew: () => void) => {
    time.interval = ms;
    time.ticks.push(renew);
    return () => {
      time.stopped += 1;
      time.ticks.length = 0;
    };
  };
  const tick = async (ms: number) => {
    time.now += ms;
    for (const renew of [...time.ticks]) renew();
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return { time, clock, timer, tick };
}

describe('renewing the lease', () => {
  const copy: KubeObject = { ...cm('a', 'x'), metadata: { name: 'x', namespace: HOST_NS } };

  it('a long pass renews it every third of its duration and stops at release', async () => {
    const { time, clock, timer, tick } = fakeTime();
    const hostApi = new MemoryCluster('host');
    const lease = new TenantLease(hostApi, TENANT, 'p1', clock, undefined, timer);
    await lease.take(HOST_NS);
    expect(time.interval).toBe(DEFAULT_LEASE_MS / 3);
    for (let round = 1; round <= 4; round += 1) {
      await tick(DEFAULT_LEASE_MS / 3);
      const spec = hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec;
      expect(spec).toMatchObject({
        holderIdentity: lease.holder,
        renewTime: micro(time.now),
        leaseDurationSeconds: DEFAULT_LEASE_MS / 1000,
      });
    }
    expect(lease.refused).toBeUndefined();
    await lease.release();
    expect(time.stopped).toBe(1);
    expect(hostApi.objects(LEASE)).toEqual([]);
  });

  it('a pass with a deadline is not renewed: its lease lasts until its last request', async () => {
    const { time, clock, timer } = fakeTime();
    const lease = new TenantLease(
      new MemoryCluster('host'),
      TENANT,
      'p1',
      clock,
      time.now + 60_000,
      timer,
    );
    await lease.take(HOST_NS);
    expect(time.ticks).toEqual([]);
  });

  it('a renewal that finds the lease taken over refuses every later write', async () => {
    const { clock, timer, tick } = fakeTime();
    const hostApi = new MemoryCluster('host');
    const lease = new TenantLease(hostApi, TENANT, 'p1', clock, undefined, timer);
    const guarded = leaseGuarded(hostApi, lease, TENANT);
    await guarded.create(copy);
    hostApi.replace(otherLease());
    await tick(DEFAULT_LEASE_MS / 3);
    expect(lease.refused?.lost).toBe(true);
    expect(lease.refused?.message).toContain('lost the tenant');
    const creates = hostApi.callsOf('create').length;
    await expect(
      guarded.create({ ...copy, metadata: { name: 'y', namespace: HOST_NS } }),
    ).rejects.toBeInstanceOf(LeaseHeldError);
    expect(hostApi.callsOf('create').length).toBe(creates);
    await lease.release();
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec).toMatchObject({
      holderIdentity: 'tenantplane pass other',
    });
  });

  it('a renewal that cannot be made before the lease expires refuses later writes too', async () => {
    const { clock, timer, tick } = fakeTime();
    const hostApi = new MemoryCluster('host');
    const lease = new TenantLease(hostApi, TENANT, 'p1', clock, undefined, timer);
    await lease.take(HOST_NS);
    hostApi.failWhen((call) =>
      call.kind === 'Lease' && call.method === 'update'
        ? new ClusterError('Transport', 'connection refused')
        : undefined,
    );
    await tick(DEFAULT_LEASE_MS / 3);
    expect(lease.refused).toBeUndefined(); // tried again at the next tick, still in time
    await tick(DEFAULT_LEASE_MS / 3);
    expect(lease.refused?.lost).toBe(true);
    expect(lease.refused?.holding.holder).toContain('could not be renewed');
  });
});
