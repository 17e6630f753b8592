/**
 * The claim translator: data sources renamed, storage classes mapped by the policy, bindings
 * host-owned, updates of the requests only.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import {
  claimClassRefusal,
  claimUpdateBody,
} from '../../../../../lib/engine/kinds/persistent-volume-claim/persistent-volume-claim.js';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import { isolationOf, type WorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn } from '../../support.js';
import { HOST_NAMESPACE, hostOf, TENANT, tenantObject } from '../support.js';

/** Why the translator refuses `source`, or `undefined` when it goes to the host. */
function refusalOf(source: ReturnType<typeof claim>): string | undefined {
  const result = translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE });
  return 'refused' in result ? result.refused : undefined;
}

const claim = (spec: Record<string, unknown>) =>
  tenantObject('v1', 'PersistentVolumeClaim', { spec });
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

describe('PersistentVolumeClaim translator', () => {
  const cases = [
    {
      name: 'storageClassName kept; volumeName and selector host-owned',
      spec: {
        ...base,
        storageClassName: 'fast',
        volumeName: 'pv-tenant-7',
        selector: { matchLabels: { disk: 'ssd' } },
      },
      expected: { ...base, storageClassName: 'fast' },
    },
    {
      name: 'a clone’s source claim is its host copy',
      spec: { ...base, dataSource: { kind: 'PersistentVolumeClaim', name: 'golden' } },
      expected: {
        ...base,
        dataSource: { kind: 'PersistentVolumeClaim', name: 'golden-x-shop-x-dev' },
      },
    },
    {
      name: 'a snapshot source in dataSource and dataSourceRef: both the host copy',
      spec: {
        ...base,
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' },
        dataSourceRef: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap',
        },
      },
      expected: {
        ...base,
        dataSource: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap-x-shop-x-dev',
        },
        dataSourceRef: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap-x-shop-x-dev',
        },
      },
    },
    {
      name: 'a source naming the claim’s own namespace is its host copy, the namespace dropped',
      spec: {
        ...base,
        dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden', namespace: 'shop' },
      },
      expected: {
        ...base,
        dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden-x-shop-x-dev' },
      },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(claim(spec)).spec).toEqual(expected);
  });

  it('a source in another namespace is refused (a Skip), naming the field and namespace', () => {
    const crossing = claim({
      ...base,
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden', namespace: 'base' },
    });
    expect(refusalOf(crossing)).toBe(
      'its data source is in another namespace (spec.dataSourceRef: namespace "base"), which is not supported on the host: use a source in the claim\'s namespace',
    );
    expect(refusalOf(claim(base))).toBeUndefined();
  });

  const bound = () => {
    const host = hostOf(claim(base));
    return {
      ...host,
      metadata: {
        ...host.metadata,
        uid: 'h',
        resourceVersion: '7',
        managedFields: [{ manager: 'x' }],
      },
      spec: {
        ...base,
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        volumeName: 'pvc-1234',
      },
      status: { phase: 'Bound' },
    };
  };
  const updates = [
    {
      name: 'nothing but the requests may change: an unchanged claim changes nothing',
      spec: base,
      changed: [],
    },
    {
      name: 'an immutable field the tenant changed is not sent',
      spec: { ...base, accessModes: ['ReadWriteMany'] },
      changed: [],
    },
    {
      name: 'an expansion changes the requests, over the host’s binding and defaults',
      spec: { ...base, resources: { requests: { storage: '5Gi' } } },
      changed: ['spec.resources.requests'],
      expectedSpec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5Gi' } },
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        volumeName: 'pvc-1234',
      },
    },
  ];
  it.each(updates)('$name', ({ spec, changed, expectedSpec }) => {
    const observed = bound();
    const update = claimUpdateBody(hostOf(claim(spec)), observed);
    expect(update.changed).toEqual(changed);
    expect(update.body.spec).toEqual(expectedSpec ?? observed.spec);
    expect(update.body.status).toBeUndefined();
    expect(update.body.metadata).toEqual({ ...observed.metadata, managedFields: undefined });
    expect(update.body.metadata.resourceVersion).toBe('7');
  });
});

