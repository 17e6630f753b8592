/**
 * A tenant of its own that syncs every workload kind of the table (`kinds.ts`) next to ConfigMaps
 * and Secrets, with the opt-in workload manifests (host-workloads.yaml, tenant-workloads.yaml) on
 * top of the defaults, and a copy of one host class of each kind (`spec.fromHost`).
 * tenant-workloads.yaml widens the shared tenant identity (`tenantplane-sync`): {@link tearDown}
 * removes it again, so the bounds of the default grant hold for the files that run after.
 */
import { createClusterApi } from '../../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../../lib/engine/index.js';
import { issueUserKubeconfig } from '../../../../lib/localcluster/users.js';
import type { KindRef, KubeObject } from '../../../../lib/ports/index.js';
import { HOST_WORKLOAD_FILES, restrictedHostIdentity } from '../../support/rbac.js';
import {
  CLASS_KINDS,
  GATEWAY,
  GATEWAY_NAMESPACE,
  HOST_GATEWAY,
  hostClasses,
  WORKLOAD_KINDS,
  WORKLOAD_ROWS,
} from './kinds.js';
import {
  type Apis,
  adminApis,
  applyTenantManifest,
  CLUSTER_ROLE,
  CLUSTER_ROLE_BINDING,
  CONFIGMAP,
  controlPlane,
  EVENT,
  eventually,
  LABEL,
  NAMESPACE,
  NODE,
  POD,
  RUN,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  SERVICE_CIDR,
  TENANT_CLUSTER,
  tenantObject,
} from './support.js';

/** The workload tenant of one file: its names, the admin clients and, once set up, its own. */
export class WorkloadTenant {
  readonly tenant: string;
  readonly hostNamespace: string;
  readonly vns: string;
  /** Its host identity's user name. */
  readonly user: string;
  /** A host namespace of another tenant (what its identity must not reach). */
  readonly otherNamespace: string;
  /** The host name of its Pod `web`. */
  readonly podName: string;
  readonly admin: Apis = adminApis();
  /** Its restricted identities, once {@link setUp} ran. */
  apis!: Apis;

  constructor(prefix: string) {
    this.tenant = `${prefix}-${RUN}`;
    this.hostNamespace = `h-${this.tenant}`;
    this.vns = `${this.tenant}-a`;
    this.user = `tenantplane-sync-${this.tenant}`;
    this.otherNamespace = `h-${this.tenant}-other`;
    this.podName = hostName('web', this.vns, this.tenant);
  }

  /** A tenant object of this tenant. */
  object = (kind: KindRef, name: string, body: Record<string, unknown>): KubeObject =>
    tenantObject(kind, name, body, this.tenant, this.vns);

