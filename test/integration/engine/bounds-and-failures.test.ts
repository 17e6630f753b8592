/**
 * Failures and bounds on the real clusters: an object the host refuses (a ValidatingAdmissionPolicy
 * on the host) is one aggregated error while the rest applies; a write budget leaves a correct
 * incomplete pass that the next pass completes; a dry run writes nothing at all. Each test has its
 * own tenant.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  admissionPolicy,
  byName,
  CONFIGMAP,
  createTenant,
  decisionLines,
  hostObjects,
  kubectl,
  pass,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  tenantEvents,
  useApis,
  versions,
} from './support.js';

const apis = useApis();

const DENIAL = 'ConfigMaps in this namespace may not carry the key forbidden';

/** Denies ConfigMaps whose data has the key `forbidden`, in the tenant's host namespace only. */
function denyForbiddenKey(t: Tenant): Promise<KubeObject[]> {
  return admissionPolicy(t, {
    name: `deny-forbidden-${t.name}`,
    operations: ['CREATE', 'UPDATE'],
    resources: ['configmaps'],
    validation: {
      expression: "!has(object.data) || !('forbidden' in object.data)",
      message: DENIAL,
      reason: 'Invalid',
    },
    probeData: { forbidden: 'x' },
    denial: DENIAL,
  });
}

