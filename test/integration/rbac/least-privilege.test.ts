/**
 * The RBAC manifests in deploy/rbac are enough, and no more: applied to the real tenant and host
 * apiservers (RBAC authorizer), a pass run with certificate identities bound only by them creates,
 * updates and garbage-collects host copies, writes its Events and status.lastPass with zero
 * errors; the same identities are Forbidden outside those bounds.
 *
 * The tenant apiserver is shared with other test files: this tenant's policy excludes every tenant
 * object not labelled `tenantplane-test=<tenant>`, so only its own objects sync.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { hostName, runPass } from '../../../lib/engine/index.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import {
  isClusterError,
  type KindRef,
  type KubeObject,
  type PassResult,
} from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';
import { kubectlApply, rbacFile, restrictedHostIdentity } from '../support/rbac.js';

const clusters = integrationClusters();

const RUN = Math.random().toString(36).slice(2, 7);
const TENANT = `rbac-${RUN}`;
const HOST_NS = `h-${TENANT}`;
const VNS = `${TENANT}-a`;
const OTHER_TENANT = `rbac-other-${RUN}`;
const OTHER_NS = `h-${OTHER_TENANT}`;
const LABEL = 'tenantplane-test';

const CONFIGMAP: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET: KindRef = { apiVersion: 'v1', kind: 'Secret' };
const NAMESPACE: KindRef = { apiVersion: 'v1', kind: 'Namespace' };
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const TENANT_CLUSTER: KindRef = { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' };
const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
const ENDPOINT_SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const INGRESS: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const NETWORK_POLICY: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };
const PDB: KindRef = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const SERVICE_CIDR: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR' };
const CLUSTER_ROLE: KindRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };
const CLUSTER_ROLE_BINDING: KindRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
};

async function expectForbidden(what: string, request: () => Promise<unknown>): Promise<void> {
  let failure: unknown;
  try {
    await request();
  } catch (error) {
    failure = error;
  }
  if (!isClusterError(failure, 'Forbidden')) {
    throw new Error(`${what}: expected Forbidden, got ${failure ? String(failure) : 'success'}`);
  }
}

/** Polls until the RBAC authorizer's cache has the new bindings (it is eventually consistent). */
async function eventually(what: string, check: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${String(error)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const admin = {
  tenant: createClusterApi(clusters.tenant),
  host: createClusterApi(clusters.host),
};
let restricted: { tenant: KubeClusterApi; host: KubeClusterApi };

function tenantObject(
  kind: KindRef,
  name: string,
  body: Record<string, unknown>,
  tenant = TENANT,
  namespace = VNS,
): KubeObject {
  return { ...kind, metadata: { name, namespace, labels: { [LABEL]: tenant } }, ...body };
}

async function pass(
  tenant = TENANT,
  apis: { tenant: KubeClusterApi; host: KubeClusterApi } = restricted,
  path?: 'full',
): Promise<{ result: PassResult; events: KubernetesEventsSink }> {
  const events = new KubernetesEventsSink({ hostApi: apis.host, tenant });
  const result = await runPass({
    tenant,
    tenantApi: apis.tenant,
    hostApi: apis.host,
    sinks: [events],
    lease: true,
    ...(path ? { path } : {}),
  });
  return { result, events };
}

function lines(result: PassResult): string[] {
  return result.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`).sort();
}

/**
 * {@link lines} without the Skip of the slices the tenant's controller makes (random names) and
 * the copies of the host's own Events (the scheduler's, the claim binder's: their timing is the
 * host's; the Events back test below makes its own), and the tenant Nodes (which pass first sees
 * the host Pod scheduled is the host scheduler's timing; the Nodes test below checks them).
 */
function workloadLines(result: PassResult): string[] {
  return lines(result).filter((line) => !/^Skip EndpointSlice web-|^\w+ (Event|Node) /.test(line));
}

async function expectClean(
  run: { result: PassResult; events: KubernetesEventsSink },
  tenant = TENANT,
) {
  expect(run.result.errors).toEqual([]);
  expect(run.result.complete).toBe(true);
  expect(run.result.statusWritten).toBe(true);
  // The tenant's Lease was taken and released with these grants alone.
  expect(run.result.warnings ?? []).toEqual([]);
  expect(run.events.lastReport?.failures).toEqual([]);
  const tc = await admin.host.get(TENANT_CLUSTER, undefined, tenant);
  const lastPass = (tc?.status as { lastPass?: { passId?: string } } | undefined)?.lastPass;
  expect(lastPass?.passId).toBe(run.result.passId);
}

let controlPlane: NonNullable<Awaited<ReturnType<typeof readRunningControlPlane>>>;

beforeAll(async () => {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  const state = stateDir ? await readRunningControlPlane(stateDir) : undefined;
  if (!state) throw new Error('the integration control plane state is missing');
  controlPlane = state;

  // As the operators would: the manifests, applied with admin credentials.
  await kubectlApply(
    clusters.tenantKubeconfigPath,
    await readFile(rbacFile('tenant-cluster.yaml'), 'utf8'),
  );
  for (const ns of [HOST_NS, OTHER_NS]) {
    await admin.host.create({ ...NAMESPACE, metadata: { name: ns } });
  }
  const hostKc = await restrictedHostIdentity(TENANT, HOST_NS, ['host-cluster.yaml']);
  await admin.tenant.create({ ...NAMESPACE, metadata: { name: VNS } });
  for (const [name, hostNamespace] of [
    [TENANT, HOST_NS],
    [OTHER_TENANT, OTHER_NS],
  ] as const) {
    await admin.host.create({
      ...TENANT_CLUSTER,
      metadata: { name },
      spec: {
        hostNamespace,
        toHost: [CONFIGMAP, SECRET].map((k) => ({
          ...k,
          exclude: { labelSelector: `${LABEL}!=${name}` },
        })),
      },
    });
  }
  await admin.tenant.create(tenantObject(CONFIGMAP, 'app', { data: { color: 'blue' } }));
  await admin.tenant.create(
    tenantObject(SECRET, 'token', { type: 'Opaque', stringData: { t: 's3cret' } }),
  );

  const tenantKc = await issueUserKubeconfig(state, 'tenant', 'tenantplane-sync');
  restricted = { tenant: createClusterApi(tenantKc), host: createClusterApi(hostKc) };
  await eventually('the tenant binding takes effect', () => restricted.tenant.list(SECRET));
  await eventually('the host bindings take effect', async () => {
    await restricted.host.get(TENANT_CLUSTER, undefined, TENANT);
    await restricted.host.list(SECRET, { namespace: HOST_NS });
    await restricted.host.get({ apiVersion: 'v1', kind: 'Event' }, 'default', 'none');
  });
});

afterAll(async () => {
  await Promise.all([
    admin.tenant.close(),
    admin.host.close(),
    restricted?.tenant.close(),
    restricted?.host.close(),
  ]);
});

describe('the engine with only the deploy/rbac permissions', () => {
  it('the first pass creates the host copies, its Events and status.lastPass', async () => {
    const run = await pass();
    expect(lines(run.result)).toEqual(['Create ConfigMap app', 'Create Secret token']);
    await expectClean(run);
    expect(run.events.lastReport).toMatchObject({ created: 2, summary: 'created' });
    const copy = await admin.host.get(CONFIGMAP, HOST_NS, hostName('app', VNS, TENANT));
    expect(copy?.data).toEqual({ color: 'blue' });
    expect(await admin.host.get(SECRET, HOST_NS, hostName('token', VNS, TENANT))).toBeDefined();
  });

  it('tenant edits update the copy; a repeated decision bumps its Event (get + update)', async () => {
    for (const color of ['green', 'red']) {
      const source = await admin.tenant.get(CONFIGMAP, VNS, 'app');
      await admin.tenant.update({ ...(source as KubeObject), data: { color } });
      const run = await pass();
      expect(lines(run.result)).toEqual(['Update ConfigMap app']);
      // `watch` is granted: the change came from a resumed watch, not a full listing.
      expect(run.result.path).toBe('resumed');
      await expectClean(run);
      const copy = await admin.host.get(CONFIGMAP, HOST_NS, hostName('app', VNS, TENANT));
      expect(copy?.data).toEqual({ color });
      if (color === 'red') expect(run.events.lastReport).toMatchObject({ bumped: 1 });
      if (color === 'red') expect(run.events.lastReport?.summary).toBe('bumped');
    }
  });

  it('a tenant delete garbage-collects the host copy', async () => {
    const source = await admin.tenant.get(SECRET, VNS, 'token');
    await admin.tenant.delete(SECRET, VNS, 'token', { uid: source?.metadata.uid as string });
    const run = await pass();
    expect(lines(run.result)).toEqual(['Delete Secret token']);
    await expectClean(run);
    expect(await admin.host.get(SECRET, HOST_NS, hostName('token', VNS, TENANT))).toBeUndefined();
  });
});

describe('the bounds of the restricted identities', () => {
  const foreignConfigMap = (namespace: string): KubeObject => ({
    ...CONFIGMAP,
    metadata: { name: `rbac-probe-${RUN}`, namespace },
    data: { k: 'v' },
  });

  it('the host identity cannot write outside its namespace or read another tenant', async () => {
    const host = restricted.host;
    await expectForbidden('create in another tenant namespace', () =>
      host.create(foreignConfigMap(OTHER_NS)),
    );
    await expectForbidden('list another tenant namespace', () =>
      host.list(SECRET, { namespace: OTHER_NS }),
    );
    await expectForbidden('create a ConfigMap in default', () =>
      host.create(foreignConfigMap('default')),
    );
    await expectForbidden('read another TenantCluster', () =>
      host.get(TENANT_CLUSTER, undefined, OTHER_TENANT),
    );
    await expectForbidden('write another TenantCluster status', () =>
      host.patchStatus(TENANT_CLUSTER, undefined, OTHER_TENANT, { lastPass: null }),
    );
    await expectForbidden('list TenantClusters', () => host.list(TENANT_CLUSTER));
    const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
    await expectForbidden('take a lease in another tenant namespace', () =>
      host.create({ ...LEASE, metadata: { name: `tenantplane-${TENANT}`, namespace: OTHER_NS } }),
    );
    await expectForbidden('read another lease in its own namespace', () =>
      host.get(LEASE, HOST_NS, `tenantplane-${OTHER_TENANT}`),
    );
    await expectForbidden('list leases', () => host.list(LEASE, { namespace: HOST_NS }));
    const own = (await host.get(TENANT_CLUSTER, undefined, TENANT)) as KubeObject;
    await expectForbidden('edit its own TenantCluster spec', () =>
      host.update({ ...own, spec: { ...(own.spec as object), paused: true } }),
    );
    await expectForbidden('delete its own TenantCluster', () =>
      host.delete(TENANT_CLUSTER, undefined, TENANT, { uid: own.metadata.uid as string }),
    );
    await expectForbidden('create a namespace', () =>
      host.create({ ...NAMESPACE, metadata: { name: `rbac-probe-${RUN}` } }),
    );
    // Its one namespace GET is its own host namespace (the HostPodSecurity condition), which the
    // manifest labelled for the host's Pod Security admission; no other namespace.
    const hostNamespace = await host.get(NAMESPACE, undefined, HOST_NS);
    expect(hostNamespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('baseline');
    await expectForbidden('get another tenant namespace', () =>
      host.get(NAMESPACE, undefined, OTHER_NS),
    );
    expect(await admin.host.get(CONFIGMAP, OTHER_NS, `rbac-probe-${RUN}`)).toBeUndefined();
  });

  it('the tenant identity can only list and watch: no create, get, update, delete or other kinds', async () => {
    const tenant = restricted.tenant;
    await expectForbidden('create on the tenant', () => tenant.create(foreignConfigMap(VNS)));
    await expectForbidden('create a namespace on the tenant', () =>
      tenant.create({ ...NAMESPACE, metadata: { name: `rbac-probe-${RUN}` } }),
    );
    await expectForbidden('get on the tenant', () => tenant.get(CONFIGMAP, VNS, 'app'));
    const source = (await admin.tenant.get(CONFIGMAP, VNS, 'app')) as KubeObject;
    await expectForbidden('update on the tenant', () =>
      tenant.update({ ...source, data: { color: 'hacked' } }),
    );
    await expectForbidden('delete on the tenant', () =>
      tenant.delete(CONFIGMAP, VNS, 'app', { uid: source.metadata.uid as string }),
    );
    await expectForbidden('list an ungranted kind', () => tenant.list(POD));
    // Its one GET is the kube-system namespace (the tenant cluster's identity), nothing else.
    expect((await tenant.get(NAMESPACE, undefined, 'kube-system'))?.metadata.name).toBe(
      'kube-system',
    );
    await expectForbidden('get another namespace', () =>
      tenant.get(NAMESPACE, undefined, 'default'),
    );
    expect((await admin.tenant.get(CONFIGMAP, VNS, 'app'))?.data).toEqual({ color: 'red' });
    expect(await admin.tenant.get(CONFIGMAP, VNS, `rbac-probe-${RUN}`)).toBeUndefined();
  });
});

/** The class kinds of `spec.fromHost` (tenant-workloads.yaml and host-workloads.yaml grant them). */
const CLASS_KINDS: readonly KindRef[] = [
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' },
  { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' },
  { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' },
];

/** A host class of each kind, named after the tenant (classes are cluster-scoped). */
function hostClasses(tenant: string): KubeObject[] {
  const [sc, ic, pc, rc] = CLASS_KINDS as [KindRef, KindRef, KindRef, KindRef];
  return [
    { ...sc, metadata: { name: `${tenant}-sc` }, provisioner: 'example.com/none' },
    { ...ic, metadata: { name: `${tenant}-ic` }, spec: { controller: 'example.com/ingress' } },
    { ...pc, metadata: { name: `${tenant}-pc` }, value: 100 },
    { ...rc, metadata: { name: `${tenant}-rc` }, handler: 'runsc' },
  ];
}

/** Every kind tenant-workloads.yaml and host-workloads.yaml grant. */
const WORKLOAD_KINDS: readonly KindRef[] = [
  POD,
  SERVICE,
  ENDPOINT_SLICE,
  CLAIM,
  INGRESS,
  NETWORK_POLICY,
  SERVICE_ACCOUNT,
  PDB,
];

/** The RBAC resource of each workload kind (its API group is the kind's). */
const WORKLOAD_RESOURCES: Readonly<Record<string, string>> = {
  Pod: 'pods',
  Service: 'services',
  EndpointSlice: 'endpointslices',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  Ingress: 'ingresses',
  NetworkPolicy: 'networkpolicies',
  ServiceAccount: 'serviceaccounts',
  PodDisruptionBudget: 'poddisruptionbudgets',
};

/** Every verb RBAC knows for a resource. */
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

interface ResourceAttributes {
  group: string;
  resource: string;
  subresource?: string;
  /** Absent: in every namespace (a cluster-wide request). */
  namespace?: string;
}

/** The RBAC attributes of a kind's resource (`kind` is in {@link WORKLOAD_RESOURCES}). */
function resourceOf(kind: KindRef): ResourceAttributes {
  const resource = WORKLOAD_RESOURCES[kind.kind];
  if (!resource) throw new Error(`no RBAC resource for ${kind.kind}`);
  const group = kind.apiVersion.includes('/') ? (kind.apiVersion.split('/')[0] as string) : '';
  return { group, resource };
}

/**
 * The verbs `user` holds on a resource, as the apiserver's authorizer answers them (a
 * SubjectAccessReview per verb, asked with admin credentials): what the manifests grant, exactly.
 */
async function grantedVerbs(
  api: KubeClusterApi,
  user: string,
  attributes: ResourceAttributes,
): Promise<string[]> {
  const answers = await Promise.all(
    VERBS.map(async (verb) => {
      const review = await api.create({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: { name: '' },
        spec: {
          user,
          groups: ['system:authenticated'],
          resourceAttributes: { ...attributes, verb },
        },
      });
      return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
    }),
  );
  return VERBS.filter((_, i) => answers[i]);
}

/**
 * One tenant object of each workload kind beyond Pods and selector Services: a selector-less
 * Service with its hand-written EndpointSlice, a claim, an Ingress (to that Service, TLS from a
 * synced Secret), a NetworkPolicy, a ServiceAccount and a PodDisruptionBudget (over the Pod).
 */
async function seedWorkloadKinds(
  object: (kind: KindRef, name: string, body: Record<string, unknown>) => KubeObject,
): Promise<void> {
  await admin.tenant.create(object(SERVICE, 'ext', { spec: { ports: [{ port: 80 }] } }));
  const slice = object(ENDPOINT_SLICE, 'ext-1', {
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }],
    ports: [{ port: 80 }],
  });
  slice.metadata.labels = { ...slice.metadata.labels, 'kubernetes.io/service-name': 'ext' };
  await admin.tenant.create(slice);
  await admin.tenant.create(
    object(CLAIM, 'data', {
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    }),
  );
  await admin.tenant.create(
    object(INGRESS, 'web', {
      spec: {
        tls: [{ hosts: ['web.example.com'], secretName: 'token' }],
        // A rule with its host: a default backend would catch every host (refused, issue 28).
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'ext', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    }),
  );
  await admin.tenant.create(
    object(NETWORK_POLICY, 'web', {
      spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
    }),
  );
  await admin.tenant.create(object(SERVICE_ACCOUNT, 'runner', {}));
  await admin.tenant.create(
    object(PDB, 'web', { spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } }),
  );
}

/**
 * The opt-in workload manifests (host-workloads.yaml, tenant-workloads.yaml) on top of the
 * defaults, for a tenant of its own that syncs every workload kind (Pods, Services, EndpointSlices
 * of a selector-less Service, claims, Ingresses, NetworkPolicies, ServiceAccounts,
 * PodDisruptionBudgets) next to
 * ConfigMaps and Secrets, and gets a copy of one host class of each kind (`spec.fromHost`), on a
 * full and then a resumed path. Runs last:
 * tenant-workloads.yaml widens the shared tenant identity (`tenantplane-sync`), so the bounds of
 * the default grant above are proven before it is applied, and it is removed again afterwards.
 */
describe('the workload kinds with the opt-in deploy/rbac workload manifests', () => {
  const W_TENANT = `rbacw-${RUN}`;
  const W_HOST_NS = `h-${W_TENANT}`;
  const W_VNS = `${W_TENANT}-a`;
  const W_USER = `tenantplane-sync-${W_TENANT}`;
  const podName = hostName('web', W_VNS, W_TENANT);
  let w: { tenant: KubeClusterApi; host: KubeClusterApi };
  const object = (kind: KindRef, name: string, body: Record<string, unknown>) =>
    tenantObject(kind, name, body, W_TENANT, W_VNS);

  beforeAll(async () => {
    await kubectlApply(
      clusters.tenantKubeconfigPath,
      await readFile(rbacFile('tenant-workloads.yaml'), 'utf8'),
    );
    await admin.host.create({ ...NAMESPACE, metadata: { name: W_HOST_NS } });
    const hostKc = await restrictedHostIdentity(W_TENANT, W_HOST_NS);
    await admin.tenant.create({ ...NAMESPACE, metadata: { name: W_VNS } });
    for (const hostClass of hostClasses(W_TENANT)) await admin.host.create(hostClass);
    // The Pod's tenant token is minted for `default`, which the tenant's controller manager makes.
    await eventually('the tenant namespace has its default service account', async () => {
      if (!(await admin.tenant.get(SERVICE_ACCOUNT, W_VNS, 'default'))) throw new Error('not yet');
    });
    await admin.host.create({
      ...TENANT_CLUSTER,
      metadata: { name: W_TENANT },
      spec: {
        hostNamespace: W_HOST_NS,
        // Pods first: the pass applies what they refer to before them anyway.
        toHost: [
          POD,
          SERVICE,
          ENDPOINT_SLICE,
          CLAIM,
          INGRESS,
          NETWORK_POLICY,
          SERVICE_ACCOUNT,
          PDB,
          CONFIGMAP,
          SECRET,
        ].map((k) => ({
          ...k,
          exclude: { labelSelector: `${LABEL}!=${W_TENANT}` },
        })),
        // Classes from the host: read-only copies in the tenant, one class of each kind.
        fromHost: {
          storageClasses: { names: [`${W_TENANT}-sc`] },
          ingressClasses: { names: [`${W_TENANT}-ic`] },
          priorityClasses: { names: [`${W_TENANT}-pc`] },
          runtimeClasses: { names: [`${W_TENANT}-rc`] },
        },
        // The hand-written EndpointSlice's addresses (10.0.0.1, then .2): a block the policy
        // allows (issue 28: an address outside it must be one of the tenant's own Pod IPs).
        // The Ingress's host, as the policy allows it (issue 28: a host Ingress claims no other).
        workloads: {
          endpoints: { cidrs: ['10.0.0.0/24'] },
          ingresses: { hostSuffixes: ['web.example.com'] },
        },
      },
    });
    await admin.tenant.create(object(CONFIGMAP, 'app', { data: { color: 'blue' } }));
    await admin.tenant.create(object(SECRET, 'token', { type: 'Opaque', stringData: { t: 's' } }));
    await admin.tenant.create(
      object(SERVICE, 'web', {
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      }),
    );
    await seedWorkloadKinds(object);
    const pod = object(POD, 'web', {
      spec: {
        volumes: [{ name: 'token', secret: { secretName: 'token' } }],
        containers: [
          {
            name: 'web',
            image: 'nginx:1',
            resources: { requests: { cpu: '100m' } },
            envFrom: [{ configMapRef: { name: 'app' } }],
            volumeMounts: [{ name: 'token', mountPath: '/token' }],
          },
        ],
      },
    });
    await admin.tenant.create({
      ...pod,
      metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, app: 'web' } },
    });

    const tenantKc = await issueUserKubeconfig(controlPlane, 'tenant', 'tenantplane-sync');
    w = { tenant: createClusterApi(tenantKc), host: createClusterApi(hostKc) };
    await eventually('the tenant workload binding takes effect', async () => {
      for (const kind of [...WORKLOAD_KINDS, ...CLASS_KINDS]) await w.tenant.list(kind);
    });
    await eventually('the host workload bindings take effect', async () => {
      await w.host.get(TENANT_CLUSTER, undefined, W_TENANT);
      for (const kind of WORKLOAD_KINDS) await w.host.list(kind, { namespace: W_HOST_NS });
      for (const kind of CLASS_KINDS) await w.host.list(kind);
      await w.host.list(NODE, { limit: 1 });
      await w.host.list(SERVICE_CIDR);
      await w.host.get({ apiVersion: 'v1', kind: 'Event' }, 'default', 'none');
    });
  });

  afterAll(async () => {
    await w?.tenant.close();
    await w?.host.close();
    // The classes are cluster-scoped: the host's and the tenant's copies go.
    for (const hostClass of hostClasses(W_TENANT)) {
      for (const api of [admin.host, admin.tenant]) {
        const found = await api.get(hostClass, undefined, hostClass.metadata.name);
        if (found)
          await api.delete(hostClass, undefined, hostClass.metadata.name, {
            uid: found.metadata.uid as string,
          });
      }
    }
    // Back to the default tenant grant for the files that run after this one.
    for (const kind of [CLUSTER_ROLE_BINDING, CLUSTER_ROLE]) {
      const name = 'tenantplane-sync-reader-workloads';
      const found = await admin.tenant.get(kind, undefined, name);
      if (found) {
        await admin.tenant.delete(kind, undefined, name, { uid: found.metadata.uid as string });
      }
    }
  });

  it('a pass creates the host Pod and Service with their references first, zero errors', async () => {
    const run = await pass(W_TENANT, w);
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
    await expectClean(run, W_TENANT);
    for (const hostClass of hostClasses(W_TENANT)) {
      const copy = await admin.tenant.get(hostClass, undefined, hostClass.metadata.name);
      expect({ kind: hostClass.kind, copied: copy !== undefined }).toEqual({
        kind: hostClass.kind,
        copied: true,
      });
    }
    for (const [kind, name] of [
      [ENDPOINT_SLICE, 'ext-1'],
      [CLAIM, 'data'],
      [INGRESS, 'web'],
      [NETWORK_POLICY, 'web'],
      [SERVICE_ACCOUNT, 'runner'],
      [PDB, 'web'],
    ] as const) {
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

    const run = await pass(W_TENANT, w);
    expect(workloadLines(run.result)).toEqual(['Delete Service web', 'Update Pod web']);
    await expectClean(run, W_TENANT);
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
    const settle = await pass(W_TENANT, w);
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
    const run = await pass(W_TENANT, w);
    expect({ path: run.result.path, why: run.result.pathReason }).toEqual({
      path: 'resumed',
      why: undefined,
    });
    expect(workloadLines(run.result)).toEqual([
      'Update EndpointSlice ext-1',
      'Update NetworkPolicy web',
      'Update PodDisruptionBudget web',
    ]);
    await expectClean(run, W_TENANT);
    const budgetCopy = await admin.host.get(PDB, W_HOST_NS, hostName('web', W_VNS, W_TENANT));
    expect(budgetCopy?.spec).toMatchObject({ minAvailable: 0 });
    const policyCopy = await admin.host.get(
      NETWORK_POLICY,
      W_HOST_NS,
      hostName('web', W_VNS, W_TENANT),
    );
    expect(JSON.stringify(policyCopy?.spec)).toContain(`"values":["${W_VNS}"]`);

    const steady = await pass(W_TENANT, w);
    expect(steady.result.path).toBe('resumed');
    expect(steady.result.errors).toEqual([]);
    expect(workloadLines(steady.result)).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  it('a tenant delete garbage-collects the PodDisruptionBudget copy (policy poddisruptionbudgets delete)', async () => {
    const budget = (await admin.tenant.get(PDB, W_VNS, 'web')) as KubeObject;
    await admin.tenant.delete(PDB, W_VNS, 'web', { uid: budget.metadata.uid as string });
    const run = await pass(W_TENANT, w);
    expect(run.result.path).toBe('resumed');
    expect(workloadLines(run.result)).toEqual(['Delete PodDisruptionBudget web']);
    await expectClean(run, W_TENANT);
    expect(await admin.host.get(PDB, W_HOST_NS, hostName('web', W_VNS, W_TENANT))).toBeUndefined();
  });

  it('host Events about the copies come back to the tenant objects (tenant events list, create, update; host events list)', async () => {
    const EVENT: KindRef = { apiVersion: 'v1', kind: 'Event' };
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
    const created = await pass(W_TENANT, w);
    await expectClean(created, W_TENANT);
    expect(await copyOf()).toMatchObject({
      involvedObject: { kind: 'Pod', namespace: W_VNS, name: 'web' },
      message: `pod ${W_VNS}/web probed`,
      count: 1,
    });
    await admin.host.update({ ...hostEvent, count: 2 });
    const bumped = await pass(W_TENANT, w);
    await expectClean(bumped, W_TENANT);
    expect(
      bumped.result.decisions
        .filter((d) => d.hostRef.name === `${podName}.rbac`)
        .map((d) => d.action),
    ).toEqual(['Update']);
    expect(await copyOf()).toMatchObject({ count: 2 });
    await expectForbidden('delete an Event on the tenant', async () => {
      const copy = (await copyOf()) as KubeObject;
      await w.tenant.delete(EVENT, W_VNS, copy.metadata.name, { uid: copy.metadata.uid as string });
    });
    await expectForbidden('create an Event in the host namespace', () =>
      w.host.create({
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
    const run = await pass(W_TENANT, w, 'full');
    expect(run.result.errors).toEqual([]);
    expect(run.result.complete).toBe(true);
    expect((await admin.tenant.get(INGRESS, W_VNS, 'web'))?.status).toEqual({ loadBalancer: lb });
    const tenantService = await admin.tenant.get(SERVICE, W_VNS, 'ext');
    expect((tenantService?.spec as { clusterIP?: string } | undefined)?.clusterIP).toBe(clusterIp);
    // Written on the tenant objects only: the host copies do not change.
    expect(run.result.requests.host.writes).toBe(0);
    await expectForbidden('update an Ingress on the tenant', async () => {
      const ingress = (await admin.tenant.get(INGRESS, W_VNS, 'web')) as KubeObject;
      await w.tenant.update(ingress);
    });
  });

  it('a tenant Service whose address the host holds is recreated with its host copy’s (services create, delete)', async () => {
    const held = await admin.tenant.create(
      object(SERVICE, 'held', { spec: { ports: [{ port: 81 }] } }),
    );
    const ip = (held.spec as { clusterIP: string }).clusterIP;
    // The same address held on the host by a Service of another namespace.
    const holder = {
      ...SERVICE,
      metadata: { name: `held-${RUN}`, namespace: OTHER_NS },
      spec: { ports: [{ port: 81 }], clusterIP: ip, clusterIPs: [ip] },
    };
    const hostHolder = await admin.host.create(holder);
    try {
      const run = await pass(W_TENANT, w);
      expect(run.result.errors).toEqual([]);
      const mine = run.result.decisions.filter((d) => d.tenantRef.name === 'held');
      expect(mine.map((d) => d.action)).toEqual(['Create', 'Update']);
      const copy = await admin.host.get(SERVICE, W_HOST_NS, hostName('held', W_VNS, W_TENANT));
      const now = (await admin.tenant.get(SERVICE, W_VNS, 'held')) as KubeObject;
      const copyIp = (copy?.spec as { clusterIP?: string } | undefined)?.clusterIP;
      expect(copyIp).not.toBe(ip);
      expect((now.spec as { clusterIP: string }).clusterIP).toBe(copyIp);
      expect(now.metadata.uid).not.toBe(held.metadata.uid);
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
      const run = await pass(W_TENANT, w);
      expect(run.result.errors).toEqual([]);
      ended.push(...run.result.decisions.filter((d) => d.kind === 'Pod').map((d) => d.action));
      if (await admin.tenant.get(POD, W_VNS, 'web')) throw new Error('not yet');
    });
    expect(ended).toEqual(['Delete', 'Delete']);
    expect(await admin.host.get(POD, W_HOST_NS, podName)).toBeUndefined();
  });

  it('the workload identities stay in their bounds', async () => {
    const probePod = (namespace: string): KubeObject => ({
      ...POD,
      metadata: { name: `rbac-probe-${RUN}`, namespace },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    });
    await expectForbidden('create a Pod in another tenant namespace', () =>
      w.host.create(probePod(OTHER_NS)),
    );
    await expectForbidden('list Pods cluster-wide on the host', () => w.host.list(POD));
    await expectForbidden('list Services in another tenant namespace', () =>
      w.host.list(SERVICE, { namespace: OTHER_NS }),
    );
    await expectForbidden('create a Pod in default on the host', () =>
      w.host.create(probePod('default')),
    );
    expect(await admin.host.get(POD, OTHER_NS, `rbac-probe-${RUN}`)).toBeUndefined();
    // The tenant side stays read-only, and only the granted kinds.
    await expectForbidden('create a Pod on the tenant', () => w.tenant.create(probePod(W_VNS)));
    await expectForbidden('get a Pod on the tenant', () => w.tenant.get(POD, W_VNS, 'web'));
    await expectForbidden('get a Node on the tenant', () => w.tenant.get(NODE, undefined, 'x'));
    await expectForbidden('get a ServiceAccount on the tenant', () =>
      w.tenant.get(SERVICE_ACCOUNT, W_VNS, 'default'),
    );
    await expectForbidden('list an ungranted kind on the tenant', () =>
      w.tenant.list({ apiVersion: 'apps/v1', kind: 'Deployment' }),
    );
    await expectForbidden('get a PodDisruptionBudget on the tenant', () =>
      w.tenant.get(PDB, W_VNS, 'web'),
    );
    await expectForbidden('create a PodDisruptionBudget on the tenant', () =>
      w.tenant.create(object(PDB, `rbac-probe-${RUN}`, { spec: { maxUnavailable: 1 } })),
    );
    await expectForbidden('list PodDisruptionBudgets in another tenant namespace', () =>
      w.host.list(PDB, { namespace: OTHER_NS }),
    );
    await expectForbidden('list PodDisruptionBudgets cluster-wide on the host', () =>
      w.host.list(PDB),
    );
    // Classes: list and write in the tenant, only list on the host.
    const [storageClass] = CLASS_KINDS as [KindRef];
    await expectForbidden('get a StorageClass on the tenant', () =>
      w.tenant.get(storageClass, undefined, `${W_TENANT}-sc`),
    );
    await expectForbidden('get a StorageClass on the host', () =>
      w.host.get(storageClass, undefined, `${W_TENANT}-sc`),
    );
    await expectForbidden('create a StorageClass on the host', () =>
      w.host.create({ ...storageClass, metadata: { name: `rbac-probe-${RUN}` }, provisioner: 'x' }),
    );
  });

  it('each workload resource: exactly the verbs the engine uses, nothing more (SubjectAccessReview)', async () => {
    // Tenant: list and watch, cluster-wide; the only writes are Pod endings and a Service
    // recreated with its host copy's address. Host: the five verbs in its host namespace.
    const tenantExtra: Readonly<Record<string, string[]>> = {
      pods: ['delete'],
      services: ['create', 'delete'],
    };
    const granted = async (kind: KindRef) => {
      const attributes = resourceOf(kind);
      const [tenant, host, other, cluster] = await Promise.all([
        grantedVerbs(admin.tenant, 'tenantplane-sync', attributes),
        grantedVerbs(admin.host, W_USER, { ...attributes, namespace: W_HOST_NS }),
        grantedVerbs(admin.host, W_USER, { ...attributes, namespace: OTHER_NS }),
        grantedVerbs(admin.host, W_USER, attributes),
      ]);
      return { resource: attributes.resource, tenant, host, other, cluster };
    };
    const expected = (kind: KindRef) => {
      const { resource } = resourceOf(kind);
      const tenant = ['list', 'watch', ...(tenantExtra[resource] ?? [])];
      return {
        resource,
        tenant: VERBS.filter((v) => tenant.includes(v)),
        host: ['get', 'list', 'create', 'update', 'delete'],
        other: [],
        cluster: [],
      };
    };
    const actual = [];
    for (const kind of WORKLOAD_KINDS) actual.push(await granted(kind));
    expect(actual).toEqual(WORKLOAD_KINDS.map(expected));
    // No subresource of a budget on either side, and no evictions on the host.
    const { group } = resourceOf(PDB);
    const status = { group, resource: 'poddisruptionbudgets', subresource: 'status' };
    expect(await grantedVerbs(admin.tenant, 'tenantplane-sync', status)).toEqual([]);
    expect(await grantedVerbs(admin.host, W_USER, { ...status, namespace: W_HOST_NS })).toEqual([]);
    const eviction = { group: '', resource: 'pods', subresource: 'eviction', namespace: W_HOST_NS };
    expect(await grantedVerbs(admin.host, W_USER, eviction)).toEqual([]);
    // The kubelet gateway's subresources (docs/kubelet-gateway.md): logs a GET; the streams a
    // WebSocket GET and the `create` Kubernetes checks of every upgrade; in the host namespace only.
    const gateway = async (subresource: string) => {
      const pod = { group: '', resource: 'pods', subresource };
      const [host, other, cluster] = await Promise.all([
        grantedVerbs(admin.host, W_USER, { ...pod, namespace: W_HOST_NS }),
        grantedVerbs(admin.host, W_USER, { ...pod, namespace: OTHER_NS }),
        grantedVerbs(admin.host, W_USER, pod),
      ]);
      return { subresource, host, other, cluster };
    };
    const streams = ['exec', 'attach', 'portforward'];
    expect(await Promise.all(['log', ...streams].map(gateway))).toEqual([
      { subresource: 'log', host: ['get'], other: [], cluster: [] },
      ...streams.map((s) => ({ subresource: s, host: ['get', 'create'], other: [], cluster: [] })),
    ]);
    // The host's service ranges: list, cluster-scoped, on the host only.
    const cidrs = { group: 'networking.k8s.io', resource: 'servicecidrs' };
    expect(await grantedVerbs(admin.host, W_USER, cidrs)).toEqual(['list']);
    expect(await grantedVerbs(admin.tenant, 'tenantplane-sync', cidrs)).toEqual([]);
    // The tenant's namespaces: list (NetworkPolicy peers naming one), and get of kube-system only.
    const namespaces = { group: '', resource: 'namespaces' };
    expect(await grantedVerbs(admin.tenant, 'tenantplane-sync', namespaces)).toEqual(['list']);
    for (const subresource of ['status', 'proxy', 'ephemeralcontainers', 'binding']) {
      const pod = { group: '', resource: 'pods', subresource, namespace: W_HOST_NS };
      expect(await grantedVerbs(admin.host, W_USER, pod)).toEqual([]);
    }
  });
});
