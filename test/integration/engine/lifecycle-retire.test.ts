/**
 * Nothing a tenant ever synced outlives its reason to exist, and nothing else is ever touched, on
 * the real tenant + host apiservers: a kind leaving the policy, a host namespace change, a deleted
 * TenantCluster (finalizer), a different tenant cluster behind the kubeconfig, the mass-delete
 * guard, terminating objects and a kind that is cluster-scoped on the host. Every scenario shares
 * its host namespace with a second tenant and an unmanaged object, and proves from a snapshot of
 * uid and resourceVersion of every object there that only the expected copies changed.
 */
import { describe, expect, it } from '@jest/globals';
import { TenantClusterChangedError } from '../../../lib/engine/errors.js';
import { InvalidPolicyError, recordedConditions } from '../../../lib/engine/index.js';
import { TenantClusterKeys } from '../../../lib/engine/names/metadata.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { lifecycleScenes } from './lifecycle-support.js';
import {
  CONFIGMAP,
  createTenant,
  ensureNamespace,
  listAll,
  NAMESPACE,
  pass,
  type Tenant,
  tenantEvents,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const { scene, snapshot, changes, copiesOf, patchSpec, annotate, status } = lifecycleScenes(apis);

/** The TenantCluster's Ready condition, as `kubectl get tenantcluster` shows it. */
async function readyCondition(t: Tenant): Promise<unknown> {
  const object = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
  return recordedConditions(object?.status).find((c) => c.type === 'Ready');
}

describe('lifecycle on the real clusters', () => {
  it('a kind that leaves the policy: its copies are deleted with Decisions, then it is forgotten', async () => {
    const { t, other } = await scene('kleft');
    expect((await status(t)).syncedKinds).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Secret' },
    ]);
    const before = await snapshot(t);
    await patchSpec(t, {
      toHost: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          exclude: { labelSelector: `tenantplane-test!=${t.name}` },
        },
      ],
    });
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    const deletes = result.decisions.filter((d) => d.action === 'Delete');
    expect(deletes).toHaveLength(2);
    for (const d of deletes) expect(d.reason).toMatch(/kind Secret \(v1\) left the sync policy/);
    const after = await snapshot(t);
    expect(changes(before, after)).toEqual({
      deleted: copiesOf(before, t, 'Secret'),
      created: [],
      written: [],
    });
    expect(copiesOf(after, other, 'Secret')).toHaveLength(1);
    expect((await status(t)).syncedKinds).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap' }]);
    const steady = await pass(t);
    expect(steady.result.requests.host.writes).toBe(0);
    expect(steady.result.statusWritten).toBe(false);
  });

  it('a host namespace change: the old copies go, the new ones come, nobody else is touched', async () => {
    const { t, other } = await scene('nsmove');
    const next = `${t.hostNamespace}-new`;
    await ensureNamespace(t.hostApi, next);
    const before = await snapshot(t);
    await patchSpec(t, { hostNamespace: next });
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    const moved = result.decisions.filter((d) => d.action === 'Delete');
    expect(moved).toHaveLength(4);
    for (const d of moved) expect(d.reason).toMatch(/host namespace .* changed from .* to .*-new/);
    expect(result.decisions.filter((d) => d.action === 'Create')).toHaveLength(4);
    const after = await snapshot(t);
    expect(changes(before, after)).toEqual({
      deleted: [...copiesOf(before, t), ...copiesOf(before, t, 'Secret')].sort(),
      created: [],
      written: [],
    });
    expect(copiesOf(after, other)).toHaveLength(1);
    const moved2 = await snapshot({ ...t, hostNamespace: next });
    expect(moved2.size).toBe(4);
    expect((await status(t)).hostNamespaces).toEqual([next]);
    const steady = await pass(t);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  it('a deleted TenantCluster: a paused one waits; then one pass removes every copy and the finalizer', async () => {
    const { t, other } = await scene('gone');
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect(tc?.metadata.finalizers).toContain(TenantClusterKeys.HostCleanupFinalizer);
    await patchSpec(t, { paused: true });
    const before = await snapshot(t);
    await t.hostApi.delete(TENANT_CLUSTER, undefined, t.name, { uid: tc?.metadata.uid as string });
    const paused = await pass(t);
    expect(paused.result.decisions).toEqual([]);
    expect(await snapshot(t)).toEqual(before);
    expect(await t.hostApi.get(TENANT_CLUSTER, undefined, t.name)).toBeDefined();

    await patchSpec(t, { paused: false });
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(result.cleanup).toEqual({ copiesLeft: 0 });
    const deletes = result.decisions.filter((d) => d.action === 'Delete');
    expect(deletes).toHaveLength(4);
    for (const d of deletes) expect(d.reason).toMatch(/is being deleted/);
    expect(changes(before, await snapshot(t))).toEqual({
      deleted: [...copiesOf(before, t), ...copiesOf(before, t, 'Secret')].sort(),
      created: [],
      written: [],
    });
    expect(await t.hostApi.get(TENANT_CLUSTER, undefined, t.name)).toBeUndefined();
    expect(copiesOf(await snapshot(t), other)).toHaveLength(1);
  });

  it('a different tenant cluster behind the kubeconfig: no write at all until accepted', async () => {
    const { t } = await scene('ident');
    const recorded = (await status(t)).tenantClusterId;
    expect(typeof recorded).toBe('string');
    const ns = await t.tenantApi.get(NAMESPACE, undefined, 'kube-system');
    expect(recorded).toBe(ns?.metadata.uid);
    // As if the cluster behind the endpoint had been rebuilt: the recorded identity differs.
    await t.hostApi.patchStatus(TENANT_CLUSTER, undefined, t.name, {
      tenantClusterId: 'old-cluster-uid',
    });
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'a', {
      uid: (await t.tenantApi.get(CONFIGMAP, t.vns.a, 'a'))?.metadata.uid as string,
    });
    const before = await snapshot(t);
    const writesBefore = t.hostApi.requestCount().writes;
    const error = await pass(t).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TenantClusterChangedError);
    expect(String((error as Error).message)).toMatch(/old-cluster-uid/);
    expect(String((error as Error).message)).toContain(String(recorded));
    expect(String((error as Error).message)).toContain(TenantClusterKeys.AcceptTenantClusterId);
    // runPass reports its failure on the TenantCluster's conditions: that is the one write.
    expect(t.hostApi.requestCount().writes).toBe(writesBefore + 1);
    expect(await readyCondition(t)).toMatchObject({
      status: 'False',
      reason: 'TenantClusterChanged',
    });
    expect(await snapshot(t)).toEqual(before);

    await annotate(t, TenantClusterKeys.AcceptTenantClusterId, String(recorded));
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(result.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)).toEqual([
      'Delete ConfigMap a',
    ]);
    expect((await status(t)).tenantClusterId).toBe(recorded);
  });

  it('the mass-delete guard holds most copies of a kind until a one-shot confirmation', async () => {
    const t = await createTenant(apis(), 'guard', { toHost: [CONFIGMAP] });
    const sources: KubeObject[] = [];
    for (let i = 0; i < 24; i++) {
      sources.push(
        await t.tenantApi.create(
          tenantObject(t, CONFIGMAP, t.vns.a, `c${i}`, { data: { i: String(i) } }),
        ),
      );
    }
    expect((await pass(t)).result.decisions).toHaveLength(24);
    for (const s of sources.slice(0, 20)) {
      await t.tenantApi.delete(CONFIGMAP, t.vns.a, s.metadata.name, {
        uid: s.metadata.uid as string,
      });
    }
    const before = await snapshot(t);
    const held = await pass(t);
    // Each held deletion is a Skip saying so; none is a Delete.
    expect(held.result.decisions.map((d) => d.action)).toEqual(Array(20).fill('Skip'));
    for (const d of held.result.decisions)
      expect(d.reason).toMatch(/no longer exists; not deleted: the mass-delete guard holds/);
    expect(held.result.complete).toBe(false);
    expect(held.result.incompleteReason).toMatch(/would delete 20 of the 24 ConfigMap copies/);
    expect(held.result.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard']);
    expect(await snapshot(t)).toEqual(before);
    const warnings = (await tenantEvents(t)).filter((e) => e.reason === 'MassDeleteGuard');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.type).toBe('Warning');

    const token = /confirm-deletes=(ConfigMap:[0-9a-f]+)/.exec(
      held.result.incompleteReason ?? '',
    )?.[1];
    expect(token).toBeDefined();
    await annotate(t, TenantClusterKeys.ConfirmDeletes, token as string);
    const { result } = await pass(t);
    expect(result.decisions.filter((d) => d.action === 'Delete')).toHaveLength(20);
    expect(result.complete).toBe(true);
    expect(changes(before, await snapshot(t)).deleted).toHaveLength(20);
  });

  it('terminating objects: a source being deleted is gone; a copy held by a host finalizer is not deleted twice', async () => {
    const t = await createTenant(apis(), 'term', { toHost: [CONFIGMAP] });
    await t.tenantApi.create(
      tenantObject(
        t,
        CONFIGMAP,
        t.vns.a,
        'held',
        { data: {} },
        { finalizers: ['example.com/hold'] },
      ),
    );
    await t.tenantApi.create(tenantObject(t, CONFIGMAP, t.vns.a, 'kept', { data: {} }));
    expect((await pass(t)).result.decisions).toHaveLength(2);
    // The tenant deletes `held`; its own finalizer keeps it, terminating, in the tenant.
    const held = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'held');
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'held', { uid: held?.metadata.uid as string });
    // A host controller holds the copy with a finalizer of its own.
    const copyName = `held-x-${t.vns.a}-x-${t.name}`;
    const copy = await t.hostApi.get(CONFIGMAP, t.hostNamespace, copyName);
    await t.hostApi.update({
      ...(copy as KubeObject),
      metadata: { ...(copy as KubeObject).metadata, finalizers: ['example.com/host-hold'] },
    });
    const first = await pass(t);
    expect(first.result.decisions.map((d) => `${d.action} ${d.tenantRef.name}`)).toEqual([
      'Delete held',
    ]);
    const terminating = await t.hostApi.get(CONFIGMAP, t.hostNamespace, copyName);
    expect(terminating?.metadata.deletionTimestamp).toBeDefined();
    const before = await snapshot(t);
    // A full pass, so it lists the terminating copy (a resumed one does not look at it at all).
    const second = await pass(t, { full: true });
    expect(second.result.decisions).toEqual([]);
    expect(second.result.terminating).toBe(1);
    expect(second.result.requests.host.writes).toBe(0);
    expect(await snapshot(t)).toEqual(before);
    // Clean up the finalizers so nothing is left hanging.
    const now = await t.hostApi.get(CONFIGMAP, t.hostNamespace, copyName);
    await t.hostApi.update({
      ...(now as KubeObject),
      metadata: { ...(now as KubeObject).metadata, finalizers: [] },
    });
    const src = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'held');
    await t.tenantApi.update({
      ...(src as KubeObject),
      metadata: { ...(src as KubeObject).metadata, finalizers: [] },
    });
  });

  it('a rule whose kind is cluster-scoped on the host is an invalid policy, before any write', async () => {
    const t = await createTenant(apis(), 'clscope', { toHost: [CONFIGMAP] });
    await t.tenantApi.create(tenantObject(t, CONFIGMAP, t.vns.a, 'x', { data: {} }));
    await patchSpec(t, {
      toHost: [
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      ],
    });
    const writesBefore = t.hostApi.requestCount().writes;
    const error = await pass(t).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect((error as InvalidPolicyError).problems).toEqual([
      'spec.toHost[1] ClusterRole (rbac.authorization.k8s.io/v1) is cluster-scoped on the host; only namespaced kinds can be synced into a host namespace',
    ]);
    // runPass reports its failure on the TenantCluster's conditions: that is the one write.
    expect(t.hostApi.requestCount().writes).toBe(writesBefore + 1);
    expect(await readyCondition(t)).toMatchObject({ status: 'False', reason: 'InvalidPolicy' });
    expect(await listAll(t.hostApi, CONFIGMAP, t.hostNamespace)).toEqual([]);
  });
});
