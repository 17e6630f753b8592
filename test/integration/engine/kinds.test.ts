/**
 * Kinds beyond ConfigMaps on the real clusters: a CustomResource (a namespaced CRD installed on
 * both clusters) and a Service, whose host-allocated clusterIP survives updates. Each test has its
 * own tenant.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { Annotations } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  type Apis,
  CRD,
  createTenant,
  decisionLines,
  hostObjects,
  pass,
  RUN,
  SERVICE,
  tenantObject,
  useApis,
  versions,
  waitFor,
} from './support.js';

const apis = useApis();

const GROUP = `g${RUN}.engine.tenantplane.test`;
const GADGET: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'Gadget' };

function gadgetCrd(): KubeObject {
  return {
    ...CRD,
    metadata: { name: `gadgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer' },
                    color: { type: 'string' },
                    parts: { type: 'array', items: { type: 'string' } },
                  },
                },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/** Installs the CRD and waits until it is Established and its kind is served. */
async function installGadgets(api: Apis['hostApi']): Promise<void> {
  await api.create(gadgetCrd());
  await waitFor(`CRD gadgets.${GROUP} Established`, async () => {
    const crd = await api.get(CRD, undefined, `gadgets.${GROUP}`);
    const conditions = (crd?.status as { conditions?: { type: string; status: string }[] })
      ?.conditions;
    return conditions?.some((c) => c.type === 'Established' && c.status === 'True')
      ? true
      : undefined;
  });
  await waitFor(`kind ${GADGET.kind} served`, async () => {
    await api.list(GADGET, { limit: 1 });
    return true;
  });
}

describe('kinds', () => {
  it('a CustomResource kind syncs: create, update, steady, delete', async () => {
    await installGadgets(apis().tenantApi);
    await installGadgets(apis().hostApi);
    const t = await createTenant(apis(), 'cr', { toHost: [GADGET] });
    const source = await t.tenantApi.create(
      tenantObject(t, GADGET, t.vns.a, 'g1', { spec: { size: 3, color: 'red', parts: ['a'] } }),
    );
    await t.tenantApi.create(tenantObject(t, GADGET, t.vns.b, 'g2', { spec: { size: 1 } }));
    const h1 = hostName('g1', t.vns.a, t.name);
    const h2 = hostName('g2', t.vns.b, t.name);

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual([
      `Create Gadget ${t.vns.a}/g1 -> ${h1}`,
      `Create Gadget ${t.vns.b}/g2 -> ${h2}`,
    ]);
    const created = await t.hostApi.get(GADGET, t.hostNamespace, h1);
    expect(created?.spec).toEqual({ size: 3, color: 'red', parts: ['a'] });
    expect(created?.metadata.annotations?.[Annotations.VirtualUid]).toBe(source.metadata.uid);

    await t.tenantApi.update({ ...source, spec: { size: 4, color: 'red', parts: ['a', 'b'] } });
    const edit = await pass(t);
    expect(decisionLines(edit.result)).toEqual([`Update Gadget ${t.vns.a}/g1 -> ${h1}`]);
    expect((await t.hostApi.get(GADGET, t.hostNamespace, h1))?.spec).toEqual({
      size: 4,
      color: 'red',
      parts: ['a', 'b'],
    });

    const before = versions(await hostObjects(t, GADGET));
    const steady = await pass(t);
    expect(steady.result.decisions).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
    expect(versions(await hostObjects(t, GADGET))).toEqual(before);

    const g2 = await t.tenantApi.get(GADGET, t.vns.b, 'g2');
    await t.tenantApi.delete(GADGET, t.vns.b, 'g2', { uid: g2?.metadata.uid as string });
    const gc = await pass(t);
    expect(decisionLines(gc.result)).toEqual([`Delete Gadget ${t.vns.b}/g2 -> ${h2}`]);
    expect(Object.keys(versions(await hostObjects(t, GADGET)))).toEqual([h1]);
  });

  it('a Service round trip keeps the host-allocated clusterIP on update', async () => {
    const t = await createTenant(apis(), 'svc', { toHost: [SERVICE] });
    await t.tenantApi.create(
      tenantObject(t, SERVICE, t.vns.a, 'web', {
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      }),
    );
    const name = hostName('web', t.vns.a, t.name);

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual([`Create Service ${t.vns.a}/web -> ${name}`]);
    const created = await t.hostApi.get(SERVICE, t.hostNamespace, name);
    const clusterIP = (created?.spec as { clusterIP?: string } | undefined)?.clusterIP;
    expect(clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // Server defaults on the host (sessionAffinity, ipFamilies, ...) are not drift.
    const steady = await pass(t);
    expect(steady.result.decisions).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);

    const web = await t.tenantApi.get(SERVICE, t.vns.a, 'web');
    await t.tenantApi.update({
      ...(web as KubeObject),
      spec: { ...(web?.spec as object), selector: { app: 'web2' } },
    });
    const edit = await pass(t);
    expect(edit.result.errors).toEqual([]);
    expect(decisionLines(edit.result)).toEqual([`Update Service ${t.vns.a}/web -> ${name}`]);
    const updated = await t.hostApi.get(SERVICE, t.hostNamespace, name);
    expect(updated?.spec).toMatchObject({ clusterIP, selector: { app: 'web2' } });
    expect(updated?.metadata.uid).toBe(created?.metadata.uid);

    const again = await pass(t);
    expect(again.result.decisions).toEqual([]);
  });
});
