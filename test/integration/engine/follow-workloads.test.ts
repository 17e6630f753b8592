/**
 * Follow mode with workloads on the real clusters (issue 29): with a follow running and no other
 * command, a Deployment created in the tenant (its ReplicaSet and Pods made by the tenant's own
 * controller manager) reaches all replicas available, its Pods run on the host (scheduled by the
 * host scheduler, run by kwok) and report back; a rolling update completes; a host Pod deleted on
 * the host ends its tenant Pod, and the replacement runs; a scale-down of most replicas settles
 * with no Skip and no confirmation (one pass over all of it: `workloads-scale.test.ts`).
 */
import { describe, expect, it } from '@jest/globals';
import { hostName, runFollow } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { createTenant, LABEL, type Tenant, tenantObject, useApis, waitFor } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };

interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
}

/** The Deployment's status once it says `replicas` of the current generation are available. */
function rolledOut(deployment: KubeObject | undefined, replicas: number): boolean {
  const status = (deployment?.status ?? {}) as DeploymentStatus;
  return (
    status.observedGeneration === deployment?.metadata.generation &&
    status.replicas === replicas &&
    status.updatedReplicas === replicas &&
    status.availableReplicas === replicas
  );
}

/** A follow of tenant `t` started, with every pass it runs; `abort` ends it. */
function follow(t: Tenant) {
  const abort = new AbortController();
  const passes: PassResult[] = [];
  const following = runFollow({
    tenant: t.name,
    tenantApi: t.tenantApi,
    hostApi: t.hostApi,
    signal: abort.signal,
    onPass: (result) => passes.push(result),
  });
  return { abort, passes, following };
}

describe('follow mode with workloads', () => {
  it('a Deployment reaches available in the tenant, rolls out an update, and replaces a Pod the host deleted, with no other command', async () => {
    const t = await createTenant(apis(), 'fw', { toHost: [POD] });
    const ns = t.vns.a;
    const { abort, passes, following } = follow(t);
    try {
      await waitFor('the first pass', async () => (passes.length > 0 ? true : undefined));
      const labels = { app: 'web', [LABEL]: t.name };
      const template = (image: string) => ({
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'web', image }],
          terminationGracePeriodSeconds: 0,
        },
      });
      await t.tenantApi.create(
        tenantObject(t, DEPLOYMENT, ns, 'web', {
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'web' } },
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
            template: template('nginx:1'),
          },
        }),
      );
      const current = () => t.tenantApi.get(DEPLOYMENT, ns, 'web');
      await waitFor(
        '3 replicas available',
        async () => rolledOut(await current(), 3) || undefined,
        60_000,
      );

      // A rolling update: one Pod more at a time, none unavailable.
      const deployment = (await current()) as KubeObject;
      const spec = deployment.spec as Record<string, unknown>;
      await t.tenantApi.update({ ...deployment, spec: { ...spec, template: template('nginx:2') } });
      await waitFor(
        'the rollout complete',
        async () => rolledOut(await current(), 3) || undefined,
        60_000,
      );
      const pods = (await t.tenantApi.list(POD, { namespace: ns, labelSelector: 'app=web' })).items;
      const running = pods.filter((p) => !p.metadata.deletionTimestamp);
      expect(running).toHaveLength(3);
      for (const pod of running) {
        const container = (pod.spec as { containers: Array<{ image: string }> }).containers[0];
        expect(container?.image).toBe('nginx:2');
        expect((pod.status as { phase?: string }).phase).toBe('Running');
      }

      // The host deletes one host Pod: its tenant Pod ends, and the replacement runs.
      const victim = running[0] as KubeObject;
      const copy = hostName(victim.metadata.name, ns, t.name);
      const hostPod = (await t.hostApi.get(POD, t.hostNamespace, copy)) as KubeObject;
      await t.hostApi.delete(POD, t.hostNamespace, copy, { uid: hostPod.metadata.uid as string });
      await waitFor(
        'the tenant Pod ended',
        async () => ((await t.tenantApi.get(POD, ns, victim.metadata.name)) ? undefined : true),
        30_000,
      );
      await waitFor(
        '3 replicas available again',
        async () => rolledOut(await current(), 3) || undefined,
        60_000,
      );
    } finally {
      abort.abort();
    }
    const result = await following;
    expect(result.failures).toEqual([]);
    expect(passes.flatMap((p) => p.errors)).toEqual([]);
    expect(result.changes).toBeGreaterThan(0);
  }, 240_000);

  it('a Deployment scaled from 24 to 2 settles with no confirmation and no Skip', async () => {
    const t = await createTenant(apis(), 'fw-scale', { toHost: [POD] });
    const ns = t.vns.a;
    const { abort, passes, following } = follow(t);
    const current = () => t.tenantApi.get(DEPLOYMENT, ns, 'wide');
    try {
      await waitFor('the first pass', async () => (passes.length > 0 ? true : undefined));
      const labels = { app: 'wide', [LABEL]: t.name };
      await t.tenantApi.create(
        tenantObject(t, DEPLOYMENT, ns, 'wide', {
          spec: {
            replicas: 24,
            selector: { matchLabels: { app: 'wide' } },
            // The default grace period: scaled-away Pods stay Terminating until the engine ends them.
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
      await waitFor(
        '24 replicas available',
        async () => rolledOut(await current(), 24) || undefined,
        120_000,
      );

      const deployment = (await current()) as KubeObject;
      await t.tenantApi.update({
        ...deployment,
        spec: { ...(deployment.spec as Record<string, unknown>), replicas: 2 },
      });
      await waitFor(
        'the tenant down to 2 Pods, none Terminating, and 2 host Pods',
        async () => {
          const pods = (await t.tenantApi.list(POD, { namespace: ns, labelSelector: 'app=wide' }))
            .items;
          const copies = (await t.hostApi.list(POD, { namespace: t.hostNamespace })).items;
          return pods.length === 2 && copies.length === 2 && rolledOut(await current(), 2)
            ? true
            : undefined;
        },
        120_000,
      );
    } finally {
      abort.abort();
    }
    const result = await following;
    expect(result.failures).toEqual([]);
    expect(passes.flatMap((p) => p.errors)).toEqual([]);
    expect(passes.flatMap((p) => p.warnings ?? []).map((w) => w.reason)).not.toContain(
      'MassDeleteGuard',
    );
    expect(passes.flatMap((p) => p.decisions).filter((d) => d.action === 'Skip')).toEqual([]);
  }, 300_000);
});
