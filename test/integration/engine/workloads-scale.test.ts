/**
 * A scale-down on the real clusters: a tenant Deployment of 24 replicas, running on the host, is
 * scaled to 2. The 22 Pods the tenant's ReplicaSet deletes stay Terminating (their default grace
 * period) until the engine ends them, so the tenant listing shows each one being deleted: the
 * tenant's own deletions, seen, not an absence. One pass deletes every copy with the Pod's grace
 * period, with no mass-delete guard and no confirmation, and the tenant settles at 2. A
 * uid/resourceVersion snapshot of the host namespace shows nothing else deleted.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  LABEL,
  pass,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };

/** Whether the Deployment's current generation has `replicas` available. */
function available(deployment: KubeObject | undefined, replicas: number): boolean {
  const status = (deployment?.status ?? {}) as Record<string, unknown>;
  return (
    status.observedGeneration === deployment?.metadata.generation &&
    status.replicas === replicas &&
    status.availableReplicas === replicas
  );
}

describe('a scale-down of most replicas', () => {
  it('is the tenant’s own deletion: one pass deletes all 22 copies with no guard and no confirmation, and the tenant settles at 2', async () => {
    const t = await createTenant(apis(), 'wl-scale', { toHost: [POD] });
    const ns = t.vns.a;
    const labels = { app: 'wide', [LABEL]: t.name };
    await t.tenantApi.create(
      tenantObject(t, DEPLOYMENT, ns, 'wide', {
        spec: {
          replicas: 24,
          selector: { matchLabels: { app: 'wide' } },
          template: {
            metadata: { labels },
            spec: {
              automountServiceAccountToken: false,
              containers: [{ name: 'web', image: 'nginx:1' }],
            },
          },
        },
      }),
    );
    const current = () => t.tenantApi.get(DEPLOYMENT, ns, 'wide');
    const tenantPods = async () =>
      (await t.tenantApi.list(POD, { namespace: ns, labelSelector: 'app=wide' })).items;
    await waitFor(
      '24 replicas available, through passes',
      async () => {
        expect((await pass(t, { full: true })).result.errors).toEqual([]);
        return available(await current(), 24) || undefined;
      },
      120_000,
    );

    const deployment = (await current()) as KubeObject;
    await t.tenantApi.update({
      ...deployment,
      spec: { ...(deployment.spec as Record<string, unknown>), replicas: 2 },
    });
    const ending = await waitFor('22 tenant Pods Terminating', async () => {
      const pods = (await tenantPods()).filter((p) => p.metadata.deletionTimestamp);
      return pods.length === 22 ? pods : undefined;
    });
    const before = await snapshot(t.hostNamespace);

    const scaled = await pass(t);
    expect(scaled.result.errors).toEqual([]);
    expect((scaled.result.warnings ?? []).map((w) => w.reason)).toEqual([]);
    const copies = ending.map((p) => hostName(p.metadata.name, ns, t.name)).sort();
    const deleted = scaled.result.decisions
      .filter((d) => d.action === 'Delete' && d.hostRef.namespace === t.hostNamespace)
      .map((d) => d.hostRef.name);
    expect([...new Set(deleted)].sort()).toEqual(copies);
    expect(scaled.result.decisions.filter((d) => d.action === 'Skip')).toEqual([]);
    const diff = diffSnapshots(before, await snapshot(t.hostNamespace));
    // Copies still ending (kwok honours the grace period) show as changed, not yet deleted.
    const touched = [...diff.changed, ...diff.deleted].filter((k) => k.startsWith('Pod/')).sort();
    expect(touched.every((k) => copies.includes(k.slice('Pod/'.length)))).toBe(true);
    expect(diff.created).toEqual([]);

    await waitFor(
      'the tenant at 2 Pods, none Terminating, and 2 host Pods',
      async () => {
        expect((await pass(t)).result.errors).toEqual([]);
        const pods = await tenantPods();
        const hostPods = (await t.hostApi.list(POD, { namespace: t.hostNamespace })).items;
        return pods.length === 2 && hostPods.length === 2 ? true : undefined;
      },
      60_000,
    );
  }, 240_000);
});
