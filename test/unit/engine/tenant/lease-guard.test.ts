/**
 * The clients behind the tenant's lease: the first write on either side takes the lease (once, in
 * the host namespace the TenantCluster names), writes to the TenantCluster too, to Lease objects
 * none, a lease found held makes every later write throw without a request, and lease
 * requests stay out of `requestCount()`.
 */
import { describe, expect, it } from '@jest/globals';
import { leaseGuarded, tenantLeaseGuarded } from '../../../../lib/engine/tenant/lease-guard.js';
import {
  LEASE,
  LeaseHeldError,
  leaseName,
  TenantLease,
} from '../../../../lib/engine/tenant/tenant-lease.js';
import { ClusterError, type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm, HOST_NS, TENANT, tenantCluster } from '../support.js';

const NOW = Date.UTC(2030, 0, 1);
const clock = { now: () => NOW };
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** A host holding the TenantCluster, and the guarded client of one pass over it. */
function guarded(...hostState: KubeObject[]) {
  const hostApi = new MemoryCluster('host').seed(tenantCluster(), ...hostState);
  const lease = new TenantLease(hostApi, TENANT, 'pass-1', clock, undefined);
  return { hostApi, lease, api: leaseGuarded(hostApi, lease, TENANT) };
}

/** A Lease a live pass holds (taken a minute ago, for ten minutes). */
function liveLease(): KubeObject {
  return {
    ...LEASE,
    metadata: { name: leaseName(TENANT), namespace: HOST_NS },
    spec: {
      holderIdentity: 'tenantplane pass other',
      leaseDurationSeconds: 600,
      acquireTime: micro(NOW - 60_000),
      renewTime: micro(NOW - 60_000),
    },
  };
}

const callLines = (hostApi: MemoryCluster) =>
  hostApi.calls.map((c) => `${c.method} ${c.kind} ${c.namespace ?? '-'}/${c.name ?? '-'}`);