describe('failures and bounds', () => {
  it('an object the host rejects is an aggregated error while the rest applies', async () => {
    const t = await createTenant(apis(), 'vap');
    const admission = await denyForbiddenKey(t);
    try {
      await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'good-1'));
      await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'bad', { forbidden: 'yes' }));
      await t.tenantApi.create(tenantConfigMap(t, t.vns.b, 'good-2'));
      const bad = hostName('bad', t.vns.a, t.name);

      const { result } = await pass(t);
      expect(decisionLines(result)).toEqual(
        [
          `Create ConfigMap ${t.vns.a}/bad -> ${bad}`,
          `Create ConfigMap ${t.vns.a}/good-1 -> ${hostName('good-1', t.vns.a, t.name)}`,
          `Create ConfigMap ${t.vns.b}/good-2 -> ${hostName('good-2', t.vns.b, t.name)}`,
        ].sort(),
      );
      const failed = result.decisions.filter((d) => d.error !== undefined);
      expect(failed.map((d) => d.tenantRef.name)).toEqual(['bad']);
      expect(failed[0]?.error).toContain(DENIAL);
      expect(result.errors).toEqual([
        expect.objectContaining({
          kind: 'ConfigMap',
          reason: 'Invalid',
          tenantRef: { namespace: t.vns.a, name: 'bad' },
          hostRef: { namespace: t.hostNamespace, name: bad },
          message: expect.stringContaining(DENIAL),
        }),
      ]);
      expect(result.complete).toBe(true);
      expect(Object.keys(versions(await hostObjects(t))).sort()).toEqual(
        [hostName('good-1', t.vns.a, t.name), hostName('good-2', t.vns.b, t.name)].sort(),
      );

      // An update the host refuses leaves the host copy as it was.
      const good = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'good-1');
      await t.tenantApi.update({ ...(good as KubeObject), data: { forbidden: 'now' } });
      const before = await t.hostApi.get(
        CONFIGMAP,
        t.hostNamespace,
        hostName('good-1', t.vns.a, t.name),
      );
      const second = await pass(t);
      expect(second.result.errors.map((e) => e.tenantRef?.name).sort()).toEqual(['bad', 'good-1']);
      expect(
        await t.hostApi.get(CONFIGMAP, t.hostNamespace, hostName('good-1', t.vns.a, t.name)),
      ).toEqual(before);

      const status = (await tenantClusterObject(t)).status as {
        lastPass: { errorCount: number; errors: unknown[] };
      };
      expect(status.lastPass.errorCount).toBe(2);
      expect(JSON.stringify(status.lastPass.errors)).toContain(DENIAL);
      const summary = (await tenantEvents(t)).filter((e) => e.reason === 'PassSummary');
      expect(summary.every((e) => e.type === 'Warning')).toBe(true);
    } finally {
      for (const object of admission.reverse()) {
        await t.hostApi.delete(object, undefined, object.metadata.name, {
          uid: object.metadata.uid as string,
        });
      }
    }
  });

  it('a budget of N writes leaves a correct incomplete pass that the next pass completes', async () => {
    const t = await createTenant(apis(), 'budget');
    const orphan = await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'orphan'));
    expect((await pass(t)).result.counts.Create).toBe(1);
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'orphan', { uid: orphan.metadata.uid as string });
    const names = ['c0', 'c1', 'c2', 'c3', 'c4'];
    for (const n of names) await t.tenantApi.create(tenantConfigMap(t, t.vns.a, n));

    const bounded = await pass(t, { budget: { maxWrites: 2 } });
    expect(bounded.result.complete).toBe(false);
    expect(bounded.result.incompleteReason).toMatch(/write budget of 2 writes was spent/);
    // The listing went on to the end, so GC ran, and first: deletes come before creates.
    expect(bounded.result.counts).toEqual({ Create: 1, Update: 0, Delete: 1, Skip: 0 });
    expect(bounded.result.requests.host.writes).toBe(2);
    expect(bounded.result.errors).toEqual([]);
    const partial = byName(await hostObjects(t));
    expect(partial.has(hostName('orphan', t.vns.a, t.name))).toBe(false);
    expect(partial.size).toBe(1);
    for (const d of bounded.result.decisions.filter((d) => d.action === 'Create')) {
      expect(partial.get(d.hostRef.name)?.data).toEqual({ k: 'v' });
    }
    const incomplete = (await tenantClusterObject(t)).status as {
      lastPass: { complete: boolean; incompleteReason?: string };
    };
    expect(incomplete.lastPass.complete).toBe(false);
    expect(incomplete.lastPass.incompleteReason).toMatch(/write budget/);
    expect(
      await kubectl([
        'get',
        'tenantclusters',
        t.name,
        '-o',
        'jsonpath={.status.lastPass.complete}',
      ]),
    ).toBe('false');

    const next = await pass(t);
    expect(next.result.complete).toBe(true);
    expect(next.result.errors).toEqual([]);
    expect(next.result.counts).toEqual({ Create: 4, Update: 0, Delete: 0, Skip: 0 });
    expect(Object.keys(versions(await hostObjects(t))).sort()).toEqual(
      names.map((n) => hostName(n, t.vns.a, t.name)).sort(),
    );
    const done = (await tenantClusterObject(t)).status as { lastPass: Record<string, unknown> };
    expect(done.lastPass.complete).toBe(true);
    expect(done.lastPass).not.toHaveProperty('incompleteReason');
  });

  it('a dry run makes the same decisions and writes nothing: host objects, Events, status', async () => {
    const t = await createTenant(apis(), 'dry');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'changed', { v: '1' }));
    const gone = await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'gone'));
    expect((await pass(t)).result.counts.Create).toBe(2);

    const changed = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'changed');
    await t.tenantApi.update({ ...(changed as KubeObject), data: { v: '2' } });
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'gone', { uid: gone.metadata.uid as string });
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'new'));
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'taken'));
    await t.hostApi.create({
      ...CONFIGMAP,
      metadata: { name: hostName('taken', t.vns.a, t.name), namespace: t.hostNamespace },
      data: { foreign: 'yes' },
    });

    const snapshot = async () => ({
      host: versions(await hostObjects(t)),
      events: versions(await tenantEvents(t)),
      tenantCluster: await tenantClusterObject(t),
    });
    const before = await snapshot();
    const writesBefore = t.hostApi.requestCount().writes;
    const dry = await pass(t, { dryRun: true });
    const expected = [
      `Create ConfigMap ${t.vns.a}/new -> ${hostName('new', t.vns.a, t.name)}`,
      `Delete ConfigMap ${t.vns.a}/gone -> ${hostName('gone', t.vns.a, t.name)}`,
      `Skip ConfigMap ${t.vns.a}/taken -> ${hostName('taken', t.vns.a, t.name)}`,
      `Update ConfigMap ${t.vns.a}/changed -> ${hostName('changed', t.vns.a, t.name)}`,
    ];
    expect(dry.result.dryRun).toBe(true);
    expect(dry.result.errors).toEqual([]);
    expect(decisionLines(dry.result)).toEqual(expected);
    expect(dry.result.decisions.every((d) => d.dryRun)).toBe(true);
    expect(dry.result.requests.host.writes).toBe(0);
    // Not even an Event or the status: no write request left this client.
    expect(t.hostApi.requestCount().writes).toBe(writesBefore);
    expect(dry.events.lastReport).toMatchObject({ created: 0, bumped: 0, summary: 'none' });
    expect(dry.logs.filter((l) => l.type === 'decision').every((l) => l.dryRun === true)).toBe(
      true,
    );
    expect(await snapshot()).toEqual(before);

    const real = await pass(t);
    expect(decisionLines(real.result)).toEqual(expected);
    expect(real.result.errors).toEqual([]);
  });
});
