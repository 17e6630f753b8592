/**
 * Status back, pass after pass: a tenant Pod shows its host copy's status through `/status`,
 * apart from its spec writes, only when it changed; a failed status write is an error of the Pod.
 */
import { describe, expect, it } from '@jest/globals';
import { InSyncMemo, runPass } from '../../../../../lib/engine/index.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const HOST_POD = hn('shop', 'web');
/** The fake host stamps every object created at this time. */
const CREATED = Date.parse('2025-01-01T00:00:00Z');
const LATER = CREATED + 60 * 60_000;

const tenantPod: KubeObject = {
  ...POD,
  metadata: { namespace: 'shop', name: 'web', uid: 'tenant-pod-uid' },
  spec: {
    automountServiceAccountToken: false,
    containers: [{ name: 'web', image: 'nginx:1' }],
  },
  status: { phase: 'Pending', qosClass: 'BestEffort' },
};
const RUNNING = {
  phase: 'Running',
  podIP: '10.244.0.7',
  hostIP: '172.18.0.3',
  qosClass: 'Guaranteed',
  nominatedNodeName: 'host-node',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [{ name: 'web', ready: true, restartCount: 0 }],
};

function setup(nowMs = LATER) {
  let now = nowMs;
  const { tenantApi, hostApi } = clusters([tenantPod], [], { toHost: [POD] });
  const run = (path?: 'full') =>
    runPass({
      tenant: 'dev',
      tenantApi,
      hostApi,
      clock: { now: () => now },
      ...(path ? { path } : {}),
    });
  /** The host's kubelet reports `status` on the host Pod. */
  const report = (status: Record<string, unknown>) => {
    const pod = hostApi.peek(POD, HOST_NS, HOST_POD);
    if (!pod) throw new Error('no host Pod');
    hostApi.replace({ ...pod, status });
  };
  return { tenantApi, hostApi, run, report, advance: (ms: number) => (now += ms) };
}

