/**
 * How a Pod ends, both ways: a tenant Pod deleted with a grace period deletes its host copy with
 * the same one, and once the copy is gone the engine finishes the tenant Pod's deletion as its
 * kubelet would; a host copy the host deleted or evicted ends its tenant Pod as on a lost node,
 * and is never made anew under the same identity.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import type { KubeObject, PassResult } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const LATER = Date.parse('2025-01-01T00:00:00Z') + 60 * 60_000;
const HOST_WEB = hn('shop', 'web');

const tenantPod = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  ...POD,
  metadata: { namespace: 'shop', name, uid: `uid-${name}` },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }], ...spec },
  status: { phase: 'Pending', qosClass: 'BestEffort' },
});
const hostNode: KubeObject = {
  ...NODE,
  metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } },
  status: { capacity: { pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
};
const RUNNING = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

/**
 * A tenant whose Pods wait for a kubelet to end them (as a real apiserver's bound Pods do); the
 * host's own kubelets are either quick (its copies go at once) or not (`slowHost`).
 */
function setup(pods: KubeObject[] = [tenantPod('web')], slowHost = false) {
  const { tenantApi, hostApi } = clusters(
    pods,
    [hostNode],
    { toHost: [POD] },
    { tenant: { kubeletGrace: true }, host: { kubeletGrace: slowHost } },
  );
  const run = (options: { path?: 'full' } = {}) =>
    runPass({ tenant: 'dev', tenantApi, hostApi, clock: { now: () => LATER }, ...options });
  /** The host schedules the host Pod of `name` on node-a, and its kubelet runs it. */
  const schedule = (name: string) => {
    const pod = hostApi.peek(POD, HOST_NS, hn('shop', name));
    if (!pod) throw new Error(`no host Pod ${name}`);
    hostApi.replace({
      ...pod,
      spec: { ...(pod.spec as object), nodeName: 'node-a' },
      status: RUNNING,
    });
  };
  /** Runs the tenant Pod on the host: created, scheduled, bound in the tenant. */
  const running = async () => {
    await run();
    for (const pod of pods) schedule(pod.metadata.name);
    const bound = await run({ path: 'full' });
    expect(bound.errors).toEqual([]);
  };
  return { tenantApi, hostApi, run, running };
}

const podLines = (result: PassResult) =>
  decisionLines(result.decisions).filter((line) => line.includes(' Pod '));