describe('PersistentVolumeClaim translator: storage classes the policy maps', () => {
  const storageClasses = { fast: 'tenant-dev-ssd', standard: 'tenant-dev-hdd' };
  const cases: Array<{
    name: string;
    tenantClass?: string;
    policy?: WorkloadPolicy;
    expectedHostClass?: string;
  }> = [
    {
      name: 'a mapped class is the host class',
      tenantClass: 'fast',
      policy: { storageClasses },
      expectedHostClass: 'tenant-dev-ssd',
    },
    {
      name: 'an unmapped class is kept',
      tenantClass: 'gold',
      policy: { storageClasses },
      expectedHostClass: 'gold',
    },
    {
      name: 'no class (the host’s default) stays none',
      policy: { storageClasses },
      expectedHostClass: undefined,
    },
    {
      name: 'the empty class (no dynamic provisioning) stays empty',
      tenantClass: '',
      policy: { storageClasses: { ...storageClasses, '': 'never' } },
      expectedHostClass: '',
    },
    { name: 'no policy: kept', tenantClass: 'fast', expectedHostClass: 'fast' },
  ];
  it.each(cases)('$name', ({ tenantClass, policy, expectedHostClass }) => {
    const source = claim(
      tenantClass === undefined ? base : { ...base, storageClassName: tenantClass },
    );
    const result = translate(source, {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: policy,
    });
    if (!('host' in result)) throw new Error(result.refused);
    expect((result.host.spec as Record<string, unknown>).storageClassName).toBe(expectedHostClass);
  });

  it('a mapping changed later writes nothing to an existing claim (its class cannot change)', () => {
    const target = { tenant: TENANT, hostNamespace: HOST_NAMESPACE };
    const translated = (workloads: WorkloadPolicy) => {
      const result = translate(claim({ ...base, storageClassName: 'fast' }), {
        ...target,
        workloads,
      });
      if (!('host' in result)) throw new Error(result.refused);
      return result.host;
    };
    const observed = translated({ storageClasses: { fast: 'old' } });
    const update = claimUpdateBody(translated({ storageClasses: { fast: 'new' } }), observed);
    expect(update.changed).toEqual([]);
  });
});

