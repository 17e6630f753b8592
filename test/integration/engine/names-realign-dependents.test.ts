/**
 * Issue 35, defect 1, on the real clusters: a realignment loses nothing the tenant hung on its
 * Service. A Service whose address the host holds is realigned by deleting and recreating it in
 * the tenant, and the tenant's garbage collector (its kube-controller-manager runs one) deletes
 * whatever names the old uid as owner. So a Service that owns a tenant object is not realigned: a
 * Skip names the object, and uid/resourceVersion snapshots of both sides show the Service and
 * what it owns untouched, past a point where the tenant's garbage collector has demonstrably
 * collected something deleted after the pass. A Service with no dependents is still realigned;
 * the one that owned something is realigned at the next full pass once the tenant lets it go.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  ensureNamespace,
  listAll,
  type PassRun,
  pass,
  RUN,
  SERVICE,
  type Snapshot,
  type Tenant,
  tenantConfigMap,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const ENDPOINT_SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
const HOLDERS_NS = `realign-holders-${RUN}`;

const ipOf = (o: KubeObject | undefined) =>
  (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;
const stamp = (o: KubeObject | undefined) => `${o?.metadata.uid}@${o?.metadata.resourceVersion}`;

function service(t: Tenant, namespace: string, name: string): KubeObject {
  return tenantObject(t, SERVICE, namespace, name, {
    spec: { ports: [{ port: 80 }], selector: { app: name } },
  });
}

const ownerRef = (owner: KubeObject) => ({
  apiVersion: 'v1',
  kind: 'Service',
  name: owner.metadata.name,
  uid: owner.metadata.uid,
});

/** `side Kind/ns/name` -> `uid@resourceVersion` of the Services and ConfigMaps on both sides. */
async function snapshot(t: Tenant): Promise<Snapshot> {
  const all: Snapshot = new Map();
  const sides = [
    ['tenant', t.tenantApi, t.vns.a],
    ['host', t.hostApi, t.hostNamespace],
  ] as const;
  for (const [side, api, ns] of sides)
    for (const kind of [SERVICE, CONFIGMAP])
      for (const o of await listAll(api, kind, ns))
        all.set(`${side} ${kind.kind}/${ns}/${o.metadata.name}`, stamp(o));
  return all;
}

/**
 * Returns once the tenant's garbage collector has collected a dependent whose owner is deleted
 * now (after the pass): it has caught up with the deletions before it. Then watches `survivor`
 * for another 5 s, well past the collector's latency, failing the moment it is gone.
 */
