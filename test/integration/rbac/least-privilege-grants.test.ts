/**
 * The bounds and verbs of the opt-in deploy/rbac workload manifests (host-workloads.yaml,
 * tenant-workloads.yaml): the workload identities are Forbidden outside their bounds, and the
 * apiserver's authorizer grants each workload resource (a row of `least-privilege/kinds.ts`)
 * exactly the verbs the engine uses, nothing more (a SubjectAccessReview per verb).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { CLASS_KINDS, WORKLOAD_ROWS } from './least-privilege/kinds.js';
import {
  expectForbidden,
  NODE,
  PDB,
  POD,
  RUN,
  SERVICE,
  SERVICE_ACCOUNT,
} from './least-privilege/support.js';
import { WorkloadTenant } from './least-privilege/workload-tenant.js';

const t = new WorkloadTenant('rbacg');
const { tenant: W_TENANT, vns: W_VNS, user: W_USER, hostNamespace: W_HOST_NS, admin, object } = t;
const OTHER_NS = t.otherNamespace;

beforeAll(() => t.setUp(false));
afterAll(() => t.tearDown());

/** Every verb RBAC knows for a resource. */
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

interface ResourceAttributes {
  group: string;
  resource: string;
  subresource?: string;
  /** Absent: in every namespace (a cluster-wide request). */
  namespace?: string;
}

/** The RBAC attributes of a kind's resource (`kind` is a row of the table). */
function resourceOf(kind: KindRef): ResourceAttributes {
  const resource = WORKLOAD_ROWS.find((row) => row.kind.kind === kind.kind)?.resource;
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

describe('the workload identities with the opt-in deploy/rbac workload manifests', () => {
  it('the workload identities stay in their bounds', async () => {
    const probePod = (namespace: string): KubeObject => ({
      ...POD,
      metadata: { name: `rbac-probe-${RUN}`, namespace },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    });
    await expectForbidden('create a Pod in another tenant namespace', () =>
      t.apis.host.create(probePod(OTHER_NS)),
    );
    await expectForbidden('list Pods cluster-wide on the host', () => t.apis.host.list(POD));
    await expectForbidden('list Services in another tenant namespace', () =>
      t.apis.host.list(SERVICE, { namespace: OTHER_NS }),
    );
    await expectForbidden('create a Pod in default on the host', () =>
      t.apis.host.create(probePod('default')),
    );
    expect(await admin.host.get(POD, OTHER_NS, `rbac-probe-${RUN}`)).toBeUndefined();
    // The tenant side stays read-only, and only the granted kinds.
    await expectForbidden('create a Pod on the tenant', () =>
      t.apis.tenant.create(probePod(W_VNS)),
    );
    await expectForbidden('get a Pod on the tenant', () => t.apis.tenant.get(POD, W_VNS, 'web'));
    await expectForbidden('get a Node on the tenant', () =>
      t.apis.tenant.get(NODE, undefined, 'x'),
    );
    await expectForbidden('get a ServiceAccount on the tenant', () =>
      t.apis.tenant.get(SERVICE_ACCOUNT, W_VNS, 'default'),
    );
    await expectForbidden('list an ungranted kind on the tenant', () =>
      t.apis.tenant.list({ apiVersion: 'apps/v1', kind: 'Deployment' }),
    );
    await expectForbidden('get a PodDisruptionBudget on the tenant', () =>
      t.apis.tenant.get(PDB, W_VNS, 'web'),
    );
    await expectForbidden('create a PodDisruptionBudget on the tenant', () =>
      t.apis.tenant.create(object(PDB, `rbac-probe-${RUN}`, { spec: { maxUnavailable: 1 } })),
    );
    await expectForbidden('list PodDisruptionBudgets in another tenant namespace', () =>
      t.apis.host.list(PDB, { namespace: OTHER_NS }),
    );
    await expectForbidden('list PodDisruptionBudgets cluster-wide on the host', () =>
      t.apis.host.list(PDB),
    );
    // Classes: list and write in the tenant, only list on the host.
    const [storageClass] = CLASS_KINDS as [KindRef];
    await expectForbidden('get a StorageClass on the tenant', () =>
      t.apis.tenant.get(storageClass, undefined, `${W_TENANT}-sc`),
    );
    await expectForbidden('get a StorageClass on the host', () =>
      t.apis.host.get(storageClass, undefined, `${W_TENANT}-sc`),
    );
    await expectForbidden('create a StorageClass on the host', () =>
      t.apis.host.create({
        ...storageClass,
        metadata: { name: `rbac-probe-${RUN}` },
        provisioner: 'x',
      }),
    );
  });

  it('each workload resource: exactly the verbs the engine uses, nothing more (SubjectAccessReview)', async () => {
    // Tenant: list and watch, cluster-wide; the only writes are Pod endings and a Service
    // recreated with its host copy's address. Host: the five verbs in its host namespace.
    const tenantExtra: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
      WORKLOAD_ROWS.map((row) => [row.resource, row.tenantWrites ?? []]),
    );
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
    for (const { kind } of WORKLOAD_ROWS) actual.push(await granted(kind));
    expect(actual).toEqual(WORKLOAD_ROWS.map((row) => expected(row.kind)));
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
    // The kubelet gateway's metrics reads (docs/metrics.md): the Pods' metrics of the host
    // namespace, get and list; no NodeMetrics anywhere.
    const podMetrics = { group: 'metrics.k8s.io', resource: 'pods' };
    expect(
      await Promise.all([
        grantedVerbs(admin.host, W_USER, { ...podMetrics, namespace: W_HOST_NS }),
        grantedVerbs(admin.host, W_USER, { ...podMetrics, namespace: OTHER_NS }),
        grantedVerbs(admin.host, W_USER, podMetrics),
        grantedVerbs(admin.host, W_USER, { group: 'metrics.k8s.io', resource: 'nodes' }),
      ]),
    ).toEqual([['get', 'list'], [], [], []]);
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
