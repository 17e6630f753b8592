/**
 * Policy edits on the real clusters, each in a host namespace shared with a second tenant and an
 * unmanaged object, proven from uid@resourceVersion snapshots of that namespace: an exclusion
 * that would delete most of a kind's copies at once (the old README example
 * `labelSelector: "sync!=off"`) is held by the mass-delete guard until a one-shot confirmation,
 * and a plan lists what it would delete; one resource under two versions is an invalid policy.
 * A setting changed on a running tenant (`spec.workloads.kubeletGateway`) reaches its tenant
 * Nodes at the very next pass, a resumed one, not at the next full pass (issue 35, defect 6).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName, InvalidPolicyError } from '../../../lib/engine/index.js';
import { TenantClusterKeys } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { lifecycleScenes } from './lifecycle-support.js';
import {
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  kwokNode,
  LABEL,
  listAll,
  pass,
  RUN,
  removeNode,
  SECRET,
  type Snapshot,
  TENANT_CLUSTER,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const { scene, snapshot, changes, copiesOf, patchSpec, annotate } = lifecycleScenes(apis);

/** A label key only this suite's objects carry, so the selectors below see nobody else's. */
const SYNC = `sync-${RUN}`;

describe('policy edits on the real clusters', () => {
  it('an exclusion that would delete most copies is held for a confirmation; the plan lists them', async () => {
    const { t, other } = await scene('pedit');
    // 24 copies in all (scene's a and b, and 22 more), one of them labelled <sync>=off.
    for (let i = 0; i < 22; i++) {
      const labels = i === 0 ? { [LABEL]: t.name, [SYNC]: 'off' } : { [LABEL]: t.name };
      await t.tenantApi.create(
        tenantObject(t, CONFIGMAP, t.vns.a, `c${i}`, { data: { i: String(i) } }, { labels }),
      );
    }
    expect((await pass(t)).result.complete).toBe(true);
    expect(copiesOf(await snapshot(t), t)).toHaveLength(24);
    const before = await snapshot(t);

    // The README's old example: meant "leave out what is labelled off", it excludes the rest.
    await patchSpec(t, {
      toHost: [
        { ...CONFIGMAP, exclude: { labelSelector: `${SYNC}!=off` } },
        { ...SECRET, exclude: { labelSelector: `${LABEL}!=${t.name}` } },
      ],
    });

    const plan = (await pass(t, { dryRun: true })).result;
    const held = (await pass(t)).result;
    for (const result of [plan, held]) {
      expect(result.complete).toBe(false);
      expect(result.decisions.filter((d) => d.action === 'Delete')).toEqual([]);
      const skips = result.decisions.filter((d) => d.action === 'Skip');
      expect(skips).toHaveLength(23);
      for (const skip of skips)
        expect(skip.reason).toMatch(
          /is excluded from syncing by the sync policy; not deleted: the mass-delete guard holds the 23 ConfigMap deletions of this pass \(more than 50% of 24 copies\) until they are confirmed with tenantplane\.io\/confirm-deletes=ConfigMap:[0-9a-f]+$/,
        );
      expect(skips.map((d) => d.tenantRef.name)).not.toContain('c0');
      expect(result.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard']);
      expect(result.incompleteReason).toContain(
        `would delete 23 of the 24 ConfigMap copies of tenant cluster "${t.name}" that the sync policy now excludes (more than 50%), so it deleted none of them; \`tenantplane plan ${t.name}\` lists them`,
      );
    }
    // The plan and the pass name the same set; nothing in the host namespace changed.
    expect(plan.decisions.map((d) => d.reason).sort()).toEqual(
      held.decisions.map((d) => d.reason).sort(),
    );
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });

    const token = /confirm-deletes=(ConfigMap:[0-9a-f]+)/.exec(held.incompleteReason ?? '')?.[1];
    await annotate(t, TenantClusterKeys.ConfirmDeletes, token as string);
    const done = (await pass(t)).result;
    expect(done.complete).toBe(true);
    expect(done.decisions.filter((d) => d.action === 'Delete')).toHaveLength(23);
    const after = await snapshot(t);
    const { deleted, created, written } = changes(before, after);
    expect(created).toEqual([]);
    expect(written).toEqual([]);
    expect(deleted).toHaveLength(23);
    for (const key of deleted) expect(key).toMatch(new RegExp(`^ConfigMap/.*-x-${t.name}$`));
    expect(copiesOf(after, t)).toEqual([`ConfigMap/c0-x-${t.vns.a}-x-${t.name}`]);
    expect(copiesOf(after, other)).toHaveLength(1);
    expect([...after.keys()].some((k) => k.startsWith('ConfigMap/unmanaged-'))).toBe(true);
  });

  it('an exclusion within the guard’s share deletes at once', async () => {
    const { t } = await scene('pedit2');
    const before = await snapshot(t);
    await patchSpec(t, {
      toHost: [
        { ...CONFIGMAP, exclude: { labelSelector: `${LABEL}!=${t.name}`, names: ['a'] } },
        { ...SECRET, exclude: { labelSelector: `${LABEL}!=${t.name}` } },
      ],
    });
    const { result } = await pass(t);
    expect(result.complete).toBe(true);
    expect(result.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)).toEqual([
      'Delete ConfigMap a',
    ]);
    expect(changes(before, await snapshot(t)).deleted).toEqual([
      `ConfigMap/a-x-${t.vns.a}-x-${t.name}`,
    ]);
  });

  it('autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscaler as two rules: invalid, nothing written', async () => {
    const { t } = await scene('twover');
    const before = await snapshot(t);
    await patchSpec(t, {
      toHost: [
        { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' },
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          exclude: { names: ['web'] },
        },
      ],
    });
    const error = await pass(t).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect((error as InvalidPolicyError).problems).toEqual([
      'spec.toHost[1] repeats HorizontalPodAutoscaler (autoscaling/v2) of spec.toHost[0] (autoscaling/v1): one rule per API group and kind, whatever the version',
    ]);
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
  });
});