async function collectorCaughtUp(t: Tenant, survivor: string, tag: string): Promise<void> {
  const { tenantApi } = t;
  const canary = await tenantApi.create(service(t, t.vns.b, `canary-${tag}`));
  await tenantApi.create(
    tenantConfigMap(
      t,
      t.vns.b,
      `canary-${tag}-dep`,
      { k: 'v' },
      { ownerReferences: [ownerRef(canary)] },
    ),
  );
  await tenantApi.delete(SERVICE, t.vns.b, canary.metadata.name, {
    uid: canary.metadata.uid ?? '',
  });
  await waitFor('the tenant garbage collector to collect the canary’s dependent', async () =>
    (await tenantApi.get(CONFIGMAP, t.vns.b, `canary-${tag}-dep`)) ? undefined : true,
  );
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const still = await tenantApi.get(CONFIGMAP, t.vns.a, survivor);
    expect(still?.metadata.name).toBe(survivor);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const actions = (run: PassRun, name: string) =>
  run.result.decisions.filter((d) => d.tenantRef.name === name).map((d) => d.action);

describe('a realignment loses nothing the tenant hung on its Service', () => {
  const holders: KubeObject[] = [];

  afterAll(async () => {
    for (const h of holders)
      await apis().hostApi.delete(SERVICE, HOLDERS_NS, h.metadata.name, {
        uid: h.metadata.uid ?? '',
      });
  });

  it('a Service that owns a ConfigMap is a Skip naming it, and the ConfigMap outlives the tenant’s garbage collector; one that owns nothing is realigned', async () => {
    const t = await createTenant(apis(), 'realign-deps', { toHost: [SERVICE] });
    const { tenantApi, hostApi } = t;
    const owner = await tenantApi.create(service(t, t.vns.a, 'owner'));
    const plain = await tenantApi.create(service(t, t.vns.a, 'plain'));
    const owned = await tenantApi.create(
      tenantConfigMap(t, t.vns.a, 'owned', { k: 'v' }, { ownerReferences: [ownerRef(owner)] }),
    );
    // The host holds both tenant addresses: Services of another host namespace asked for them.
    await ensureNamespace(hostApi, HOLDERS_NS);
    for (const s of [owner, plain]) {
      const ip = ipOf(s);
      holders.push(
        await hostApi.create({
          ...SERVICE,
          metadata: { name: `holds-${s.metadata.name}-${RUN}`, namespace: HOLDERS_NS },
          spec: { ports: [{ port: 80 }], clusterIP: ip, clusterIPs: [ip] },
        }),
      );
    }

    const before = await snapshot(t);
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    await collectorCaughtUp(t, 'owned', 'first');
    // What the Service owned is there, untouched (2dc1ea1: the collector deleted it).
    expect(stamp(await tenantApi.get(CONFIGMAP, t.vns.a, 'owned'))).toBe(stamp(owned));

    expect(actions(first, 'owner')).toEqual(['Create', 'Skip']);
    const copy = (name: string) =>
      hostApi.get(SERVICE, t.hostNamespace, hostName(name, t.vns.a, t.name));
    const skip = first.result.decisions.find((d) => d.action === 'Skip');
    expect(skip?.reason).toBe(
      `not realigned to its host copy's cluster IP ${ipOf(await copy('owner'))}: tenant objects name it as their owner (ConfigMap/owned), and deleting it to recreate it would take them from it; it keeps its address until none does`,
    );
    expect(actions(first, 'plain')).toEqual(['Create', 'Update']);
    // Its EndpointSlice (the tenant controller's) is no dependent; the collector answered in time.
    const realigned = first.result.decisions.find((d) => d.action === 'Update');
    expect(realigned?.reason).not.toContain('let go at once');
    expect(ipOf(await tenantApi.get(SERVICE, t.vns.a, 'plain'))).toBe(ipOf(await copy('plain')));
    // Its one slice, the controller's placeholder (no endpoints yet), was orphaned, not deleted:
    // the controller keeps it for the recreated Service (it compares a placeholder by its labels).
    const slices = await listAll(tenantApi, ENDPOINT_SLICE, t.vns.a);
    const ofPlain = slices.filter(
      (s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'plain',
    );
    expect(ofPlain.map((s) => s.metadata.ownerReferences ?? [])).toEqual([[]]);

    // Both sides: the two copies made, `plain` recreated, nothing else (`owner` and `owned` kept).
    const after = await snapshot(t);
    const hostCopy = (name: string) =>
      `host Service/${t.hostNamespace}/${hostName(name, t.vns.a, t.name)}`;
    expect(diffSnapshots(before, after)).toEqual({
      created: [hostCopy('owner'), hostCopy('plain')].sort(),
      changed: [`tenant Service/${t.vns.a}/plain`],
      deleted: [],
    });

    // The tenant lets the ConfigMap go: the next full pass realigns `owner`, and loses nothing.
    const current = (await tenantApi.get(CONFIGMAP, t.vns.a, 'owned')) as KubeObject;
    const { ownerReferences: _refs, ...meta } = current.metadata;
    const freed = await tenantApi.update({ ...current, metadata: meta });
    const full = await pass(t, { full: true });
    expect(full.result.errors).toEqual([]);
    expect(actions(full, 'owner')).toEqual(['Update']);
    await collectorCaughtUp(t, 'owned', 'second');
    expect(stamp(await tenantApi.get(CONFIGMAP, t.vns.a, 'owned'))).toBe(stamp(freed));
    expect(ipOf(await tenantApi.get(SERVICE, t.vns.a, 'owner'))).toBe(ipOf(await copy('owner')));
  });
});
