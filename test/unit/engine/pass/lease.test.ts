/**
 * The pass inside its guards: with `lease`, a pass that writes holds the tenant's lease from its
 * first write to its end (bounded by the pass deadline plus the reporting reserve), a pass that
 * writes nothing or only plans (dry run) never takes it, and a pass that finds it held writes
 * nothing and its result (and its sinks) say who holds it.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/pass/pass.js';
import { DEFAULT_LEASE_MS, LEASE, leaseName } from '../../../../lib/engine/tenant/tenant-lease.js';
import { ClusterError, type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hostCopyOf, RecordingSink, TENANT } from '../support.js';

const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

function liveLease(holder = 'tenantplane pass other'): KubeObject {
  const since = Date.now() - 5_000;
  return {
    ...LEASE,
    metadata: { name: leaseName(TENANT), namespace: HOST_NS },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 600,
      acquireTime: micro(since),
      renewTime: micro(since),
    },
  };
}

const leaseCalls = (hostApi: MemoryCluster) =>
  hostApi.calls.filter((c) => c.kind === 'Lease').map((c) => c.method);

const writes = (hostApi: MemoryCluster) =>
  hostApi.calls.filter((c) => c.method !== 'get' && c.method !== 'list');

describe('runPass with the lease', () => {
  it('a steady pass (nothing to write) takes no lease', async () => {
    const source = cm('a', 'x');
    const { tenantApi, hostApi } = clusters([source], [hostCopyOf(source)], {
      toHost: [CONFIGMAP],
    });
    // The first pass records its status, under the lease; the next one writes nothing at all.
    await runPass({ tenant: TENANT, tenantApi, hostApi, lease: true });
    expect(leaseCalls(hostApi)).toEqual(['create', 'delete']);
    hostApi.calls.length = 0;
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, lease: true });
    expect(result.complete).toBe(true);
    expect(result.counts).toMatchObject({ Create: 0, Update: 0, Delete: 0 });
    expect(leaseCalls(hostApi)).toEqual([]);
    expect(writes(hostApi)).toEqual([]);
    expect(result.requests.host.writes).toBe(0);
  });

  it('a pass that writes holds the lease while it writes and releases it at its end', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x'), cm('a', 'y')], [], {
      toHost: [CONFIGMAP],
    });
    const heldAtWrite: Array<KubeObject | undefined> = [];
    hostApi.failWhen((call) => {
      if (call.method === 'create' && call.kind === 'ConfigMap') {
        heldAtWrite.push(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT)));
      }
      return undefined;
    });
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      lease: true,
      passId: 'pass-7',
    });
    expect(result.counts.Create).toBe(2);
    expect(heldAtWrite).toHaveLength(2);
    for (const held of heldAtWrite) {
      expect(held?.spec).toMatchObject({
        holderIdentity: expect.stringMatching(/^tenantplane pass pass-7 /),
      });
    }
    expect(leaseCalls(hostApi)).toEqual(['create', 'delete']);
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))).toBeUndefined();
    // The lease's create and delete are not what the sync cost.
    expect(result.requests.host.writes).toBe(2);
    expect(result.leaseHeld).toBeUndefined();
    expect(result.warnings ?? []).toEqual([]);
  });

  it('holds the lease until the deadline plus the reporting reserve, or the default without one', async () => {
    const now = Date.UTC(2030, 0, 1);
    const durations: unknown[] = [];
    for (const budget of [{ deadline: now + 60_000, reportReserveMs: 3_000 }, {}]) {
      const { tenantApi, hostApi } = clusters([cm('a', 'x')], [], { toHost: [CONFIGMAP] });
      hostApi.failWhen((call) => {
        if (call.method === 'create' && call.kind === 'ConfigMap') {
          const spec = hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec as
            | Record<string, unknown>
            | undefined;
          durations.push(spec?.leaseDurationSeconds);
        }
        return undefined;
      });
      await runPass({
        tenant: TENANT,
        tenantApi,
        hostApi,
        lease: true,
        budget,
        clock: { now: () => now },
      });
    }
    expect(durations).toEqual([63 + 1, DEFAULT_LEASE_MS / 1000 + 1]);
  });

  it('a lease another pass holds: no writes at all, and the result and the sinks say who holds it', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('a', 'x')],
      [liveLease(), hostCopyOf(cm('a', 'gone'))],
      { toHost: [CONFIGMAP] },
    );
    const sink = new RecordingSink();
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      lease: true,
      sinks: [sink],
    });
    expect(writes(hostApi)).toEqual([expect.objectContaining({ method: 'create', kind: 'Lease' })]);
    expect(result).toMatchObject({
      tenant: TENANT,
      dryRun: false,
      complete: false,
      statusWritten: false,
      errors: [],
      decisions: [],
      leaseHeld: { lease: `${HOST_NS}/${leaseName(TENANT)}`, holder: 'tenantplane pass other' },
    });
    expect(result.incompleteReason).toContain('holder tenantplane pass other');
    expect(result.requests.host.writes).toBe(0);
    expect(sink.decisions).toEqual([]);
    expect(sink.results).toEqual([result]);
    // Not released: it is not this pass's.
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec).toMatchObject({
      holderIdentity: 'tenantplane pass other',
    });
    expect(hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status).not.toHaveProperty('lastPass');
  });

  it('a dry run never takes it, even when it plans writes', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'new')], [liveLease()], {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, lease: true, dryRun: true });
    expect(result.counts.Create).toBe(1);
    expect(result.leaseHeld).toBeUndefined();
    expect(leaseCalls(hostApi)).toEqual([]);
    expect(writes(hostApi)).toEqual([]);
  });

  it('without `lease`, a pass writes without taking it, even when another pass holds it', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [liveLease()], {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
    expect(result.counts.Create).toBe(1);
    expect(leaseCalls(hostApi)).toEqual([]);
  });

  it('a lease that cannot be taken: the pass writes anyway and warns', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.kind === 'Lease'
        ? new ClusterError('Forbidden', 'leases is forbidden', { status: 403 })
        : undefined,
    );
    const sink = new RecordingSink();
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      lease: true,
      sinks: [sink],
    });
    expect(result.counts.Create).toBe(1);
    expect(result.warnings).toEqual([expect.objectContaining({ reason: 'LeaseUnavailable' })]);
    expect(sink.results).toEqual([result]);
  });

  it('sinks hear each decision as it is made, and a sink that throws does not stop the pass', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [], { toHost: [CONFIGMAP] });
    const sink = new RecordingSink();
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      lease: true,
      sinks: [
        {
          decision: () => {
            throw new Error('broken sink');
          },
          passFinished: async () => {},
        },
        sink,
      ],
    });
    expect(result.counts.Create).toBe(1);
    expect(sink.decisions).toEqual(result.decisions);
    expect(sink.decisions).toHaveLength(1);
    expect(sink.results).toEqual([result]);
  });
});
