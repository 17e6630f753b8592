/**
 * Issue 30, aligned cluster IPs, on the real clusters (tenant and host apiservers on one service
 * range, 10.96.0.0/16). A Service whose address is free on the host: its copy has it and the
 * tenant is not written. One whose address the host holds (another host namespace's Service
 * asked for it first): its copy gets another, the tenant Service is recreated once with it, and
 * uid/resourceVersion snapshots of both sides show nothing else changed; then the copy records its
 * new source once and passes write nothing. A tenant address in the host's static band
 * (KEP-3070) is never asked for: realigned the same way. Headless Services and the tenant's own
 * `default/kubernetes` are untouched. (A tenant range that is not the host's cannot be made with
 * one tenant apiserver on the host's range: `test/unit/engine/kinds/service/realign.test.ts`.)
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
  pass,
  RUN,
  SERVICE,
  type Snapshot,
  type Tenant,
  tenantConfigMap,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const OTHER_NS = `names-other-${RUN}`;

const ipOf = (o: KubeObject | undefined) =>
  (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;

function service(t: Tenant, name: string, spec: Record<string, unknown> = {}): KubeObject {
  return tenantObject(
    t,
    SERVICE,
    t.vns.a,
    name,
    {
      spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec },
    },
    { annotations: { team: 'names' }, labels: { app: name } },
  );
}

/** `side Kind/name` -> `uid@resourceVersion` of the Services and ConfigMaps on both sides. */
async function snapshot(t: Tenant): Promise<Snapshot> {
  const all: Snapshot = new Map();
  const sides = [
    ['tenant', t.tenantApi, t.vns.a],
    ['tenant', t.tenantApi, 'default'],
    ['host', t.hostApi, t.hostNamespace],
  ] as const;
  for (const [side, api, ns] of sides)
    for (const kind of [SERVICE, CONFIGMAP])
      for (const o of await listAll(api, kind, ns))
        all.set(
          `${side} ${kind.kind}/${ns}/${o.metadata.name}`,
          `${o.metadata.uid}@${o.metadata.resourceVersion}`,
        );
  return all;
}

describe('aligned cluster IPs on the real clusters', () => {
  let t: Tenant;
  let holderUid: string | undefined;

  afterAll(async () => {
    if (holderUid) await apis().hostApi.delete(SERVICE, OTHER_NS, 'holder', { uid: holderUid });
  });

  it('free, taken and static-band addresses: the tenant has its copy’s address; only a taken or static one is realigned, once', async () => {
    t = await createTenant(apis(), 'names', { toHost: [SERVICE, CONFIGMAP] });
    const { tenantApi, hostApi } = t;
    const free = await tenantApi.create(service(t, 'free'));
    const taken = await tenantApi.create(service(t, 'taken'));
    const band = await tenantApi.create(service(t, 'band', { clusterIP: '10.96.0.77' }));
    await tenantApi.create(service(t, 'db', { clusterIP: 'None' }));
    await tenantApi.create(tenantConfigMap(t, t.vns.a, 'bystander'));
    // The host holds the address `taken` has in the tenant: a Service of another namespace.
    await ensureNamespace(hostApi, OTHER_NS);
    const holder = await hostApi.create({
      ...SERVICE,
      metadata: { name: 'holder', namespace: OTHER_NS },
      spec: { ports: [{ port: 80 }], clusterIP: ipOf(taken), clusterIPs: [ipOf(taken)] },
    });
    holderUid = holder.metadata.uid;
    const kubernetes = await tenantApi.get(SERVICE, 'default', 'kubernetes');

    const before = await snapshot(t);
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    const mine = (name: string) =>
      first.result.decisions.filter((d) => d.tenantRef.name === name).map((d) => d.action);
    expect(mine('free')).toEqual(['Create']);
    expect(mine('taken')).toEqual(['Create', 'Update']);
    expect(mine('band')).toEqual(['Create', 'Update']);
    expect(mine('db')).toEqual(['Create']);
    const realigned = first.result.decisions.find(
      (d) => d.tenantRef.name === 'band' && d.action === 'Update',
    );
    expect(realigned?.reason).toContain('keeps for static assignment');

    const copy = (name: string) =>
      hostApi.get(SERVICE, t.hostNamespace, hostName(name, t.vns.a, t.name));
    const tenantNow = (name: string) => tenantApi.get(SERVICE, t.vns.a, name);
    // Free: the copy has the tenant's address.
    expect(ipOf(await copy('free'))).toBe(ipOf(free));
    // Taken and static band: the copy has another, and the tenant Service now has it too.
    for (const [name, had] of [
      ['taken', ipOf(taken)],
      ['band', ipOf(band)],
    ] as const) {
      const hostIp = ipOf(await copy(name));
      expect(hostIp).not.toBe(had);
      expect(ipOf(await tenantNow(name))).toBe(hostIp);
      const now = (await tenantNow(name)) as KubeObject;
      expect(now.metadata.annotations).toMatchObject({ team: 'names' });
      expect(now.metadata.labels).toMatchObject({ app: name });
      expect(now.spec).toMatchObject({ selector: { app: name }, ports: [{ port: 80 }] });
    }
    // Static band: the host's dynamic band (past 10.96.1.0) gave it.
    expect(ipOf(await copy('band'))).not.toMatch(/^10\.96\.0\.|^10\.96\.1\.0$/);
    expect(ipOf(await copy('db'))).toBe('None');

    // Both sides: the copies made, the two tenant Services recreated, nothing else.
    const after = await snapshot(t);
    const diff = diffSnapshots(before, after);
    const hostCopy = (name: string) =>
      `host Service/${t.hostNamespace}/${hostName(name, t.vns.a, t.name)}`;
    expect(diff.changed).toEqual([
      `tenant Service/${t.vns.a}/band`,
      `tenant Service/${t.vns.a}/taken`,
    ]);
    expect(diff.deleted).toEqual([]);
    expect(diff.created).toEqual(
      [
        ...['band', 'db', 'free', 'taken'].map(hostCopy),
        `host ConfigMap/${t.hostNamespace}/${hostName('bystander', t.vns.a, t.name)}`,
      ].sort(),
    );
    expect(after.get(`tenant Service/default/kubernetes`)).toBe(
      `${kubernetes?.metadata.uid}@${kubernetes?.metadata.resourceVersion}`,
    );

    // The next pass: the two copies record their new sources (their uid), nothing else.
    const second = await pass(t);
    expect(second.result.errors).toEqual([]);
    expect(second.result.decisions.map((d) => `${d.action} ${d.tenantRef.name}`).sort()).toEqual([
      'Update band',
      'Update taken',
    ]);
    expect(second.result.requests.tenant.writes).toBe(0);
    const recorded = diffSnapshots(after, await snapshot(t));
    expect(recorded).toEqual({
      created: [],
      deleted: [],
      changed: [hostCopy('band'), hostCopy('taken')].sort(),
    });
    // Then steady, resumed and full.
    for (const full of [false, true]) {
      const steady = await pass(t, { full });
      expect(steady.result.errors).toEqual([]);
      expect(steady.result.decisions).toEqual([]);
      expect(steady.result.requests.tenant.writes + steady.result.requests.host.writes).toBe(0);
    }
  });
});