  /** Applies the manifests, makes the namespaces, the TenantCluster and (with `seed`) objects. */
  async setUp(seed: boolean): Promise<void> {
    const { admin, tenant, hostNamespace, vns } = this;
    // The default tenant grant, then the workload one on top, as the operators would.
    await applyTenantManifest('tenant-cluster.yaml');
    await applyTenantManifest('tenant-workloads.yaml');
    for (const name of [hostNamespace, this.otherNamespace])
      await admin.host.create({ ...NAMESPACE, metadata: { name } });
    // The operator's Gateway (shared by the files that use this tenant shape), and its namespace in
    // the tenant, where the tenant's route names it and its read-only copy appears.
    for (const api of [admin.host, admin.tenant]) {
      if (!(await api.get(NAMESPACE, undefined, GATEWAY_NAMESPACE)))
        await api.create({ ...NAMESPACE, metadata: { name: GATEWAY_NAMESPACE } });
    }
    if (!(await admin.host.get(GATEWAY, GATEWAY_NAMESPACE, 'shared')))
      await admin.host.create(HOST_GATEWAY);
    const hostKc = await restrictedHostIdentity(tenant, hostNamespace, [
      ...HOST_WORKLOAD_FILES,
      'host-gateways.yaml',
    ]);
    await admin.tenant.create({ ...NAMESPACE, metadata: { name: vns } });
    for (const hostClass of hostClasses(tenant)) await admin.host.create(hostClass);
    // The Pod's tenant token is minted for `default`, which the tenant's controller manager makes.
    await eventually('the tenant namespace has its default service account', async () => {
      if (!(await admin.tenant.get(SERVICE_ACCOUNT, vns, 'default'))) throw new Error('not yet');
    });
    await admin.host.create({
      ...TENANT_CLUSTER,
      metadata: { name: tenant },
      spec: {
        hostNamespace,
        // Pods first: the pass applies what they refer to before them anyway.
        toHost: [...WORKLOAD_KINDS, CONFIGMAP, SECRET].map((k) => ({
          ...k,
          exclude: { labelSelector: `${LABEL}!=${tenant}` },
        })),
        // Classes from the host: read-only copies in the tenant, one class of each kind.
        fromHost: {
          storageClasses: { names: [`${tenant}-sc`] },
          ingressClasses: { names: [`${tenant}-ic`] },
          priorityClasses: { names: [`${tenant}-pc`] },
          runtimeClasses: { names: [`${tenant}-rc`] },
          gatewayClasses: { names: [`${tenant}-gc`] },
        },
        // The hand-written EndpointSlice's addresses (10.0.0.1, then .2): a block the policy
        // allows (issue 28: an address outside it must be one of the tenant's own Pod IPs).
        // The Ingress's host, as the policy allows it (issue 28: a host Ingress claims no other).
        workloads: {
          endpoints: { cidrs: ['10.0.0.0/24'] },
          ingresses: { hostSuffixes: ['web.example.com'] },
          // The HTTPRoute's Gateway and hostname (issue 40: a route attaches to no other).
          gateways: {
            parents: [{ namespace: 'gateways', name: 'shared' }],
            hostSuffixes: ['web.example.com'],
          },
        },
      },
    });
    if (seed) await this.seed();
    const tenantKc = await issueUserKubeconfig(await controlPlane(), 'tenant', 'tenantplane-sync');
    const w = { tenant: createClusterApi(tenantKc), host: createClusterApi(hostKc) };
    this.apis = w;
    await eventually('the tenant workload binding takes effect', async () => {
      for (const kind of [...WORKLOAD_KINDS, ...CLASS_KINDS, GATEWAY]) await w.tenant.list(kind);
    });
    await eventually('the host workload bindings take effect', async () => {
      await w.host.get(TENANT_CLUSTER, undefined, tenant);
      for (const kind of WORKLOAD_KINDS) await w.host.list(kind, { namespace: hostNamespace });
      for (const kind of CLASS_KINDS) await w.host.list(kind);
      await w.host.get(GATEWAY, GATEWAY_NAMESPACE, 'shared');
      await w.host.list(NODE, { limit: 1 });
      await w.host.list(SERVICE_CIDR);
      await w.host.get(EVENT, 'default', 'none');
    });
  }

  /** The ConfigMap, Secret, Service and Pod `web` refer to, every row's objects, then the Pod. */
  private async seed(): Promise<void> {
    const { admin, object } = this;
    await admin.tenant.create(object(CONFIGMAP, 'app', { data: { color: 'blue' } }));
    await admin.tenant.create(object(SECRET, 'token', { type: 'Opaque', stringData: { t: 's' } }));
    await admin.tenant.create(
      object(SERVICE, 'web', {
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      }),
    );
    for (const row of WORKLOAD_ROWS) {
      for (const made of row.seed?.(object) ?? []) await admin.tenant.create(made);
    }
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
  }

  /** Closes the clients, removes the class copies and the widened tenant grant. */
  async tearDown(): Promise<void> {
    const { admin } = this;
    await this.apis?.tenant.close();
    await this.apis?.host.close();
    // The classes are cluster-scoped: the host's and the tenant's copies go.
    for (const hostClass of hostClasses(this.tenant)) {
      for (const api of [admin.host, admin.tenant]) {
        const found = await api.get(hostClass, undefined, hostClass.metadata.name);
        if (found)
          await api.delete(hostClass, undefined, hostClass.metadata.name, {
            uid: found.metadata.uid as string,
          });
      }
    }
    // This tenant's copy of the shared host Gateway (the next file's tenant makes its own).
    const copy = await admin.tenant.get(GATEWAY, GATEWAY_NAMESPACE, 'shared');
    if (copy?.metadata.labels?.['tenantplane.io/tenant'] === this.tenant)
      await admin.tenant.delete(GATEWAY, GATEWAY_NAMESPACE, 'shared', {
        uid: copy.metadata.uid as string,
      });
    // Back to the default tenant grant for the files that run after this one.
    for (const kind of [CLUSTER_ROLE_BINDING, CLUSTER_ROLE]) {
      const name = 'tenantplane-sync-reader-workloads';
      const found = await admin.tenant.get(kind, undefined, name);
      if (found) {
        await admin.tenant.delete(kind, undefined, name, { uid: found.metadata.uid as string });
      }
    }
    await Promise.all([admin.tenant.close(), admin.host.close()]);
  }
}