const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const GW_NODE = `pedit-gw-${RUN}`;
const GW_TAINT = { key: 'tenantplane-test/dedicated', value: GW_NODE, effect: 'NoSchedule' };

/** `side Kind/namespace/name` -> `uid@resourceVersion` of what a pass of `t` writes. */
async function bothSides(t: Tenant): Promise<Snapshot> {
  const all: Snapshot = new Map();
  const put = (side: string, kind: string, o: KubeObject) =>
    all.set(
      `${side} ${kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
      `${o.metadata.uid}@${o.metadata.resourceVersion}`,
    );
  for (const kind of [POD, CONFIGMAP, SECRET])
    for (const o of await listAll(t.hostApi, kind, t.hostNamespace)) put('host', kind.kind, o);
  for (const kind of [POD, CONFIGMAP, { apiVersion: 'v1', kind: 'Event' }])
    for (const o of await listAll(t.tenantApi, kind, t.vns.a)) put('tenant', kind.kind, o);
  const node = await t.tenantApi.get(NODE, undefined, GW_NODE);
  if (node) put('tenant', 'Node', node);
  return all;
}

describe('a setting changed on a running tenant', () => {
  afterAll(() => removeNode(apis().hostApi, GW_NODE));

  it('spec.workloads.kubeletGateway set on a running tenant reaches its tenant Node at the next (resumed) pass, and nothing else changes', async () => {
    const { hostApi, tenantApi } = apis();
    await hostApi.create(kwokNode(GW_NODE, '10.245.32.0/24', GW_TAINT));
    const t = await createTenant(apis(), 'pedit-gw', {
      toHost: [POD, CONFIGMAP],
      // The test's node is dedicated to it: its toleration is the policy's to allow.
      workloads: { scheduling: { tolerations: [{ ...GW_TAINT, operator: 'Equal' }] } },
    });
    const spec = {
      automountServiceAccountToken: false,
      nodeSelector: { 'kubernetes.io/hostname': GW_NODE },
      tolerations: [{ ...GW_TAINT, operator: 'Equal' }],
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    await tenantApi.create(tenantObject(t, POD, t.vns.a, 'web', { spec }));
    expect((await pass(t)).result.errors).toEqual([]);
    await waitFor(
      'the host Pod Running on the test’s node',
      async () => {
        const pod = await hostApi.get(POD, t.hostNamespace, hostName('web', t.vns.a, t.name));
        const running = (pod?.status as { phase?: string } | undefined)?.phase === 'Running';
        return running && (pod?.spec as { nodeName?: string } | undefined)?.nodeName === GW_NODE
          ? pod
          : undefined;
      },
      60_000,
    );
    expect((await pass(t, { full: true })).result.errors).toEqual([]);
    const node = await tenantApi.get(NODE, undefined, GW_NODE);
    expect(JSON.stringify(node?.status)).not.toContain('10.0.0.5');
    // The tenant is steady: its passes resume and write nothing.
    await waitFor('a resumed pass that writes nothing', async () => {
      const { result } = await pass(t);
      const writes = result.requests.tenant.writes + result.requests.host.writes;
      return result.path === 'resumed' && writes === 0 ? result : undefined;
    });

    const before = await bothSides(t);
    await patchSpec(t, {
      workloads: {
        scheduling: { tolerations: [{ ...GW_TAINT, operator: 'Equal' }] },
        kubeletGateway: { address: '10.0.0.5', port: 10250 },
      },
    });
    const { result } = await pass(t);
    const after = await bothSides(t);

    expect(result.errors).toEqual([]);
    expect(result.decisions.map((d) => `${d.action} ${d.kind} ${d.hostRef.name}`)).toEqual([
      `Update Node ${GW_NODE}`,
    ]);
    expect(result.pathReason).toContain('the sync policy or the tenant cluster changed');
    expect((await tenantApi.get(NODE, undefined, GW_NODE))?.status).toMatchObject({
      addresses: expect.arrayContaining([{ type: 'InternalIP', address: '10.0.0.5' }]),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    });
    expect(diffSnapshots(before, after)).toEqual({
      created: [],
      changed: [`tenant Node//${GW_NODE}`],
      deleted: [],
    });
    const tc = await hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect(tc?.metadata.generation).toBeGreaterThan(1);
    // Applied once: the pass after it resumes and writes nothing.
    const next = (await pass(t)).result;
    expect({ path: next.path, decisions: next.decisions }).toEqual({
      path: 'resumed',
      decisions: [],
    });
  }, 180_000);
});