describe('leaseGuarded', () => {
  it('takes the lease once, before the first namespaced write, and never for reads', async () => {
    const { hostApi, api } = guarded(cm(HOST_NS, 'old'));
    await api.list(CONFIGMAP, { namespace: HOST_NS });
    await api.get(CONFIGMAP, HOST_NS, 'old');
    expect(hostApi.callsOf('create')).toEqual([]);

    const created = await api.create(cm(HOST_NS, 'a'));
    await api.update({ ...created, data: { k: 'w' } });
    await api.create(cm(HOST_NS, 'b'));
    const old = hostApi.peek(CONFIGMAP, HOST_NS, 'old') as KubeObject;
    await api.delete(CONFIGMAP, HOST_NS, 'old', { uid: old.metadata.uid as string });

    expect(callLines(hostApi).slice(2)).toEqual([
      `create Lease ${HOST_NS}/tenantplane-dev`,
      `create ConfigMap ${HOST_NS}/a`,
      `update ConfigMap ${HOST_NS}/a`,
      `create ConfigMap ${HOST_NS}/b`,
      `delete ConfigMap ${HOST_NS}/old`,
    ]);
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec).toMatchObject({
      holderIdentity: expect.stringContaining('tenantplane pass pass-1'),
    });
  });

  it('guards a client whose methods are read-only own properties (Object.create with descriptors)', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster(), cm(HOST_NS, 'old'));
    const deleted: string[] = [];
    // As a test double or a wrapper builds it: a non-writable, non-configurable `delete`.
    const wrapped: MemoryCluster = Object.create(hostApi, {
      delete: {
        value: async (...args: Parameters<MemoryCluster['delete']>) => {
          deleted.push(args[2]);
          return hostApi.delete(...args);
        },
      },
    });
    const lease = new TenantLease(hostApi, TENANT, 'pass-1', clock, undefined);
    const api = leaseGuarded(wrapped, lease, TENANT);
    const old = hostApi.peek(CONFIGMAP, HOST_NS, 'old') as KubeObject;
    await api.delete(CONFIGMAP, HOST_NS, 'old', { uid: old.metadata.uid as string });
    expect(deleted).toEqual(['old']);
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))).toBeDefined();
  });

  it('takes the lease in the host namespace of the TenantCluster it read, whatever the write', async () => {
    const { hostApi, api } = guarded();
    await api.get(TENANT_CLUSTER, undefined, TENANT);
    await api.create(cm('elsewhere', 'a'));
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))).toBeDefined();
    expect(hostApi.peek(LEASE, 'elsewhere', leaseName(TENANT))).toBeUndefined();
  });

  it('without a TenantCluster read, takes it in the namespace of the write', async () => {
    const { hostApi, api } = guarded();
    await api.create(cm('elsewhere', 'a'));
    expect(hostApi.peek(LEASE, 'elsewhere', leaseName(TENANT))).toBeDefined();
  });

  it('takes the lease for writes to the TenantCluster (finalizer, status) too, never for Lease objects', async () => {
    const { hostApi, api } = guarded();
    const tc = (await api.get(TENANT_CLUSTER, undefined, TENANT)) as KubeObject;
    const other = await api.create({
      ...LEASE,
      metadata: { name: 'other', namespace: HOST_NS },
      spec: {},
    });
    await api.delete(LEASE, HOST_NS, 'other', { uid: other.metadata.uid as string });
    expect(hostApi.calls.filter((c) => c.kind === 'Lease').map((c) => c.name)).toEqual([
      'other',
      'other',
    ]);
    await api.update({ ...tc, metadata: { ...tc.metadata, finalizers: [] } });
    await api.patchStatus(TENANT_CLUSTER, undefined, TENANT, { observed: 1 });
    expect(callLines(hostApi).slice(3)).toEqual([
      `create Lease ${HOST_NS}/tenantplane-dev`,
      `update TenantCluster -/${TENANT}`,
      `patchStatus TenantCluster -/${TENANT}`,
    ]);
  });

  it('a TenantCluster status the lease refuses is not written', async () => {
    const { hostApi, api } = guarded(liveLease());
    await api.get(TENANT_CLUSTER, undefined, TENANT);
    await expect(
      api.patchStatus(TENANT_CLUSTER, undefined, TENANT, { observed: 1 }),
    ).rejects.toBeInstanceOf(LeaseHeldError);
    expect(hostApi.callsOf('patchStatus')).toEqual([]);
  });

  it('a lease held by another pass: the write throws, and every later write throws without a request', async () => {
    const { hostApi, lease, api } = guarded(liveLease(), cm(HOST_NS, 'old'));
    await expect(api.create(cm(HOST_NS, 'a'))).rejects.toBeInstanceOf(LeaseHeldError);
    expect(lease.refused?.holding.holder).toBe('tenantplane pass other');
    expect(hostApi.peek(CONFIGMAP, HOST_NS, 'a')).toBeUndefined();
    const before = hostApi.calls.length;

    const old = hostApi.peek(CONFIGMAP, HOST_NS, 'old') as KubeObject;
    await expect(api.create(cm(HOST_NS, 'b'))).rejects.toBe(lease.refused);
    await expect(api.update({ ...old, data: { k: 'w' } })).rejects.toBe(lease.refused);
    await expect(
      api.delete(CONFIGMAP, HOST_NS, 'old', { uid: old.metadata.uid as string }),
    ).rejects.toBe(lease.refused);
    await expect(api.patchStatus(TENANT_CLUSTER, undefined, TENANT, { observed: 1 })).rejects.toBe(
      lease.refused,
    );
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    await expect(api.update(tc)).rejects.toBe(lease.refused);
    expect(hostApi.calls.length).toBe(before);

    // Reads still go through.
    await expect(api.get(CONFIGMAP, HOST_NS, 'old')).resolves.toBeDefined();
  });

  it('keeps lease requests out of requestCount(), the sync writes in', async () => {
    const { hostApi, lease, api } = guarded();
    await api.create(cm(HOST_NS, 'a'));
    await api.create(cm(HOST_NS, 'b'));
    await lease.release();
    expect(hostApi.requestCount()).toEqual({ reads: 0, writes: 4 });
    expect(api.requestCount()).toEqual({ reads: 0, writes: 2 });
  });

  it('keeps the reads of a held lease out of requestCount() too', async () => {
    const { hostApi, api } = guarded(liveLease());
    await api.get(CONFIGMAP, HOST_NS, 'x');
    await expect(api.create(cm(HOST_NS, 'a'))).rejects.toBeInstanceOf(LeaseHeldError);
    expect(hostApi.requestCount()).toEqual({ reads: 2, writes: 1 });
    expect(api.requestCount()).toEqual({ reads: 1, writes: 0 });
  });

  it('a lease the server refuses for another reason: the write goes through, unprotected', async () => {
    const { hostApi, lease, api } = guarded();
    hostApi.failWhen((c) =>
      c.kind === 'Lease'
        ? new ClusterError('Forbidden', 'leases is forbidden', { status: 403 })
        : undefined,
    );
    await api.create(cm(HOST_NS, 'a'));
    await api.create(cm(HOST_NS, 'b'));
    expect(hostApi.peek(CONFIGMAP, HOST_NS, 'b')).toBeDefined();
    expect(hostApi.callsOf('create').filter((c) => c.kind === 'Lease')).toHaveLength(1);
    expect(lease.refused).toBeUndefined();
    expect(lease.unavailable).toMatch(/leases is forbidden/);
  });

  it('a host that does not answer the lease request fails the write with it', async () => {
    const { hostApi, api } = guarded();
    hostApi.failWhen((c) =>
      c.kind === 'Lease' ? new ClusterError('Transport', 'connection refused') : undefined,
    );
    await expect(api.create(cm(HOST_NS, 'a'))).rejects.toThrow('connection refused');
    expect(hostApi.peek(CONFIGMAP, HOST_NS, 'a')).toBeUndefined();
  });

  it('passes every other member of the client through, bound to it', async () => {
    const { api } = guarded();
    await expect(api.namespaced?.(CONFIGMAP)).resolves.toBe(true);
  });
});

