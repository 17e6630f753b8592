/**
 * Services on the real clusters, with another tenant sharing the host namespace: a Service
 * selects exactly its own virtual namespace's Pods (proved by the host's EndpointSlices, the
 * local host running kwok nodes and a controller manager, and by the selector against the
 * labels of every host Pod); the other tenant's objects are untouched; a headless Service stays
 * headless; a selector on a reserved key (Helm's `app.kubernetes.io/managed-by`) finds the Pods
 * that carry it, of its own tenant only; then passes write nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { KubernetesKeys, Labels } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { selects } from '../../fixtures/label-selectors.js';
import {
  createTenant,
  decisionLines,
  listAll,
  pass,
  RUN,
  SERVICE,
  type Snapshot,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();

const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

/** The tenant label key Helm sets on what it installs, and its key on the host (carried). */
const HELM_KEY = 'app.kubernetes.io/managed-by';
const CARRIED_HELM_KEY = 'app.kubernetes.io.carried.tenantplane.io/managed-by';

function pod(
  t: Tenant,
  namespace: string,
  name: string,
  labels: Record<string, string> = { app: 'web' },
): KubeObject {
  return tenantObject(
    t,
    POD,
    namespace,
    name,
    {
      spec: {
        // The tenant token a Pod otherwise gets is workloads-token.test.ts's subject.
        automountServiceAccountToken: false,
        containers: [{ name: 'web', image: 'registry.example/web:1' }],
      },
    },
    { labels },
  );
}

function service(t: Tenant, namespace: string, name: string, spec: Record<string, unknown>) {
  return tenantObject(t, SERVICE, namespace, name, {
    spec: {
      selector: { app: 'web' },
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
      ...spec,
    },
  });
}

/**
 * The Pods the host's EndpointSlices of Service `serviceName` list, once they list any. The local
 * host always runs kwok nodes and a controller manager: without a node this fails at once, saying
 * so, rather than proving nothing.
 */
async function endpointTargets(t: Tenant, serviceName: string): Promise<(string | undefined)[]> {
  const nodes = await listAll(t.hostApi, NODE, undefined);
  if (nodes.length === 0) {
    throw new Error(
      'the host has no Nodes: the local host runs kwok nodes (npm run cluster:up), so the EndpointSlices cannot be checked',
    );
  }
  return waitFor(
    `the EndpointSlice of ${serviceName} to list its Pod`,
    async () => {
      const slices = await listAll(t.hostApi, SLICE, t.hostNamespace);
      const names = slices
        .filter((s) => s.metadata.labels?.[KubernetesKeys.ServiceName] === serviceName)
        .flatMap((s) => (s.endpoints as Array<{ targetRef?: { name: string } }> | undefined) ?? [])
        .map((e) => e.targetRef?.name);
      return names.length > 0 ? names : undefined;
    },
    60_000,
  );
}

/** `Kind/name` -> `uid@resourceVersion` of tenant `t`'s Pods and Services in the host namespace. */
async function snapshotOf(t: Tenant): Promise<Snapshot> {
  const snapshot: Snapshot = new Map();
  for (const kind of [POD, SERVICE]) {
    for (const o of await listAll(t.hostApi, kind, t.hostNamespace)) {
      if (o.metadata.labels?.[Labels.Tenant] !== t.name) continue;
      snapshot.set(
        `${kind.kind}/${o.metadata.name}`,
        `${o.metadata.uid}@${o.metadata.resourceVersion}`,
      );
    }
  }
  return snapshot;
}

/** The snapshot once it holds still for two seconds (the host's kwok moves new Pods to Running). */
async function settled(t: Tenant): Promise<Snapshot> {
  return waitFor(
    `${t.name}'s host objects to settle`,
    async () => {
      const before = await snapshotOf(t);
      await new Promise((r) => setTimeout(r, 2_000));
      const after = await snapshotOf(t);
      return [...before].join() === [...after].join() ? after : undefined;
    },
    60_000,
  );
}