describe('claimClassRefusal: the storage classes a new copy may get', () => {
  const limited = (storageClasses?: string[], mapped?: Record<string, string>): WorkloadPolicy => ({
    ...(mapped ? { storageClasses: mapped } : {}),
    isolation: {
      ...isolationOf(undefined),
      volumes: { csiDrivers: [], ...(storageClasses ? { storageClasses } : {}) },
    },
  });
  const cases: Array<{
    name: string;
    tenantClass?: string;
    policy?: WorkloadPolicy;
    says?: string;
  }> = [
    { name: 'no class (the host default), no policy: allowed' },
    { name: 'a named class, no policy: allowed', tenantClass: 'gold' },
    {
      name: '"" (static binding), no policy: refused',
      tenantClass: '',
      says: "the claim asks for no storage class (spec.storageClassName: \"\"), so the host would bind it to any unclaimed volume of no class, an operator's or another tenant's; the policy does not allow that (spec.workloads.volumes.storageClasses: any named class): name a storage class, or leave the field out for the host's default",
    },
    { name: '"" listed: allowed', tenantClass: '', policy: limited(['']) },
    { name: 'a listed class: allowed', tenantClass: 'gp3', policy: limited(['gp3']) },
    {
      name: 'a class not listed: refused, naming the list',
      tenantClass: 'io2',
      policy: limited(['gp3', '']),
      says: 'the claim\'s host storage class "io2" is not one the policy allows (spec.workloads.volumes.storageClasses: "gp3", "")',
    },
    {
      name: 'the mapped class is what is checked',
      tenantClass: 'fast',
      policy: limited(['gp3'], { fast: 'io2' }),
      says: 'the claim\'s host storage class "io2" (mapped by spec.workloads.storageClasses) is not one the policy allows (spec.workloads.volumes.storageClasses: "gp3")',
    },
    {
      name: 'a class mapped to a listed one: allowed',
      tenantClass: 'fast',
      policy: limited(['gp3'], { fast: 'gp3' }),
    },
    { name: 'no class with an empty list: the host default, allowed', policy: limited([]) },
    {
      name: 'a class with an empty list: refused',
      tenantClass: 'gp3',
      policy: limited([]),
      says: '(spec.workloads.volumes.storageClasses: none)',
    },
  ];
  it.each(cases)('$name', ({ tenantClass, policy, says }) => {
    const source = claim(
      tenantClass === undefined ? base : { ...base, storageClassName: tenantClass },
    );
    const reason = claimClassRefusal(source, policy);
    if (says === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(says);
  });
});

describe('claims of a class the policy does not allow, through a pass', () => {
  const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
  const tenantClaim = (name: string, storageClassName: string): KubeObject => ({
    ...CLAIM,
    metadata: { namespace: 'shop', name, uid: `uid-${name}` },
    spec: { ...base, storageClassName },
  });
  const run = (c: ReturnType<typeof clusters>, path?: 'full') =>
    runPass({ tenant: 'dev', ...c, ...(path ? { path } : {}) });

  it('gets no new copy (a Skip each full pass, no write); a copy made before the policy narrowed keeps its data', async () => {
    const c = clusters(
      [tenantClaim('static', ''), tenantClaim('kept', 'io2'), tenantClaim('fine', 'gp3')],
      [],
      { toHost: [CLAIM] },
    );
    // Before any limit: "kept" (io2) gets its copy; "static" ("") never does.
    const first = await run(c);
    expect(first.errors).toEqual([]);
    expect(decisionLines(first.decisions)).toEqual([
      `Create PersistentVolumeClaim shop/fine -> ${hn('shop', 'fine')}`,
      `Create PersistentVolumeClaim shop/kept -> ${hn('shop', 'kept')}`,
      `Skip PersistentVolumeClaim shop/static -> ${hn('shop', 'static')}`,
    ]);
    expect(c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'static'))).toBeUndefined();

    // The operator narrows the classes: the existing copy of "kept" is neither deleted nor
    // touched; a new claim of that class is a Skip.
    const tc = c.hostApi.peek(
      { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' },
      undefined,
      'dev',
    ) as KubeObject;
    c.hostApi.replace({
      ...tc,
      spec: { ...(tc.spec as object), workloads: { volumes: { storageClasses: ['gp3'] } } },
    });
    await c.tenantApi.create(tenantClaim('late', 'io2'));
    const keptUid = c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'kept'))?.metadata.uid;
    const claimWrites = () =>
      (['create', 'update', 'patchStatus', 'delete'] as const).flatMap((m) =>
        c.hostApi.callsOf(m).filter((call) => call.kind === CLAIM.kind),
      ).length;
    const before = claimWrites();
    for (const path of ['full' as const, undefined, 'full' as const]) {
      const result = await run(c, path);
      expect(result.errors).toEqual([]);
      expect(decisionLines(result.decisions).filter((l) => !l.startsWith('Skip'))).toEqual([]);
    }
    expect(claimWrites()).toBe(before);
    expect(c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'kept'))?.metadata.uid).toBe(keptUid);
    expect(c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'late'))).toBeUndefined();
    const full = await run(c, 'full');
    expect(decisionLines(full.decisions)).toEqual([
      `Skip PersistentVolumeClaim shop/late -> ${hn('shop', 'late')}`,
      `Skip PersistentVolumeClaim shop/static -> ${hn('shop', 'static')}`,
    ]);
  });
});
