/**
 * The engine never clobbers or collects what is not its own, on the real clusters: an occupied
 * host name is a Skip (decided from the host listing, so no write at all, pass after pass) and the
 * occupant stays byte-for-byte the same, resourceVersion included; GC deletes only this tenant's
 * own orphans. Each test has its own tenant.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import {
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../lib/engine/names/reverse-mapping.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  byName,
  CONFIGMAP,
  createTenant,
  decisionLines,
  eventTally,
  hostObjects,
  pass,
  RUN,
  type Tenant,
  tenantConfigMap,
  tenantEvents,
  useApis,
} from './support.js';

const apis = useApis();

/** A host ConfigMap carrying the reverse mapping of `source` (as if a pass had written it). */
function managedCopy(
  t: Tenant,
  name: string,
  source: { tenant: string; kind?: string; vns: string; vname: string },
  data: Record<string, string>,
): KubeObject {
  return {
    ...CONFIGMAP,
    metadata: {
      name,
      namespace: t.hostNamespace,
      labels: reverseMappingLabels(source.tenant, source.kind ?? 'ConfigMap', source.vns),
      annotations: reverseMappingAnnotations(source.vns, source.vname, undefined),
    },
    data,
  };
}

async function expectSkippedUntouched(t: Tenant, occupant: KubeObject, occupantText: RegExp) {
  const { name } = occupant.metadata;
  const before = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
  const tally = await eventTally(t);
  for (let i = 1; i <= 2; i++) {
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result)).toEqual([`Skip ConfigMap ${t.vns.a}/app -> ${name}`]);
    expect(result.decisions[0]?.reason).toMatch(occupantText);
    expect(result.decisions[0]?.reason).toMatch(/left it untouched/);
    // Decided from the host listing: no create attempt, no re-read.
    expect(result.requests.host.writes).toBe(0);
    expect(await t.hostApi.get(CONFIGMAP, t.hostNamespace, name)).toEqual(before);
  }
  // The repeated Skip bumps its Event instead of adding one each pass.
  const skips = (await tenantEvents(t)).filter((e) => e.reason === 'Skip');
  expect(skips).toHaveLength(1);
  expect(skips[0]?.count).toBe(2);
  expect(skips[0]?.type).toBe('Normal');
  expect((await eventTally(t)).events - tally.events).toBe(2); // the Skip + one PassSummary
}

describe('provenance', () => {
  it('a host object managed for another source at the target name: Skip, untouched', async () => {
    const t = await createTenant(apis(), 'coll');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app', { mine: 'yes' }));
    const target = hostName('app', t.vns.a, t.name);
    const occupant = await t.hostApi.create(
      managedCopy(
        t,
        target,
        { tenant: `other-${RUN}`, vns: t.vns.a, vname: 'app' },
        { theirs: '1' },
      ),
    );
    await expectSkippedUntouched(
      t,
      occupant,
      // Named as another tenant's, never by that tenant's name, namespace or object.
      /^host name [^ ]+ is occupied by an object of another tenant \(a name collision\); left it untouched$/,
    );
    // Nor does the Event this tenant's TenantCluster shows.
    const messages = (await tenantEvents(t)).map((e) => String(e.message));
    expect(messages.some((m) => m.includes('an object of another tenant'))).toBe(true);
    expect(messages.filter((m) => m.includes(`other-${RUN}`))).toEqual([]);
  });

  it('a foreign object at the name: Skip, untouched', async () => {
    const t = await createTenant(apis(), 'foreign');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app', { mine: 'yes' }));
    const occupant = await t.hostApi.create({
      ...CONFIGMAP,
      metadata: {
        name: hostName('app', t.vns.a, t.name),
        namespace: t.hostNamespace,
        labels: { 'app.kubernetes.io/name': 'platform-thing' },
      },
      data: { owner: 'platform team' },
    });
    await expectSkippedUntouched(t, occupant, /a foreign object/);
  });

  it("unmanaged objects and another tenant's objects in the host namespace survive GC", async () => {
    const t = await createTenant(apis(), 'gc');
    // A second, real tenant syncing into the same host namespace.
    const other = await createTenant(apis(), 'gc-other', { hostNamespace: t.hostNamespace });
    await other.tenantApi.create(tenantConfigMap(other, other.vns.a, 'theirs'));
    expect((await pass(other)).result.counts.Create).toBe(1);

    const mine = await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'orphan'));
    expect((await pass(t)).result.counts.Create).toBe(1);
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'orphan', { uid: mine.metadata.uid as string });

    const ns = t.hostNamespace;
    const bystanders = [
      // No tenantplane metadata at all.
      { ...CONFIGMAP, metadata: { name: 'unmanaged', namespace: ns }, data: { a: '1' } },
      // Managed-by and tenant labels of this tenant, but no reverse-mapping annotations.
      {
        ...CONFIGMAP,
        metadata: {
          name: 'half-managed',
          namespace: ns,
          labels: reverseMappingLabels(t.name, 'ConfigMap', t.vns.a),
        },
        data: { a: '2' },
      },
      // This tenant, but recorded for another kind.
      managedCopy(
        t,
        'other-kind',
        { tenant: t.name, kind: 'Secret', vns: t.vns.a, vname: 'x' },
        {},
      ),
      // Not tenantplane's value of managed-by.
      {
        ...managedCopy(t, 'helm-managed', { tenant: t.name, vns: t.vns.a, vname: 'y' }, {}),
        metadata: {
          name: 'helm-managed',
          namespace: ns,
          labels: {
            ...reverseMappingLabels(t.name, 'ConfigMap', t.vns.a),
            'app.kubernetes.io/managed-by': 'Helm',
          },
          annotations: reverseMappingAnnotations(t.vns.a, 'y', undefined),
        },
      },
    ];
    for (const object of bystanders) await t.hostApi.create(object);
    const before = byName(await hostObjects(t));
    const theirs = hostName('theirs', other.vns.a, other.name);
    expect(before.has(theirs)).toBe(true);

    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result)).toEqual([
      `Delete ConfigMap ${t.vns.a}/orphan -> ${hostName('orphan', t.vns.a, t.name)}`,
    ]);
    const after = byName(await hostObjects(t));
    expect([...after.keys()].sort()).toEqual(
      [...before.keys()].filter((n) => n !== hostName('orphan', t.vns.a, t.name)).sort(),
    );
    for (const [name, object] of after) expect(object).toEqual(before.get(name));

    // And the other tenant's next pass is steady: nothing of theirs was touched.
    const theirsPass = await pass(other);
    expect(theirsPass.result.decisions).toEqual([]);
  });
});