describe('Services on the host', () => {
  it('select exactly their own virtual namespace’s Pods; headless stays headless; then no writes', async () => {
    const mine = await createTenant(apis(), 'svcsel', { toHost: [POD, SERVICE] });
    const other = await createTenant(apis(), 'svcoth', {
      toHost: [POD, SERVICE],
      hostNamespace: mine.hostNamespace,
    });
    // The same labels everywhere: only the scope tells these Pods apart on the host.
    await mine.tenantApi.create(pod(mine, mine.vns.a, 'web'));
    await mine.tenantApi.create(pod(mine, mine.vns.b, 'web'));
    await other.tenantApi.create(pod(other, other.vns.a, 'web'));
    await other.tenantApi.create(service(other, other.vns.a, 'web', {}));
    const otherFirst = await pass(other);
    expect(otherFirst.result.errors).toEqual([]);
    const otherBefore = await settled(other);
    expect([...otherBefore.keys()].sort()).toEqual([
      `Pod/${hostName('web', other.vns.a, other.name)}`,
      `Service/${hostName('web', other.vns.a, other.name)}`,
    ]);

    await mine.tenantApi.create(service(mine, mine.vns.a, 'web', {}));
    await mine.tenantApi.create(service(mine, mine.vns.a, 'db', { clusterIP: 'None' }));
    const first = await pass(mine);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual(
      [
        `Create Pod ${mine.vns.a}/web -> ${hostName('web', mine.vns.a, mine.name)}`,
        `Create Pod ${mine.vns.b}/web -> ${hostName('web', mine.vns.b, mine.name)}`,
        `Create Service ${mine.vns.a}/db -> ${hostName('db', mine.vns.a, mine.name)}`,
        `Create Service ${mine.vns.a}/web -> ${hostName('web', mine.vns.a, mine.name)}`,
      ].sort(),
    );

    const webName = hostName('web', mine.vns.a, mine.name);
    const selected = webName; // the Pod and the Service share name and namespace
    const web = await mine.hostApi.get(SERVICE, mine.hostNamespace, webName);
    const selector =
      (web?.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {};
    expect(selector).toEqual({
      app: 'web',
      [Labels.Tenant]: mine.name,
      [Labels.VirtualNamespace]: mine.vns.a,
    });
    const hostPods = await listAll(mine.hostApi, POD, mine.hostNamespace);
    expect(hostPods.length).toBeGreaterThanOrEqual(3);
    expect(
      hostPods.filter((p) => selects(selector, p.metadata.labels)).map((p) => p.metadata.name),
    ).toEqual([selected]);

    const db = await mine.hostApi.get(
      SERVICE,
      mine.hostNamespace,
      hostName('db', mine.vns.a, mine.name),
    );
    expect(db?.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });

    // The scheduling host (kwok nodes, a controller manager): the host's own controller agrees.
    expect(await endpointTargets(mine, webName)).toEqual([selected]);

    // The other tenant, sharing the host namespace, was not touched.
    expect(await snapshotOf(other)).toEqual(otherBefore);

    for (const round of [1, 2]) {
      const again = await pass(mine);
      // A tenant Node appears in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts): not a write of the Services or Pods.
      expect({
        round,
        decisions: again.result.decisions.filter((d) => d.kind !== 'Node'),
        writes: again.result.requests.host.writes,
      }).toEqual({
        round,
        decisions: [],
        writes: 0,
      });
    }
    expect(await snapshotOf(other)).toEqual(otherBefore);
  });

  it('select a Helm-labelled Pod by its reserved key: exactly their own, not another tenant’s', async () => {
    // One tenant namespace both tenants sync: only the tenant label tells their Pods apart.
    const shared = `helm-${RUN}`;
    const mine = await createTenant(apis(), 'svchelm', {
      toHost: [POD, SERVICE],
      extraNamespaces: [shared],
    });
    const other = await createTenant(apis(), 'svchel2', {
      toHost: [POD, SERVICE],
      hostNamespace: mine.hostNamespace,
      extraNamespaces: [shared],
    });
    const helm = { app: 'web', [HELM_KEY]: 'Helm' };
    await mine.tenantApi.create(pod(mine, shared, 'web', helm));
    await mine.tenantApi.create(pod(mine, shared, 'plain'));
    await other.tenantApi.create(pod(other, shared, 'web-2', helm));
    // Both TenantClusters sync the one tenant cluster: the other's objects need names of their own.
    await other.tenantApi.create(
      service(other, shared, 'web-2', { selector: { [HELM_KEY]: 'Helm' } }),
    );
    expect((await pass(other)).result.errors).toEqual([]);
    // Prove the negative: the other tenant's copies in the shared host namespace, same virtual
    // namespace and same names, keep their uid and resourceVersion through this tenant's passes.
    const otherBefore = await settled(other);
    expect([...otherBefore.keys()].sort()).toEqual([
      `Pod/${hostName('web-2', shared, other.name)}`,
      `Service/${hostName('web-2', shared, other.name)}`,
    ]);
    await mine.tenantApi.create(service(mine, shared, 'web', { selector: { [HELM_KEY]: 'Helm' } }));
    const first = await pass(mine);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual(
      [
        `Create Pod ${shared}/plain -> ${hostName('plain', shared, mine.name)}`,
        `Create Pod ${shared}/web -> ${hostName('web', shared, mine.name)}`,
        `Create Service ${shared}/web -> ${hostName('web', shared, mine.name)}`,
      ].sort(),
    );

    const webName = hostName('web', shared, mine.name);
    const web = await mine.hostApi.get(SERVICE, mine.hostNamespace, webName);
    const selector =
      (web?.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {};
    expect(selector).toEqual({
      [CARRIED_HELM_KEY]: 'Helm',
      [Labels.Tenant]: mine.name,
      [Labels.VirtualNamespace]: shared,
    });
    const hostPods = await listAll(mine.hostApi, POD, mine.hostNamespace);
    const otherPod = hostPods.find(
      (p) => p.metadata.name === hostName('web-2', shared, other.name),
    );
    // The other tenant's Pod carries the very same label, under the very same key.
    expect(otherPod?.metadata.labels).toMatchObject({ [CARRIED_HELM_KEY]: 'Helm' });
    expect(
      hostPods.filter((p) => selects(selector, p.metadata.labels)).map((p) => p.metadata.name),
    ).toEqual([webName]);

    // The scheduling host (kwok nodes, a controller manager): the host's own controller agrees.
    expect(await endpointTargets(mine, webName)).toEqual([webName]);

    // The other tenant's Service selects its own Pod alone, under the same key and value.
    expect(await endpointTargets(other, hostName('web-2', shared, other.name))).toEqual([
      hostName('web-2', shared, other.name),
    ]);
    expect(await snapshotOf(other)).toEqual(otherBefore);

    await settled(mine);
    for (const round of [1, 2]) {
      const again = await pass(mine);
      // A tenant Node appears in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts): not a write of the Services or Pods.
      expect({
        round,
        decisions: again.result.decisions.filter((d) => d.kind !== 'Node'),
        writes: again.result.requests.host.writes,
      }).toEqual({ round, decisions: [], writes: 0 });
    }
    expect(await snapshotOf(other)).toEqual(otherBefore);
  });
});
