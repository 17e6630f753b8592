/**
 * Gateways from the host on the real clusters (issue 40, point 2): the host Gateways
 * `spec.workloads.gateways.parents` allows appear in the tenant, in the namespace and name the
 * tenant's `parentRefs` give them, read-only, with the host Gateway's status; a Gateway the policy
 * does not list never does; a Gateway allowed for one listener shows only it; a tenant edit is
 * undone and a deleted copy comes back; a tenant-made Gateway of an allowed name is left exactly
 * as it was; a copy goes once the policy stops listing its Gateway or the host Gateway is gone.
 * The import only reads the host: uid@resourceVersion snapshots of the Gateways' host namespace
 * and of the tenant's host namespace show nothing changed.
 */
import { describe, expect, it } from '@jest/globals';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  ensureNamespace,
  pass,
  RUN,
  SERVICE,
  type Tenant,
  tenantClusterObject,
  useApis,
} from './support.js';

const apis = useApis();
const GROUP = 'gateway.networking.k8s.io';
const HTTP_ROUTE: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'HTTPRoute' };
const GATEWAY: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'Gateway' };
const NS = `gwi-${RUN}`;
const listener = (name: string, port: number) => ({
  name,
  protocol: 'HTTP',
  port,
  allowedRoutes: { namespaces: { from: 'All' } },
});
const condition = (type: string, observedGeneration: number, status = 'True') => ({
  type,
  status,
  reason: type,
  message: 'from the host',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration,
});

/** `Action name` of the Gateway Decisions, sorted. */
const gatewayLines = (result: PassResult) =>
  result.decisions
    .filter((d) => d.kind === 'Gateway')
    .map((d) => `${d.action} ${d.tenantRef.namespace}/${d.tenantRef.name}`)
    .sort();

/** The tenant's Gateways of the namespace, `name` -> `uid@resourceVersion`. */
async function tenantGateways(t: Tenant): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  for (const g of (await t.tenantApi.list(GATEWAY, { namespace: NS })).items)
    seen[g.metadata.name] = `${g.metadata.uid}@${g.metadata.resourceVersion}`;
  return seen;
}

async function setParents(t: Tenant, parents: unknown[]): Promise<void> {
  const tc = await tenantClusterObject(t);
  const spec = tc.spec as Record<string, unknown>;
  await t.hostApi.update({ ...tc, spec: { ...spec, workloads: { gateways: { parents } } } });
}

