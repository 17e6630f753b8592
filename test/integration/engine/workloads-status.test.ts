/**
 * Status back on the real clusters: a tenant Pod whose host copy the host scheduler placed on a
 * kwok node, Running with an IP, shows that status in the tenant after a pass (phase, IPs, the
 * Ready condition, its container statuses), keeps its own qosClass, and later passes write
 * nothing on either side.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { createTenant, pass, tenantObject, useApis, waitFor } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };

interface PodStatus {
  phase?: string;
  podIP?: string;
  hostIP?: string;
  qosClass?: string;
  conditions?: Array<{ type: string; status: string }>;
  containerStatuses?: Array<{ name: string; ready?: boolean }>;
}

const statusOf = (pod: KubeObject | undefined): PodStatus => (pod?.status ?? {}) as PodStatus;
const isReady = (status: PodStatus) =>
  status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('status back for Pods', () => {
  it('a tenant Pod whose host copy runs shows Running with its IPs, Ready and its containers; its qosClass stays; later passes write nothing', async () => {
    const t = await createTenant(apis(), 'wl-status', { toHost: [POD] });
    const ns = t.vns.a;
    const spec = {
      // The tenant token is workloads-token.test.ts's subject.
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));
    const qosClass = statusOf(await t.tenantApi.get(POD, ns, 'web')).qosClass;
    expect(qosClass).toBe('BestEffort');

    const created = await pass(t);
    expect(created.result.errors).toEqual([]);
    const h = hostName('web', ns, t.name);
    const hostStatus = await waitFor(
      'the host Pod Running with an IP and Ready',
      async () => {
        const status = statusOf(await t.hostApi.get(POD, t.hostNamespace, h));
        return status.phase === 'Running' && status.podIP && isReady(status) ? status : undefined;
      },
      60_000,
    );

    const back = await pass(t);
    expect(back.result.errors).toEqual([]);
    // The host may run the Pod before the first pass's status step reads it: then that pass wrote
    // the Running status and this one has nothing left to write. Either way exactly one status
    // write showed Running, and the host is not written. Beside it, at most the binding of the
    // tenant Pod to its node and that tenant Node (nodes back: workloads-nodes.test.ts).
    expect(back.result.requests.tenant.writes).toBeLessThanOrEqual(3);
    expect(
      created.result.requests.tenant.writes + back.result.requests.tenant.writes,
    ).toBeGreaterThanOrEqual(1);
    expect(back.result.requests.host.writes).toBe(0);
    const shown = statusOf(await t.tenantApi.get(POD, ns, 'web'));
    expect(shown).toMatchObject({
      phase: 'Running',
      podIP: hostStatus.podIP,
      hostIP: hostStatus.hostIP,
      qosClass,
    });
    expect(isReady(shown)).toBe(true);
    expect(shown.containerStatuses?.map((c) => [c.name, c.ready])).toEqual([['web', true]]);

    // The second pass may resume (it sees the status write as a change), the third is full.
    for (const options of [{}, { full: true }]) {
      const steady = await pass(t, options);
      expect(steady.result.errors).toEqual([]);
      // A tenant Node comes in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts asserts them).
      expect(steady.result.decisions.filter((d) => d.kind !== 'Node')).toEqual([]);
      expect(steady.result.requests.tenant.writes).toBe(0);
      expect(steady.result.requests.host.writes).toBe(0);
    }
    expect(statusOf(await t.tenantApi.get(POD, ns, 'web')).qosClass).toBe(qosClass);
  });

  it('a claim bound on the host is Bound in the tenant with its capacity; a Service has its host copy’s cluster IP; later passes write nothing', async () => {
    const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
    const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
    const t = await createTenant(apis(), 'wl-claim', { toHost: [CLAIM, SERVICE] });
    const ns = t.vns.a;
    // No class: the host's default StorageClass (the host-path provisioner) binds it.
    await t.tenantApi.create(
      tenantObject(t, CLAIM, ns, 'data', {
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
      }),
    );
    await t.tenantApi.create(
      tenantObject(t, SERVICE, ns, 'web', {
        spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
      }),
    );
    const created = await pass(t);
    expect(created.result.errors).toEqual([]);
    const hostClaim = await waitFor(
      'the host claim Bound',
      async () => {
        const claim = await t.hostApi.get(CLAIM, t.hostNamespace, hostName('data', ns, t.name));
        return (claim?.status as { phase?: string } | undefined)?.phase === 'Bound'
          ? claim
          : undefined;
      },
      60_000,
    );
    // A claim still moving kept the kind on full passes: the next pass (whatever its path) sees it.
    const back = await pass(t);
    expect(back.result.errors).toEqual([]);
    expect(back.result.requests.host.writes).toBe(0);
    const tenantClaim = await t.tenantApi.get(CLAIM, ns, 'data');
    expect(tenantClaim?.status).toMatchObject({
      phase: 'Bound',
      capacity: (hostClaim.status as { capacity?: unknown }).capacity,
      accessModes: ['ReadWriteOnce'],
    });
    // The tenant's volume is not the host's: none is named in the tenant.
    expect((tenantClaim?.spec as { volumeName?: string } | undefined)?.volumeName).toBeUndefined();
    const hostService = await t.hostApi.get(SERVICE, t.hostNamespace, hostName('web', ns, t.name));
    const clusterIp = (hostService?.spec as { clusterIP?: string } | undefined)?.clusterIP;
    expect(clusterIp).toBeTruthy();
    // Aligned: asked for at create (docs/names-and-addresses.md).
    const tenantService = await t.tenantApi.get(SERVICE, ns, 'web');
    expect((tenantService?.spec as { clusterIP?: string } | undefined)?.clusterIP).toBe(clusterIp);
    for (const options of [{}, { full: true }, {}]) {
      const steady = await pass(t, options);
      expect(steady.result.errors).toEqual([]);
      expect(steady.result.decisions).toEqual([]);
      expect(steady.result.requests.tenant.writes).toBe(0);
      expect(steady.result.requests.host.writes).toBe(0);
    }
  });
});
