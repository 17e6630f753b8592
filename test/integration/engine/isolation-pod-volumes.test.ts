/**
 * Issue 28, findings 2, 8, 9, 10 and 12, on the real clusters, with an attacker and a victim
 * TenantCluster sharing one host namespace. An ephemeral volume mounts the host copy of the claim
 * the tenant's controller made, so its template (labelled as the victim's copy) reaches nothing: no second claim, no label of the victim's, the operator's
 * volume untouched; a host object stamped with the victim's labels but not its uid never has its
 * status written onto the victim's claim. Node-mounted volumes (`nfs`), resource claims, a scheduler
 * of the tenant's own, a toleration of every taint and another runtime class are Skips naming the
 * field, with no host object; the policy's runtime class is set on every other host Pod, and a
 * class the policy names later is a Skip on the running Pod, with no write, pass after pass. Each
 * time a uid/resourceVersion snapshot of the host namespace shows nothing else changed. An inline CSI
 * volume of a driver the policy does not list is a Skip too. A claim asking for no storage class
 * (`""`), which the host would bind to an operator's unclaimed volume, gets no copy, nor does a
 * claim of a class the policy stops listing, while the copy such a claim already has keeps its
 * data (neither deleted nor written).
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
  RUN,
  type Tenant,
  tenantClusterObject,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const PV: KindRef = { apiVersion: 'v1', kind: 'PersistentVolume' };
const RUNTIME_CLASS: KindRef = { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' };
const CLAIM_SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } };
const NOTHING = { created: [], changed: [], deleted: [] };

type Spec = Record<string, unknown>;
const podSpec = (extra: Spec = {}): Spec => ({
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'nginx:1' }],
  ...extra,
});

async function ensure(api: Tenant['hostApi'], object: KubeObject): Promise<void> {
  if (!(await api.get(object, undefined, object.metadata.name))) await api.create(object);
}

/** The claim's phase once it has one of `phases`. */
function phaseOf(t: Tenant, kind: 'host' | 'tenant', ns: string, name: string, phases: string[]) {
  const api = kind === 'host' ? t.hostApi : t.tenantApi;
  return waitFor(`${kind} claim ${ns}/${name} ${phases.join('|')}`, async () => {
    const phase = ((await api.get(CLAIM, ns, name))?.status as { phase?: string })?.phase;
    return phase && phases.includes(phase) ? phase : undefined;
  });
}