describe('Gateways from the host', () => {
  it('shows the allowed host Gateways read-only with their status, never another; undoes edits; removes them with the policy or the host', async () => {
    const a = apis();
    await ensureNamespace(a.hostApi, NS);
    const hostGateway = (name: string, listeners: unknown[]) =>
      a.hostApi.create({
        ...GATEWAY,
        metadata: { namespace: NS, name, labels: { team: 'edge' } },
        spec: { gatewayClassName: 'example', listeners },
      });
    const shared = await hostGateway('shared', [listener('http', 80)]);
    await hostGateway('edge', [listener('http', 80), listener('https', 8443)]);
    await hostGateway('internal', [listener('http', 80)]);
    await hostGateway('own', [listener('http', 80)]);
    // The host's gateway controller (the test plays it) programs `shared`.
    const hostStatus = {
      addresses: [{ type: 'IPAddress', value: '192.0.2.10' }],
      conditions: [condition('Accepted', 1), condition('Programmed', 1)],
      listeners: [
        {
          name: 'http',
          attachedRoutes: 2,
          supportedKinds: [{ group: GROUP, kind: 'HTTPRoute' }],
          conditions: [condition('Programmed', 1)],
        },
      ],
    };
    await a.hostApi.patchStatus(GATEWAY, NS, 'shared', hostStatus);
    const parents = [
      { namespace: NS, name: 'shared' },
      { namespace: NS, name: 'edge', sectionName: 'https' },
      { namespace: NS, name: 'own' },
      { namespace: NS, name: 'missing' },
    ];
    const t = await createTenant(a, 'gwi', {
      toHost: [SERVICE, HTTP_ROUTE],
      workloads: { gateways: { parents } },
    });
    const hostBefore = await snapshot(NS);
    const tenantNsBefore = await snapshot(t.hostNamespace);

    // The tenant has no namespace of the Gateways yet: nothing is shown, the engine makes none.
    const none = await pass(t);
    expect(none.result.errors).toEqual([]);
    expect(gatewayLines(none.result)).toEqual([
      `Skip ${NS}/edge`,
      `Skip ${NS}/missing`,
      `Skip ${NS}/own`,
      `Skip ${NS}/shared`,
    ]);
    expect(await a.tenantApi.get({ apiVersion: 'v1', kind: 'Namespace' }, undefined, NS)).toBe(
      undefined,
    );

    // The tenant makes the namespace, and a Gateway of its own of an allowed name.
    await ensureNamespace(a.tenantApi, NS);
    const own = await a.tenantApi.create({
      ...GATEWAY,
      metadata: { namespace: NS, name: 'own' },
      spec: { gatewayClassName: 'mine', listeners: [listener('web', 81)] },
    });
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(gatewayLines(first.result)).toEqual([
      `Create ${NS}/edge`,
      `Create ${NS}/shared`,
      `Skip ${NS}/missing`,
      `Skip ${NS}/own`,
      `Update ${NS}/shared`, // its status
    ]);
    const copy = (await a.tenantApi.get(GATEWAY, NS, 'shared')) as KubeObject;
    expect(copy.spec).toEqual(shared.spec);
    expect(copy.metadata.labels).toMatchObject({ team: 'edge', 'tenantplane.io/tenant': t.name });
    expect(copy.status).toEqual(hostStatus); // both at generation 1
    const edge = (await a.tenantApi.get(GATEWAY, NS, 'edge')) as KubeObject;
    expect((edge.spec as { listeners: unknown[] }).listeners).toEqual([listener('https', 8443)]);
    // Never a Gateway the policy does not list; the tenant's own left exactly as it was.
    expect(await a.tenantApi.get(GATEWAY, NS, 'internal')).toBe(undefined);
    const ownAfter = (await a.tenantApi.get(GATEWAY, NS, 'own')) as KubeObject;
    expect(ownAfter.metadata.resourceVersion).toBe(own.metadata.resourceVersion);

    // Steady: nothing written in the tenant.
    const settled = await tenantGateways(t);
    const steady = await pass(t, { full: true });
    expect(steady.result.errors).toEqual([]);
    expect(gatewayLines(steady.result)).toEqual([`Skip ${NS}/missing`, `Skip ${NS}/own`]);
    expect(await tenantGateways(t)).toEqual(settled);

    // A tenant edit is undone; a deleted copy comes back.
    const edited = { ...copy, spec: { gatewayClassName: 'other', listeners: [listener('x', 9)] } };
    await a.tenantApi.update(edited);
    await a.tenantApi.delete(GATEWAY, NS, 'edge', { uid: edge.metadata.uid as string });
    const undo = await pass(t);
    expect(undo.result.errors).toEqual([]);
    expect(gatewayLines(undo.result)).toEqual([
      `Create ${NS}/edge`,
      `Skip ${NS}/missing`,
      `Skip ${NS}/own`,
      `Update ${NS}/shared`,
      `Update ${NS}/shared`, // the status, its conditions at the copy's new generation
    ]);
    const undone = (await a.tenantApi.get(GATEWAY, NS, 'shared')) as KubeObject;
    expect(undone.spec).toEqual(shared.spec);
    const generation = undone.metadata.generation as number;
    expect(generation).toBeGreaterThan(1);
    expect((undone.status as typeof hostStatus).conditions).toEqual([
      condition('Accepted', generation),
      condition('Programmed', generation),
    ]);

    // A host status change reaches the copy.
    const moved = { ...hostStatus, addresses: [{ type: 'IPAddress', value: '192.0.2.20' }] };
    await a.hostApi.patchStatus(GATEWAY, NS, 'shared', moved);
    expect((await pass(t)).result.errors).toEqual([]);
    const followed = (await a.tenantApi.get(GATEWAY, NS, 'shared')) as KubeObject;
    expect((followed.status as typeof hostStatus).addresses).toEqual(moved.addresses);

    // The import only read the host (the test's own status writes aside).
    const hostAfter = await snapshot(NS);
    expect(diffSnapshots(hostBefore, hostAfter)).toEqual({
      created: [],
      changed: ['Gateway/shared'],
      deleted: [],
    });
    expect(diffSnapshots(tenantNsBefore, await snapshot(t.hostNamespace))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    // Removed from the policy: its copy goes. The host Gateway gone: its copy goes too.
    await setParents(t, parents.slice(1));
    const removed = await pass(t);
    expect(removed.result.errors).toEqual([]);
    expect(gatewayLines(removed.result)).toContain(`Delete ${NS}/shared`);
    expect(await a.tenantApi.get(GATEWAY, NS, 'shared')).toBe(undefined);
    const hostEdge = (await a.hostApi.get(GATEWAY, NS, 'edge')) as KubeObject;
    await a.hostApi.delete(GATEWAY, NS, 'edge', { uid: hostEdge.metadata.uid as string });
    const lost = await pass(t);
    expect(lost.result.errors).toEqual([]);
    expect(lost.result.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Delete',
        kind: 'Gateway',
        reason: `host Gateway ${NS}/edge is gone: its tenant copy goes too`,
      }),
    );
    expect(await a.tenantApi.get(GATEWAY, NS, 'edge')).toBe(undefined);

    // No Gateway listed any more: nothing more to do, the kind forgotten; the tenant's own stays.
    await setParents(t, []);
    const last = await pass(t);
    expect(last.result.errors).toEqual([]);
    expect(gatewayLines(last.result)).toEqual([]);
    const status = (await tenantClusterObject(t)).status as { fromHostKinds?: string[] };
    expect(status.fromHostKinds ?? []).not.toContain('Gateway');
    expect(Object.keys(await tenantGateways(t))).toEqual(['own']);
    expect(hostAfter.get('Gateway/internal')).toBeDefined();
  });
});