describe('Pod endings', () => {
  it('binding records the host copy on the tenant Pod', async () => {
    const { tenantApi, hostApi, running } = setup();
    await running();
    const host = hostApi.peek(POD, HOST_NS, HOST_WEB) as KubeObject;
    expect(tenantApi.peek(POD, 'shop', 'web')?.metadata.annotations).toEqual({
      'tenantplane.io/bound-host-pod': host.metadata.uid,
    });
    // The record is the engine's, never copied to the host Pod.
    expect(host.metadata.annotations?.['tenantplane.io/bound-host-pod']).toBeUndefined();
  });

  it('a tenant Pod deleted with a grace period: its copy goes with the same one, then the engine ends the tenant Pod; then nothing', async () => {
    const { tenantApi, hostApi, run, running } = setup();
    await running();
    const uid = tenantApi.peek(POD, 'shop', 'web')?.metadata.uid as string;
    await tenantApi.delete(POD, 'shop', 'web', { uid }, { gracePeriodSeconds: 20 });
    expect(tenantApi.peek(POD, 'shop', 'web')?.metadata.deletionTimestamp).toBeDefined();

    const ended = await run();
    expect(ended.errors).toEqual([]);
    expect(podLines(ended)).toEqual([
      `Delete Pod shop/web -> ${HOST_WEB}`,
      `Delete Pod shop/web -> ${HOST_WEB}`,
    ]);
    const [hostDelete] = hostApi.callsOf('delete').filter((c) => c.kind === 'Pod');
    expect(hostDelete?.deleteOptions).toEqual({ gracePeriodSeconds: 20 });
    expect(ended.decisions.map((d) => d.reason)).toEqual(
      expect.arrayContaining([
        'tenant Pod shop/web is being deleted in the tenant with a grace period of 20 s; its host copy gets the same',
        'the tenant Pod was deleted (grace period 20 s) and its host copy is gone: its deletion is finished in the tenant, as its kubelet would confirm it',
      ]),
    );
    const tenantDelete = tenantApi.callsOf('delete').filter((c) => c.kind === 'Pod');
    expect(tenantDelete.map((c) => c.deleteOptions)).toEqual([
      { gracePeriodSeconds: 20 },
      { gracePeriodSeconds: 0 },
    ]);
    expect(tenantApi.peek(POD, 'shop', 'web')).toBeUndefined();
    expect(hostApi.peek(POD, HOST_NS, HOST_WEB)).toBeUndefined();

    for (const path of [undefined, 'full' as const]) {
      const steady = await run(path ? { path } : {});
      expect({ path, lines: podLines(steady), errors: steady.errors }).toEqual({
        path,
        lines: [],
        errors: [],
      });
    }
  });

  it('while the host copy is still ending, the tenant Pod waits, and the next pass (full) ends it', async () => {
    const { tenantApi, hostApi, run, running } = setup([tenantPod('web')], true);
    await running();
    const uid = tenantApi.peek(POD, 'shop', 'web')?.metadata.uid as string;
    await tenantApi.delete(POD, 'shop', 'web', { uid }, { gracePeriodSeconds: 20 });

    const first = await run();
    expect(podLines(first)).toEqual([`Delete Pod shop/web -> ${HOST_WEB}`]);
    expect(hostApi.peek(POD, HOST_NS, HOST_WEB)?.metadata.deletionTimestamp).toBeDefined();
    expect(tenantApi.peek(POD, 'shop', 'web')).toBeDefined();

    // Its kubelet ends the host Pod; the tenant Pod did not change, yet the next pass sees it.
    hostApi.remove(POD, HOST_NS, HOST_WEB);
    const second = await run();
    expect(second.path).not.toBe('resumed');
    expect(podLines(second)).toEqual([`Delete Pod shop/web -> ${HOST_WEB}`]);
    expect(second.decisions[0]?.reason).toContain('its deletion is finished in the tenant');
    expect(tenantApi.peek(POD, 'shop', 'web')).toBeUndefined();
  });

  it('a host copy the host deleted: the tenant Pod ends as on a lost node and is not made anew', async () => {
    const { tenantApi, hostApi, run, running } = setup();
    await running();
    hostApi.remove(POD, HOST_NS, HOST_WEB);

    const lost = await run({ path: 'full' });
    expect(lost.errors).toEqual([]);
    expect(hostApi.callsOf('create').filter((c) => c.kind === 'Pod')).toHaveLength(1);
    expect(hostApi.peek(POD, HOST_NS, HOST_WEB)).toBeUndefined();
    const reasons = lost.decisions.filter((d) => d.kind === 'Pod').map((d) => [d.action, d.reason]);
    expect(reasons).toEqual([
      [
        'Skip',
        'the tenant Pod ran on host node "node-a" and its host copy is gone (deleted or evicted by the host): it is not made anew under the same identity; it ends as on a lost node, so its controller replaces it',
      ],
      [
        'Delete',
        'the host copy of the tenant Pod, which ran on node "node-a", is gone (deleted or evicted by the host): the tenant Pod ends as on a lost node (deleted at once), so its controller replaces it',
      ],
    ]);
    expect(tenantApi.callsOf('delete').find((c) => c.kind === 'Pod')?.deleteOptions).toEqual({
      gracePeriodSeconds: 0,
    });
    expect(tenantApi.peek(POD, 'shop', 'web')).toBeUndefined();
  });

  it('a tenant Pod recreated under the name (another uid) is a new Pod: its copy is created', async () => {
    const { tenantApi, hostApi, run, running } = setup();
    await running();
    hostApi.remove(POD, HOST_NS, HOST_WEB);
    tenantApi.remove(POD, 'shop', 'web');
    tenantApi.seed({
      ...tenantPod('web'),
      metadata: { namespace: 'shop', name: 'web', uid: 'uid-2' },
    });
    const again = await run({ path: 'full' });
    expect(podLines(again)).toEqual([`Create Pod shop/web -> ${HOST_WEB}`]);
    expect(tenantApi.peek(POD, 'shop', 'web')?.metadata.uid).toBe('uid-2');
  });

  it('a Pod the tenant bound itself was never the host’s: its copy is created, nothing ends', async () => {
    const { tenantApi, hostApi, run } = setup([tenantPod('web', { nodeName: 'node-a' })]);
    const first = await run();
    expect(podLines(first)).toEqual([`Create Pod shop/web -> ${HOST_WEB}`]);
    expect(tenantApi.callsOf('delete')).toEqual([]);
    expect(hostApi.peek(POD, HOST_NS, HOST_WEB)).toBeDefined();
  });

  it('a dry run decides the ending and deletes nothing', async () => {
    const { tenantApi, hostApi, running } = setup();
    await running();
    hostApi.remove(POD, HOST_NS, HOST_WEB);
    const writesBefore = tenantApi.requestCount().writes;
    const planned = await runPass({
      tenant: 'dev',
      tenantApi,
      hostApi,
      clock: { now: () => LATER },
      path: 'full',
      dryRun: true,
    });
    expect(podLines(planned)).toEqual([
      `Delete Pod shop/web -> ${HOST_WEB}`,
      `Skip Pod shop/web -> ${HOST_WEB}`,
    ]);
    expect(tenantApi.requestCount().writes).toBe(writesBefore);
    expect(tenantApi.peek(POD, 'shop', 'web')).toBeDefined();
  });
  it('a Pod the policy leaves out is never ended, bound and being deleted or bound without a copy (another TenantCluster of a shared tenant apiserver bound it)', async () => {
    const bound = (name: string): KubeObject => {
      const pod = tenantPod(name, { nodeName: 'node-a' });
      return {
        ...pod,
        metadata: {
          ...pod.metadata,
          labels: { team: 'other' },
          annotations: { 'tenantplane.io/bound-host-pod': `host-uid-${name}` },
        },
      };
    };
    const { tenantApi, hostApi } = clusters(
      [tenantPod('web'), bound('deleting'), bound('lost')],
      [hostNode],
      { toHost: [{ ...POD, exclude: { labelSelector: 'team=other' } }] },
      { tenant: { kubeletGrace: true } },
    );
    await tenantApi.delete(
      POD,
      'shop',
      'deleting',
      { uid: 'uid-deleting' },
      { gracePeriodSeconds: 30 },
    );
    const writesBefore = tenantApi.requestCount().writes;
    for (const path of ['full' as const, undefined, 'full' as const]) {
      const result = await runPass({
        tenant: 'dev',
        tenantApi,
        hostApi,
        clock: { now: () => LATER },
        ...(path ? { path } : {}),
      });
      expect(result.errors).toEqual([]);
      expect(podLines(result).filter((line) => !line.includes('shop/web'))).toEqual([]);
    }
    // Not one tenant write: the in-scope Pod was never scheduled, so nothing binds it either.
    expect(tenantApi.requestCount().writes).toBe(writesBefore);
    expect(tenantApi.peek(POD, 'shop', 'deleting')?.metadata.deletionTimestamp).toBeDefined();
    expect(tenantApi.peek(POD, 'shop', 'lost')).toBeDefined();
    expect(hostApi.peek(POD, HOST_NS, hn('shop', 'deleting'))).toBeUndefined();
  });
  it.each([{ path: 'resumed' as const }, { path: 'full' as const }])(
    'a scale-down of most Pods ($path pass) is the tenant’s own deletion: the mass-delete guard holds none of the copies, and every tenant Pod ends',
    async ({ path }) => {
      const pods = Array.from({ length: 24 }, (_, i) => tenantPod(`web-${i}`));
      const { tenantApi, hostApi, run, running } = setup(pods);
      await running();
      for (const pod of pods.slice(0, 20)) {
        await tenantApi.delete(
          POD,
          'shop',
          pod.metadata.name,
          { uid: pod.metadata.uid as string },
          { gracePeriodSeconds: 30 },
        );
      }
      const scaled = await run(path === 'full' ? { path } : {});
      expect(scaled.errors).toEqual([]);
      expect(scaled.warnings ?? []).toEqual([]);
      expect(podLines(scaled).filter((l) => l.startsWith('Skip'))).toEqual([]);
      const hostDeletes = hostApi.callsOf('delete').filter((c) => c.kind === 'Pod');
      expect(hostDeletes).toHaveLength(20);
      expect(hostDeletes.map((c) => c.deleteOptions)).toEqual(
        hostDeletes.map(() => ({ gracePeriodSeconds: 30 })),
      );
      // The copies are gone (a quick host): this pass or the next ends the tenant Pods.
      await run();
      const left = pods.filter((p) => tenantApi.peek(POD, 'shop', p.metadata.name) !== undefined);
      expect(left.map((p) => p.metadata.name)).toEqual(pods.slice(20).map((p) => p.metadata.name));
    },
  );
});