describe('status back of Pods', () => {
  it('a full pass writes the running host Pod’s status to the tenant Pod, qosClass kept; then nothing is written', async () => {
    const { tenantApi, run, report } = setup();
    expect((await run()).errors).toEqual([]);
    report(RUNNING);

    const back = await run('full');
    expect(back.errors).toEqual([]);
    expect(back.requests.tenant.writes).toBe(1);
    expect(back.requests.host.writes).toBe(0);
    expect(tenantApi.callsOf('patchStatus')).toHaveLength(1);
    const { nominatedNodeName: _n, ...shown } = RUNNING;
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toEqual({
      ...shown,
      qosClass: 'BestEffort',
    });

    // The next pass resumes and sees the status write as a change: it compares, writes nothing.
    for (const n of [1, 2, 3]) {
      const steady = await run();
      expect({ n, decisions: steady.decisions, errors: steady.errors }).toEqual({
        n,
        decisions: [],
        errors: [],
      });
      expect({ n, writes: steady.requests }).toMatchObject({
        n,
        writes: { tenant: { writes: 0 }, host: { writes: 0 } },
      });
    }
  });

  it('with an in-sync memo (a warm process), full passes still bring every host status change back, and compare only changed pairs', async () => {
    const { tenantApi, hostApi, run, report } = setup();
    const memo = new InSyncMemo();
    const warm = () =>
      runPass({
        tenant: 'dev',
        tenantApi,
        hostApi,
        clock: { now: () => LATER },
        path: 'full',
        memo,
      });
    await run();
    report(RUNNING);
    expect((await warm()).requests.tenant.writes).toBe(1);
    // Steady: both sides unchanged, remembered (the Pod's spec and its status).
    expect((await warm()).requests.tenant.writes).toBe(0);
    expect(memo.size).toBe(2);
    // The host reports a new status (a new resourceVersion): it comes back.
    report({ ...RUNNING, podIP: '10.244.0.8' });
    expect((await warm()).requests.tenant.writes).toBe(1);
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ podIP: '10.244.0.8' });
    expect((await warm()).requests.tenant.writes).toBe(0);
    // A state no apiserver makes (a new status under the same resourceVersion) goes unseen with
    // the memo, and comes back without it: the memo is what left the pair out.
    const pod = hostApi.peek(POD, HOST_NS, HOST_POD) as KubeObject;
    hostApi.tamper({ ...pod, status: { ...RUNNING, podIP: '10.244.0.9' } });
    expect((await warm()).requests.tenant.writes).toBe(0);
    expect((await run('full')).requests.tenant.writes).toBe(1);
  });

  it('a resumed pass writes back the status of a tenant Pod that changed', async () => {
    const { tenantApi, run, report } = setup();
    await run();
    report(RUNNING);
    const pod = tenantApi.peek(POD, 'shop', 'web') as KubeObject;
    tenantApi.replace({ ...pod, metadata: { ...pod.metadata, labels: { tier: 'web' } } });
    const resumed = await run();
    expect(resumed.path).toBe('resumed');
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
  });

  it('a host Pod that starts after the first pass: a resumed pass sees its status change (the host Pods are read every pass) and writes only it', async () => {
    const { tenantApi, hostApi, run, report, advance } = setup(CREATED + 60_000);
    await run();
    report({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] });
    const pending = await run();
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Pending' });
    // A full pass records the resume point past that status write: nothing changes after it.
    await run('full');
    const steady = await run();
    expect(steady.path).toBe('resumed');
    expect(steady.requests.tenant.writes).toBe(0);
    report(RUNNING);
    advance(60_000);
    const tenantLists = tenantApi.callsOf('list').length;
    const running = await run();
    expect(running.path).toBe('resumed');
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
    // The changed host Pod's tenant Pod was read by name, and only its status written.
    const byName = tenantApi
      .callsOf('list')
      .slice(tenantLists)
      .filter((c) => c.options?.fieldSelector === 'metadata.name=web');
    expect(byName).toHaveLength(1);
    expect(running.requests.tenant.writes).toBe(1);
    expect(hostApi.callsOf('list').filter((c) => c.kind === 'Pod').length).toBeGreaterThan(0);
    // The next pass sees that status write come back as a tenant change: its host copy is taken
    // from the listing (no GET by name), and no Node is read (nothing waits for a binding).
    const calls = hostApi.calls.length;
    const replay = await run();
    expect(replay.requests.tenant.writes).toBe(0);
    expect(
      hostApi.calls.slice(calls).filter((c) => c.method === 'get' && c.kind !== 'TenantCluster'),
    ).toEqual([]);
    // Then steady: the TenantCluster, one LIST of the host Pods, one of the host's Warning Events.
    const steadyCalls = hostApi.calls.length;
    const again = await run();
    expect(again.path).toBe('resumed');
    expect(again.requests.tenant.writes).toBe(0);
    expect(again.requests.host.writes).toBe(0);
    expect(hostApi.calls.slice(steadyCalls).map((c) => `${c.method} ${c.kind}`)).toEqual([
      'get TenantCluster',
      'list Pod',
      'list Event',
    ]);
    expect(pending.errors).toEqual([]);
  });

  it('a refused status write is an error of the Pod; the pass goes on and the next pass is full', async () => {
    const { tenantApi, run, report } = setup();
    await run();
    report(RUNNING);
    tenantApi.failWhen((c) =>
      c.method === 'patchStatus' ? new ClusterError('Forbidden', 'no pods/status') : undefined,
    );
    const refused = await run('full');
    expect(refused.errors).toEqual([
      expect.objectContaining({
        kind: 'Pod',
        reason: 'Forbidden',
        tenantRef: { namespace: 'shop', name: 'web' },
        hostRef: { namespace: HOST_NS, name: HOST_POD },
      }),
    ]);
    tenantApi.clearFailures();
    const next = await run();
    expect(next.path).not.toBe('resumed');
    expect(next.errors).toEqual([]);
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
  });

  it('a refused spec write never holds the status back', async () => {
    const { tenantApi, hostApi, run, report } = setup();
    await run();
    report(RUNNING);
    const pod = tenantApi.peek(POD, 'shop', 'web') as KubeObject;
    tenantApi.replace({
      ...pod,
      spec: { ...(pod.spec as object), containers: [{ name: 'web', image: 'x:2' }] },
    });
    hostApi.failWhen((c) =>
      c.method === 'update' && c.kind === 'Pod' ? new ClusterError('Invalid', 'no') : undefined,
    );
    const result = await run('full');
    expect(result.errors).toEqual([expect.objectContaining({ kind: 'Pod', reason: 'Invalid' })]);
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
  });

  it('a host copy of an earlier tenant Pod of the name gives it no status', async () => {
    const { tenantApi, hostApi, run, report } = setup();
    await run();
    report(RUNNING);
    const pod = tenantApi.peek(POD, 'shop', 'web') as KubeObject;
    tenantApi.remove(POD, 'shop', 'web');
    tenantApi.seed({ ...pod, metadata: { ...pod.metadata, uid: 'recreated' } });
    // The copy cannot be taken over by the new Pod: it still names the old one's uid.
    hostApi.failWhen((c) =>
      c.method === 'update' && c.kind === 'Pod' ? new ClusterError('Invalid', 'no') : undefined,
    );
    await run('full');
    expect(tenantApi.callsOf('patchStatus')).toEqual([]);
  });

  it('a full pass that writes no Pod takes the host Pods from the kind’s own listing: one host LIST', async () => {
    const { hostApi, run, report } = setup();
    await run();
    report(RUNNING);
    await run('full');
    const before = hostApi.callsOf('list').length;
    const steady = await run('full');
    expect(steady.decisions).toEqual([]);
    const podLists = hostApi
      .callsOf('list')
      .slice(before)
      .filter((c) => c.kind === 'Pod');
    // The kind's listing of the host namespace, no label-selected listing of the tenant's Pods.
    expect(podLists.map((c) => c.options?.labelSelector)).toEqual([undefined]);
  });

  it('a Pod whose spec is over 4 KiB is held whole: an image change updates the host Pod', async () => {
    const env = Array.from({ length: 200 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
    const { tenantApi, hostApi, run } = setup();
    const pod = tenantApi.peek(POD, 'shop', 'web') as KubeObject;
    const containers = [{ name: 'web', image: 'nginx:1', env }];
    tenantApi.replace({ ...pod, spec: { ...(pod.spec as object), containers } });
    expect((await run()).errors).toEqual([]);
    const created = hostApi.peek(POD, HOST_NS, HOST_POD) as KubeObject;
    expect(JSON.stringify(created.spec).length).toBeGreaterThan(4096);

    const current = tenantApi.peek(POD, 'shop', 'web') as KubeObject;
    const changed = [{ name: 'web', image: 'nginx:2', env }];
    tenantApi.replace({ ...current, spec: { ...(current.spec as object), containers: changed } });
    const result = await run('full');

    expect(result.errors).toEqual([]);
    expect(result.decisions.map((d) => d.action)).toEqual(['Update']);
    const updated = hostApi.peek(POD, HOST_NS, HOST_POD) as KubeObject;
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect((updated.spec as { containers: Array<{ image: string }> }).containers[0]?.image).toBe(
      'nginx:2',
    );
  });
});