describe('tenantLeaseGuarded', () => {
  /** A pass's two clients over one lease, the host one having read the TenantCluster. */
  async function both(...hostState: KubeObject[]) {
    const { hostApi, lease, api } = guarded(...hostState);
    const tenantApi = new MemoryCluster('tenant').seed(cm('shop', 'mine'));
    const tenant = tenantLeaseGuarded(tenantApi, lease);
    await api.get(TENANT_CLUSTER, undefined, TENANT);
    return { hostApi, tenantApi, lease, tenant };
  }

  it('takes the lease on the host before the first tenant write, once, and never for reads', async () => {
    const { hostApi, tenantApi, tenant } = await both();
    await tenant.list(CONFIGMAP, { namespace: 'shop' });
    await tenant.get(CONFIGMAP, 'shop', 'mine');
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))).toBeUndefined();
    const created = await tenant.create(cm('shop', 'a'));
    await tenant.update({ ...created, data: { k: 'w' } });
    await tenant.patchStatus(CONFIGMAP, 'shop', 'a', { observed: 1 });
    const mine = tenantApi.peek(CONFIGMAP, 'shop', 'mine') as KubeObject;
    await tenant.delete(CONFIGMAP, 'shop', 'mine', { uid: mine.metadata.uid as string });
    expect(hostApi.callsOf('create').map((c) => `${c.kind} ${c.namespace}/${c.name}`)).toEqual([
      `Lease ${HOST_NS}/tenantplane-dev`,
    ]);
    expect(tenantApi.callsOf('create')).toHaveLength(1);
    expect(tenantApi.callsOf('delete')).toHaveLength(1);
  });

  it('a lease held by another pass: no tenant write is sent, the first or any later one', async () => {
    const { tenantApi, lease, tenant } = await both(liveLease());
    const before = tenantApi.calls.length;
    const mine = tenantApi.peek(CONFIGMAP, 'shop', 'mine') as KubeObject;
    await expect(tenant.create(cm('shop', 'a'))).rejects.toBeInstanceOf(LeaseHeldError);
    await expect(tenant.update({ ...mine, data: { k: 'w' } })).rejects.toBe(lease.refused);
    await expect(
      tenant.delete(CONFIGMAP, 'shop', 'mine', { uid: mine.metadata.uid as string }),
    ).rejects.toBe(lease.refused);
    await expect(tenant.patchStatus(CONFIGMAP, 'shop', 'mine', { x: 1 })).rejects.toBe(
      lease.refused,
    );
    expect(tenantApi.calls.length).toBe(before);
    expect(tenantApi.peek(CONFIGMAP, 'shop', 'a')).toBeUndefined();
  });

  it('a lease the host refused for the host side refuses the tenant side without a request', async () => {
    const { hostApi, tenantApi, tenant, lease } = await both(liveLease());
    const host = leaseGuarded(hostApi, lease, TENANT);
    await expect(host.create(cm(HOST_NS, 'a'))).rejects.toBeInstanceOf(LeaseHeldError);
    const leaseRequests = hostApi.calls.length;
    await expect(tenant.create(cm('shop', 'a'))).rejects.toBe(lease.refused);
    expect(hostApi.calls.length).toBe(leaseRequests);
    expect(tenantApi.callsOf('create')).toEqual([]);
  });

  it('a tenant write before the TenantCluster was read is not sent', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster());
    const lease = new TenantLease(hostApi, TENANT, 'pass-1', clock, undefined);
    const tenantApi = new MemoryCluster('tenant');
    const tenant = tenantLeaseGuarded(tenantApi, lease);
    await expect(tenant.create(cm('shop', 'a'))).rejects.toThrow(/lease could not be located/);
    expect(tenantApi.calls).toEqual([]);
  });
});