describe('Pod volumes, resource claims and sandbox controls', () => {
  it('an ephemeral volume mounts the copy of the claim the tenant’s controller made; its hostile template reaches nothing, and a host object stamped as the victim’s copy never feeds the victim’s status', async () => {
    const victim = await createTenant(apis(), 'iv-victim', { toHost: [CLAIM] });
    const attacker = await createTenant(apis(), 'iv-attacker', {
      toHost: [POD, CLAIM],
      hostNamespace: victim.hostNamespace,
    });
    const hostNs = victim.hostNamespace;
    const vns = victim.vns.a;
    await victim.tenantApi.create(tenantObject(victim, CLAIM, vns, 'data', { spec: CLAIM_SPEC }));
    expect((await pass(victim)).result.errors).toEqual([]);
    const victimCopy = hostName('data', vns, victim.name);
    await phaseOf(victim, 'host', hostNs, victimCopy, ['Bound']);
    expect((await pass(victim, { full: true })).result.errors).toEqual([]);
    await phaseOf(victim, 'tenant', vns, 'data', ['Bound']);

    // An operator's statically provisioned volume, which nothing of the tenant's may take.
    const pv = `iv-operator-${RUN}`;
    await ensure(attacker.hostApi, {
      ...PV,
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Mi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: `/tmp/iv-operator-${RUN}` },
        storageClassName: `operator-only-${RUN}`,
        persistentVolumeReclaimPolicy: 'Retain',
      },
    });

    const before = await snapshot(hostNs);
    const ans = attacker.vns.a;
    const template = {
      metadata: {
        labels: {
          [LABEL]: attacker.name,
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': victim.name,
          'tenantplane.io/kind': 'PersistentVolumeClaim',
          'tenantplane.io/virtual-namespace': vns,
        },
        annotations: {
          'tenantplane.io/virtual-namespace': vns,
          'tenantplane.io/virtual-name': 'data',
        },
      },
      // No class (the host's default): a class a tenant may name is the storage-class mapping's
      // business, not the template's; a template naming the operator's volume (`volumeName`) gets
      // no claim copy at all (isolation-volume-names.test.ts).
      spec: { ...CLAIM_SPEC },
    };
    await attacker.tenantApi.create(
      tenantObject(attacker, POD, ans, 'web', {
        spec: podSpec({
          volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }],
        }),
      }),
    );
    // The tenant's own ephemeral-volume controller makes `<pod>-<volume>`.
    await waitFor('the tenant claim web-scratch', () =>
      attacker.tenantApi.get(CLAIM, ans, 'web-scratch'),
    );

    const synced = await pass(attacker);
    expect(synced.result.errors).toEqual([]);
    const hostPodName = hostName('web', ans, attacker.name);
    const claimCopy = hostName('web-scratch', ans, attacker.name);
    const hostPod = await attacker.hostApi.get(POD, hostNs, hostPodName);
    expect((hostPod?.spec as { volumes: Spec[] } | undefined)?.volumes).toContainEqual({
      name: 'scratch',
      persistentVolumeClaim: { claimName: claimCopy },
    });
    expect(JSON.stringify(hostPod?.spec)).not.toContain('volumeClaimTemplate');
    const copy = await attacker.hostApi.get(CLAIM, hostNs, claimCopy);
    expect(copy?.metadata.labels?.['tenantplane.io/tenant']).toBe(attacker.name);
    expect(copy?.metadata.annotations?.['tenantplane.io/virtual-name']).toBe('web-scratch');
    // `volumeName` is the host's to bind: the copy gets a volume of the host's default class.
    expect((copy?.spec as Spec | undefined)?.volumeName).not.toBe(pv);
    // No second claim from a template: the host's controller had none to make one from.
    expect(await attacker.hostApi.get(CLAIM, hostNs, `${hostPodName}-scratch`)).toBeUndefined();

    // A host object stamped with the victim's labels, as a host controller would from a template
    // (the engine never writes one now): no uid of the victim's claim, so it is not its copy.
    const stamped = `iv-stamped-${RUN}`;
    await victim.hostApi.create({
      ...CLAIM,
      metadata: {
        name: stamped,
        namespace: hostNs,
        labels: template.metadata.labels,
        annotations: template.metadata.annotations,
      },
      // A class no provisioner serves: it stays Pending, while the victim's claim is Bound.
      spec: { ...CLAIM_SPEC, storageClassName: `iv-none-${RUN}` },
    });
    await phaseOf(victim, 'host', hostNs, stamped, ['Pending']);
    for (const n of [1, 2]) {
      const steady = await pass(victim, { full: true });
      expect({ n, errors: steady.result.errors, decisions: steady.result.decisions }).toEqual({
        n,
        errors: [],
        decisions: [],
      });
      expect({ n, writes: steady.result.requests.tenant.writes }).toEqual({ n, writes: 0 });
    }
    expect(await phaseOf(victim, 'tenant', vns, 'data', ['Bound', 'Pending'])).toBe('Bound');
    const made = await victim.hostApi.get(CLAIM, hostNs, stamped);
    await victim.hostApi.delete(CLAIM, hostNs, stamped, { uid: made?.metadata.uid ?? '' });
    await waitFor('the stamped claim gone', async () =>
      (await victim.hostApi.get(CLAIM, hostNs, stamped)) ? undefined : true,
    );

    // The operator's volume was never taken; the host namespace has the attacker's Pod and claim
    // copy, nothing else new, and nothing of the victim's changed.
    expect((await attacker.hostApi.get(PV, undefined, pv))?.spec).not.toHaveProperty('claimRef');
    const diff = diffSnapshots(before, await snapshot(hostNs));
    expect(diff).toEqual({
      created: [`PersistentVolumeClaim/${claimCopy}`, `Pod/${hostPodName}`].sort(),
      changed: [],
      deleted: [],
    });
  });

  it('node-mounted volumes, resource claims, a scheduler of its own, tolerate-all and another runtime class are Skips naming the field; the policy’s runtime class is set, and a new one is a Skip on the running Pod without a write', async () => {
    const sandbox = `iv-sandbox-${RUN}`;
    const later = `iv-later-${RUN}`;
    const other = `iv-other-${RUN}`;
    for (const name of [sandbox, later]) {
      await ensure(apis().hostApi, { ...RUNTIME_CLASS, metadata: { name }, handler: 'runsc' });
    }
    // The tenant's admission refuses a Pod whose runtime class it does not have.
    await ensure(apis().tenantApi, {
      ...RUNTIME_CLASS,
      metadata: { name: other },
      handler: 'runc',
    });
    const t = await createTenant(apis(), 'iv-refuse', {
      toHost: [POD],
      workloads: { runtimeClassName: sandbox },
    });
    const ns = t.vns.a;
    const hostile: Array<[string, Spec, string]> = [
      [
        'nfs',
        { volumes: [{ name: 'data', nfs: { server: '10.0.0.5', path: '/exports' } }] },
        'spec.volumes[data].nfs',
      ],
      [
        'csi',
        { volumes: [{ name: 'secrets', csi: { driver: 'secrets-store.csi.k8s.io' } }] },
        'spec.volumes[secrets].csi',
      ],
      [
        'gpu',
        {
          resourceClaims: [{ name: 'gpu', resourceClaimName: 'shared-gpu' }],
          containers: [{ name: 'web', image: 'nginx:1', resources: { claims: [{ name: 'gpu' }] } }],
        },
        'spec.resourceClaims[gpu].resourceClaimName',
      ],
      ['scheduler', { schedulerName: 'bin-packer' }, 'spec.schedulerName'],
      ['tolerate', { tolerations: [{ operator: 'Exists' }] }, 'spec.tolerations[0]'],
      ['runtime', { runtimeClassName: other }, 'spec.runtimeClassName'],
    ];
    for (const [name, extra] of hostile) {
      await t.tenantApi.create(tenantObject(t, POD, ns, name, { spec: podSpec(extra) }));
    }
    await t.tenantApi.create(tenantObject(t, POD, ns, 'plain', { spec: podSpec() }));

    const before = await snapshot(t.hostNamespace);
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    const skips = new Map(
      first.result.decisions
        .filter((d) => d.kind === 'Pod' && d.action === 'Skip')
        .map((d) => [d.tenantRef.name, d.reason]),
    );
    for (const [name, , field] of hostile) {
      expect({ name, reason: skips.get(name) }).toEqual({
        name,
        reason: expect.stringContaining(`(${field}`),
      });
    }
    const plain = hostName('plain', ns, t.name);
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual({
      created: [`Pod/${plain}`],
      changed: [],
      deleted: [],
    });
    const made = await t.hostApi.get(POD, t.hostNamespace, plain);
    expect((made?.spec as Spec | undefined)?.runtimeClassName).toBe(sandbox);
    await waitFor('the host Pod running', async () => {
      const pod = await t.hostApi.get(POD, t.hostNamespace, plain);
      return (pod?.status as { phase?: string })?.phase === 'Running' ? true : undefined;
    });

    // The policy names another runtime class: the running Pod cannot take it.
    const settled = await snapshot(t.hostNamespace);
    const tc = await tenantClusterObject(t);
    await t.hostApi.update({
      ...tc,
      spec: { ...(tc.spec as Spec), workloads: { runtimeClassName: later } },
    });
    for (const n of [1, 2]) {
      const refused = await pass(t, { full: true });
      expect({ n, errors: refused.result.errors }).toEqual({ n, errors: [] });
      const plainDecisions = refused.result.decisions.filter((d) => d.tenantRef.name === 'plain');
      expect(plainDecisions).toEqual([
        expect.objectContaining({
          action: 'Skip',
          reason:
            "the Pod's spec.runtimeClassName changed; a running Pod cannot change it; delete the tenant Pod to recreate it",
        }),
      ]);
      if (n === 2) expect(refused.result.requests.host.writes).toBe(0);
    }
    expect(diffSnapshots(settled, await snapshot(t.hostNamespace))).toEqual(NOTHING);
  });

  it('a claim of no class ("") gets no copy and the operator’s unclaimed volume stays free; once the policy lists classes, a claim of another gets none, and a copy made before keeps its data', async () => {
    const t = await createTenant(apis(), 'iv-class', { toHost: [CLAIM] });
    const ns = t.vns.a;
    // An operator's statically provisioned volume of no class: what a "" claim binds to.
    const pv = `iv-static-${RUN}`;
    await ensure(t.hostApi, {
      ...PV,
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Mi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: `/tmp/iv-static-${RUN}` },
        persistentVolumeReclaimPolicy: 'Retain',
      },
    });
    const claimOf = (name: string, storageClassName?: string) =>
      tenantObject(t, CLAIM, ns, name, {
        spec: { ...CLAIM_SPEC, ...(storageClassName === undefined ? {} : { storageClassName }) },
      });
    await t.tenantApi.create(claimOf('static', ''));
    await t.tenantApi.create(claimOf('kept', 'standard'));
    await t.tenantApi.create(claimOf('plain'));

    const before = await snapshot(t.hostNamespace);
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    const skips = first.result.decisions.filter((d) => d.action === 'Skip');
    expect(skips.map((d) => [d.tenantRef.name, d.reason])).toEqual([
      [
        'static',
        expect.stringContaining(
          'the claim asks for no storage class (spec.storageClassName: ""), so the host would bind it to any unclaimed volume of no class',
        ),
      ],
    ]);
    const kept = hostName('kept', ns, t.name);
    const plain = hostName('plain', ns, t.name);
    expect(
      await t.hostApi.get(CLAIM, t.hostNamespace, hostName('static', ns, t.name)),
    ).toBeUndefined();
    await phaseOf(t, 'host', t.hostNamespace, kept, ['Bound']);
    await phaseOf(t, 'host', t.hostNamespace, plain, ['Bound']);
    const made = diffSnapshots(before, await snapshot(t.hostNamespace));
    expect(made.created).toEqual(
      expect.arrayContaining([`PersistentVolumeClaim/${kept}`, `PersistentVolumeClaim/${plain}`]),
    );
    expect(made.created.filter((k) => k.startsWith('PersistentVolumeClaim/'))).toHaveLength(2);
    expect(made.deleted).toEqual([]);

    // The operator lists the classes a new copy may get; "standard" is not among them.
    const tc = await tenantClusterObject(t);
    await t.hostApi.update({
      ...tc,
      spec: { ...(tc.spec as Spec), workloads: { volumes: { storageClasses: [`gold-${RUN}`] } } },
    });
    await t.tenantApi.create(claimOf('late', 'standard'));
    const settled = await snapshot(t.hostNamespace);
    for (const n of [1, 2]) {
      const limited = await pass(t, { full: true });
      expect({ n, errors: limited.result.errors }).toEqual({ n, errors: [] });
      const lines = limited.result.decisions.map((d) => `${d.action} ${d.tenantRef.name}`).sort();
      expect({ n, lines }).toEqual({ n, lines: ['Skip late', 'Skip static'] });
      const late = limited.result.decisions.find((d) => d.tenantRef.name === 'late');
      expect(late?.reason).toBe(
        `the claim's host storage class "standard" is not one the policy allows (spec.workloads.volumes.storageClasses: "gold-${RUN}")`,
      );
    }
    // The copy of "kept" (class "standard") is neither deleted nor written: its data stays.
    expect(diffSnapshots(settled, await snapshot(t.hostNamespace))).toEqual(NOTHING);
    expect((await t.hostApi.get(PV, undefined, pv))?.spec).not.toHaveProperty('claimRef');
  });
});
