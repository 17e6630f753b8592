/**
 * The workload kinds with the opt-in deploy/rbac workload manifests (host-workloads.yaml,
 * tenant-workloads.yaml) on top of the defaults: with certificate identities bound only by them, a
 * tenant of its own that syncs every row of `least-privilege/kinds.ts` next to ConfigMaps and
 * Secrets, and gets a copy of one host class of each kind (`spec.fromHost`), is converged with
 * zero errors on a full and then a resumed path: creates, updates in place, garbage collection,
 * Events and status back, a recreated Service, a Pod's end. The bounds and verbs these manifests
 * grant: `least-privilege-grants.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { GATEWAY, GATEWAY_NAMESPACE, hostClasses, WORKLOAD_ROWS } from './least-privilege/kinds.js';
import {
  ENDPOINT_SLICE,
  EVENT,
  eventually,
  expectClean,
  expectForbidden,
  INGRESS,
  NETWORK_POLICY,
  NODE,
  PDB,
  POD,
  pass,
  RUN,
  SECRET,
  SERVICE,
  TENANT_CLUSTER,
  workloadLines,
} from './least-privilege/support.js';
import { WorkloadTenant } from './least-privilege/workload-tenant.js';

const t = new WorkloadTenant('rbacw');
const { tenant: W_TENANT, hostNamespace: W_HOST_NS, vns: W_VNS, podName, admin, object } = t;
const OTHER_NS = t.otherNamespace;

beforeAll(() => t.setUp(true));
afterAll(() => t.tearDown());

describe('the workload kinds with the opt-in deploy/rbac workload manifests', () => {
  it('a pass creates the host Pod and Service with their references first, zero errors', async () => {
    const run = await pass(W_TENANT, t.apis);
    expect(run.result.path).toBe('full');
    // The slice the tenant's controller made for Service web stays there (the host makes its own).
    expect(run.result.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Skip',
        kind: 'EndpointSlice',
        reason: expect.stringMatching(/tenant's EndpointSlice controller/),
      }),
    );
    expect(workloadLines(run.result)).toEqual([
      'Create ConfigMap app',
      'Create EndpointSlice ext-1',
      // The host Gateway the route attaches to, read-only in the tenant (host-gateways.yaml).
      'Create Gateway shared',
      `Create GatewayClass ${W_TENANT}-gc`,
      'Create HTTPRoute web',
      'Create Ingress web',
      `Create IngressClass ${W_TENANT}-ic`,
      'Create NetworkPolicy web',
      'Create PersistentVolumeClaim data',
      'Create Pod web',
      'Create PodDisruptionBudget web',
      `Create PriorityClass ${W_TENANT}-pc`,
      `Create RuntimeClass ${W_TENANT}-rc`,
      // The Pod's tenant token (TokenRequest with `serviceaccounts/token` create on the tenant,
      // the Secret with host-cluster.yaml's secrets grant).
      'Create Secret token',
      'Create Secret web',
      'Create Service ext',
      'Create Service web',
      'Create ServiceAccount runner',
      `Create StorageClass ${W_TENANT}-sc`,
    ]);
    await expectClean(run, W_TENANT, admin);
    for (const hostClass of hostClasses(W_TENANT)) {
      const copy = await admin.tenant.get(hostClass, undefined, hostClass.metadata.name);
      expect({ kind: hostClass.kind, copied: copy !== undefined }).toEqual({
        kind: hostClass.kind,
        copied: true,
      });
    }
    const gateway = await admin.tenant.get(GATEWAY, GATEWAY_NAMESPACE, 'shared');
    expect(gateway?.metadata.labels?.['tenantplane.io/tenant']).toBe(W_TENANT);
    for (const { kind, copied: name } of WORKLOAD_ROWS) {
      if (name === undefined) continue;
      const copy = await admin.host.get(kind, W_HOST_NS, hostName(name, W_VNS, W_TENANT));
      expect({ kind: kind.kind, copied: copy !== undefined }).toEqual({
        kind: kind.kind,
        copied: true,
      });
    }
    // The budget's copy counts only this tenant's and virtual namespace's Pods.
    const budget = await admin.host.get(PDB, W_HOST_NS, hostName('web', W_VNS, W_TENANT));
    expect(budget?.spec).toEqual({
      minAvailable: 1,
      selector: {
        matchLabels: {
          app: 'web',
          'tenantplane.io/tenant': W_TENANT,
          'tenantplane.io/virtual-namespace': W_VNS,
        },
      },
    });
    const tokenSecret = await admin.host.get(SECRET, W_HOST_NS, `${podName}.token`);
    expect(tokenSecret?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Pod', name: podName }),
    ]);
    const hostPod = (await admin.host.get(POD, W_HOST_NS, podName)) as KubeObject;
    expect(hostPod).toBeDefined();
    const containers = (hostPod.spec as { containers: { envFrom: unknown[] }[] }).containers;
    expect(containers[0]?.envFrom).toEqual([
      { configMapRef: { name: hostName('app', W_VNS, W_TENANT) } },
    ]);
    expect(
      await admin.host.get(SERVICE, W_HOST_NS, hostName('web', W_VNS, W_TENANT)),
    ).toBeDefined();
    // The host namespace the manifest labelled: the second wall stands, and the pass says so.
    const status = (await admin.host.get(TENANT_CLUSTER, undefined, W_TENANT))?.status as
      | { conditions?: { type: string; status: string; reason: string }[] }
      | undefined;
    expect(status?.conditions?.find((c) => c.type === 'HostPodSecurity')).toMatchObject({
      status: 'True',
      reason: 'Enforced',
    });
  });

  it('an image and a resource change update the host Pod in place; a tenant delete removes the Service copy', async () => {
    const before = (await admin.host.get(POD, W_HOST_NS, podName)) as KubeObject;
    const source = (await admin.tenant.get(POD, W_VNS, 'web')) as KubeObject;
    const spec = source.spec as { containers: { image: string }[] };
    spec.containers[0] = { ...spec.containers[0], image: 'nginx:2' } as { image: string };
    const imaged = await admin.tenant.update(source);
    // And a resource change, which reaches the host Pod by its resize subresource (pods/resize).
    const resized = { requests: { cpu: '200m' } };
    const imagedSpec = imaged.spec as { containers: Record<string, unknown>[] };
    imagedSpec.containers[0] = { ...imagedSpec.containers[0], resources: resized };
    await admin.tenant.resize?.(imaged);
    const service = (await admin.tenant.get(SERVICE, W_VNS, 'web')) as KubeObject;
    await admin.tenant.delete(SERVICE, W_VNS, 'web', { uid: service.metadata.uid as string });
    // Running before this pass, so the next one resumes (a starting Pod makes it full).
    await eventually('the host Pod runs', async () => {
      const host = await admin.host.get(POD, W_HOST_NS, podName);
      const status = host?.status as { phase?: string } | undefined;
      if (status?.phase !== 'Running') throw new Error('not yet');
    });

    const run = await pass(W_TENANT, t.apis);
    expect(workloadLines(run.result)).toEqual(['Delete Service web', 'Update Pod web']);
    await expectClean(run, W_TENANT, admin);
    const after = (await admin.host.get(POD, W_HOST_NS, podName)) as KubeObject;
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect((after.spec as { containers: { image: string }[] }).containers[0]).toMatchObject({
      image: 'nginx:2',
      resources: { requests: { cpu: '200m' } },
    });
    expect(
      await admin.host.get(SERVICE, W_HOST_NS, hostName('web', W_VNS, W_TENANT)),
    ).toBeUndefined();
  });

  it('the pass that saw the host Pod run bound the tenant Pod to a tenant Node of its host node (pods/binding, nodes, nodes/status; host nodes get)', async () => {
    const hostPod = (await admin.host.get(POD, W_HOST_NS, podName)) as KubeObject;
    const nodeName = (hostPod.spec as { nodeName?: string }).nodeName as string;
    expect(nodeName).toBeTruthy();
    const tenantPod = (await admin.tenant.get(POD, W_VNS, 'web')) as KubeObject;
    expect((tenantPod.spec as { nodeName?: string }).nodeName).toBe(nodeName);
    const node = (await admin.tenant.get(NODE, undefined, nodeName)) as KubeObject;
    expect(node.metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'tenantplane' });
    const conditions = (node.status as { conditions?: { type: string; status: string }[] })
      .conditions;
    expect(conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
  });

  it('a resumed pass updates the other workload kinds; the next one writes nothing', async () => {
    // A pass first, so every kind has its resume point: the tenant's controller manager may
    // still have been removing the deleted Service's EndpointSlice when the last pass ran.
    const settle = await pass(W_TENANT, t.apis);
    expect({ errors: settle.result.errors, incomplete: settle.result.incompleteReason }).toEqual({
      errors: [],
      incomplete: undefined,
    });
    // Read by a resumed watch (`watch` on the tenant), written with `update` on the host.
    const slice = (await admin.tenant.get(ENDPOINT_SLICE, W_VNS, 'ext-1')) as KubeObject;
    await admin.tenant.update({ ...slice, endpoints: [{ addresses: ['10.0.0.2'] }] });
    const policy = (await admin.tenant.get(NETWORK_POLICY, W_VNS, 'web')) as KubeObject;
    // A peer naming a namespace: the tenant's namespaces are listed to place it (`list namespaces`).
    const fromOwn = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': W_VNS } },
    };
    await admin.tenant.update({
      ...policy,
      spec: { podSelector: {}, ingress: [{ from: [fromOwn] }] },
    });
    const budget = (await admin.tenant.get(PDB, W_VNS, 'web')) as KubeObject;
    await admin.tenant.update({ ...budget, spec: { ...(budget.spec as object), minAvailable: 0 } });
    const run = await pass(W_TENANT, t.apis);
    expect({ path: run.result.path, why: run.result.pathReason }).toEqual({
      path: 'resumed',
      why: undefined,
    });
    expect(workloadLines(run.result)).toEqual([
      'Update EndpointSlice ext-1',
      'Update NetworkPolicy web',
      'Update PodDisruptionBudget web',
    ]);
    await expectClean(run, W_TENANT, admin);
    const budgetCopy = await admin.host.get(PDB, W_HOST_NS, hostName('web', W_VNS, W_TENANT));
    expect(budgetCopy?.spec).toMatchObject({ minAvailable: 0 });
    const policyCopy = await admin.host.get(
      NETWORK_POLICY,
      W_HOST_NS,
      hostName('web', W_VNS, W_TENANT),
    );
    expect(JSON.stringify(policyCopy?.spec)).toContain(`"values":["${W_VNS}"]`);

    const steady = await pass(W_TENANT, t.apis);
    expect(steady.result.path).toBe('resumed');
    expect(steady.result.errors).toEqual([]);
    expect(workloadLines(steady.result)).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  it('a tenant delete garbage-collects the PodDisruptionBudget copy (policy poddisruptionbudgets delete)', async () => {
    const budget = (await admin.tenant.get(PDB, W_VNS, 'web')) as KubeObject;
    await admin.tenant.delete(PDB, W_VNS, 'web', { uid: budget.metadata.uid as string });
    const run = await pass(W_TENANT, t.apis);
    expect(run.result.path).toBe('resumed');
    expect(workloadLines(run.result)).toEqual(['Delete PodDisruptionBudget web']);
    await expectClean(run, W_TENANT, admin);
    expect(await admin.host.get(PDB, W_HOST_NS, hostName('web', W_VNS, W_TENANT))).toBeUndefined();
  });

  it('host Events about the copies come back to the tenant objects (tenant events list, create, update; host events list)', async () => {
    const hostPod = (await admin.host.get(POD, W_HOST_NS, podName)) as KubeObject;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const hostEvent = await admin.host.create({
      ...EVENT,
      metadata: { namespace: W_HOST_NS, name: `${podName}.rbac` },
      involvedObject: { ...POD, namespace: W_HOST_NS, name: podName, uid: hostPod.metadata.uid },
      type: 'Warning',
      reason: 'RbacProbe',
      message: `pod ${W_HOST_NS}/${podName} probed`,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: 'kubelet' },
    });
    const copyOf = async () =>
      (await admin.tenant.list(EVENT, { namespace: W_VNS })).items.find(
        (e) => e.metadata.annotations?.['tenantplane.io/host-event-uid'] === hostEvent.metadata.uid,
      );
    const created = await pass(W_TENANT, t.apis);
    await expectClean(created, W_TENANT, admin);
    expect(await copyOf()).toMatchObject({
      involvedObject: { kind: 'Pod', namespace: W_VNS, name: 'web' },
      message: `pod ${W_VNS}/web probed`,
      count: 1,
    });
    await admin.host.update({ ...hostEvent, count: 2 });
    const bumped = await pass(W_TENANT, t.apis);
    await expectClean(bumped, W_TENANT, admin);
    expect(
      bumped.result.decisions
        .filter((d) => d.hostRef.name === `${podName}.rbac`)
        .map((d) => d.action),
    ).toEqual(['Update']);
    expect(await copyOf()).toMatchObject({ count: 2 });
    await expectForbidden('delete an Event on the tenant', async () => {
      const copy = (await copyOf()) as KubeObject;
      await t.apis.tenant.delete(EVENT, W_VNS, copy.metadata.name, {
        uid: copy.metadata.uid as string,
      });
    });
    await expectForbidden('create an Event in the host namespace', () =>
      t.apis.host.create({
        ...hostEvent,
        metadata: { namespace: W_HOST_NS, name: `rbac-probe-${RUN}` },
      }),
    );
  });

  it('status back: the host Ingress’s load balancer reaches the tenant (ingresses/status patch); the tenant Service has its host copy’s cluster IP', async () => {
    const hostIngressName = hostName('web', W_VNS, W_TENANT);
    const lb = { ingress: [{ ip: '203.0.113.9' }] };
    await admin.host.patchStatus(INGRESS, W_HOST_NS, hostIngressName, { loadBalancer: lb });
    const hostService = (await admin.host.get(
      SERVICE,
      W_HOST_NS,
      hostName('ext', W_VNS, W_TENANT),
    )) as KubeObject;
    const clusterIp = (hostService.spec as { clusterIP?: string }).clusterIP;
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // A host-only change: the full pass sees it (a resumed one reads only tenant changes).
    const run = await pass(W_TENANT, t.apis, 'full');
    expect(run.result.errors).toEqual([]);
    expect(run.result.complete).toBe(true);
    expect((await admin.tenant.get(INGRESS, W_VNS, 'web'))?.status).toEqual({ loadBalancer: lb });
    const tenantService = await admin.tenant.get(SERVICE, W_VNS, 'ext');
    expect((tenantService?.spec as { clusterIP?: string } | undefined)?.clusterIP).toBe(clusterIp);
    // Written on the tenant objects only: the host copies do not change.
    expect(run.result.requests.host.writes).toBe(0);
    await expectForbidden('update an Ingress on the tenant', async () => {
      const ingress = (await admin.tenant.get(INGRESS, W_VNS, 'web')) as KubeObject;
      await t.apis.tenant.update(ingress);
    });
  });

  it('a tenant Service whose address the host holds is recreated with its host copy’s (services create, delete)', async () => {
    const held = await admin.tenant.create(
      object(SERVICE, 'held', { spec: { ports: [{ port: 81 }] } }),
    );
    const ip = (held.spec as { clusterIP: string }).clusterIP;
    // Owned by it: a Lease, a kind this identity may not list, so the engine cannot see it. The
    // realignment's delete orphans: the tenant's collector takes the reference, not the Lease.
    const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
    const ref = { apiVersion: 'v1', kind: 'Service', name: 'held', uid: held.metadata.uid };
    const lease = await admin.tenant.create({
      ...LEASE,
      metadata: { name: 'held-lease', namespace: W_VNS, ownerReferences: [ref] },
      spec: { holderIdentity: 'someone' },
    });
    await expectForbidden('list Leases on the tenant', () => t.apis.tenant.list(LEASE));
    // The same address held on the host by a Service of another namespace.
    const holder = {
      ...SERVICE,
      metadata: { name: `held-${RUN}`, namespace: OTHER_NS },
      spec: { ports: [{ port: 81 }], clusterIP: ip, clusterIPs: [ip] },
    };
    const hostHolder = await admin.host.create(holder);
    try {
      const run = await pass(W_TENANT, t.apis);
      expect(run.result.errors).toEqual([]);
      const mine = run.result.decisions.filter((d) => d.tenantRef.name === 'held');
      expect(mine.map((d) => d.action)).toEqual(['Create', 'Update']);
      const copy = await admin.host.get(SERVICE, W_HOST_NS, hostName('held', W_VNS, W_TENANT));
      const now = (await admin.tenant.get(SERVICE, W_VNS, 'held')) as KubeObject;
      const copyIp = (copy?.spec as { clusterIP?: string } | undefined)?.clusterIP;
      expect(copyIp).not.toBe(ip);
      expect((now.spec as { clusterIP: string }).clusterIP).toBe(copyIp);
      expect(now.metadata.uid).not.toBe(held.metadata.uid);
      // Past a point where the tenant's collector demonstrably ran (a dependent of a Service
      // deleted after the pass is collected), the Lease is there, with the reference removed.
      const canary = await admin.tenant.create(
        object(SERVICE, 'canary', { spec: { ports: [{ port: 82 }] } }),
      );
      const canaryRef = { ...ref, name: 'canary', uid: canary.metadata.uid };
      await admin.tenant.create({
        ...LEASE,
        metadata: { name: 'canary-lease', namespace: W_VNS, ownerReferences: [canaryRef] },
      });
      await admin.tenant.delete(SERVICE, W_VNS, 'canary', { uid: canary.metadata.uid as string });
      await eventually('the tenant collector collects the canary’s Lease', async () => {
        if (await admin.tenant.get(LEASE, W_VNS, 'canary-lease')) throw new Error('not yet');
      });
      const kept = await admin.tenant.get(LEASE, W_VNS, 'held-lease');
      expect(kept?.metadata.uid).toBe(lease.metadata.uid);
      expect(kept?.metadata.ownerReferences ?? []).toEqual([]);
    } finally {
      await admin.host.delete(SERVICE, OTHER_NS, holder.metadata.name, {
        uid: hostHolder.metadata.uid as string,
      });
    }
  });

  it('a tenant Pod deleted with a grace period: its host copy goes with it and a pass ends the tenant Pod (pods delete)', async () => {
    const tenantPod = (await admin.tenant.get(POD, W_VNS, 'web')) as KubeObject;
    expect(tenantPod.metadata.annotations?.['tenantplane.io/bound-host-pod']).toBeTruthy();
    await admin.tenant.delete(
      POD,
      W_VNS,
      'web',
      { uid: tenantPod.metadata.uid as string },
      { gracePeriodSeconds: 10 },
    );
    const ended: string[] = [];
    await eventually('passes that end the tenant Pod', async () => {
      const run = await pass(W_TENANT, t.apis);
      expect(run.result.errors).toEqual([]);
      ended.push(...run.result.decisions.filter((d) => d.kind === 'Pod').map((d) => d.action));
      if (await admin.tenant.get(POD, W_VNS, 'web')) throw new Error('not yet');
    });
    expect(ended).toEqual(['Delete', 'Delete']);
    expect(await admin.host.get(POD, W_HOST_NS, podName)).toBeUndefined();
  });
});
