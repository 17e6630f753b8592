/**
 * The host client as a pass sees it while it must hold the tenant's lease (`tenant-lease.ts`):
 * its first write into a namespace takes the lease (in the tenant's lease namespace,
 * `leaseNamespaceOf` the TenantCluster as the pass first read it: not `spec.hostNamespace`, which
 * moves), and once another pass was found holding it every write is refused without a request.
 * Writes to the TenantCluster itself (cluster-scoped: finalizer, status) need no lease. Lease
 * requests are kept out of `requestCount()`, so `requests` stays what the sync cost.
 */
import {
  type ClusterApi,
  type CreateOptions,
  type KindRef,
  type KubeObject,
  type RequestCount,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { sameKind } from '../names/resource-key.js';
import { LEASE, leaseNamespaceOf, type TenantLease } from './tenant-lease.js';

/** `hostApi`, with every namespaced write behind `lease` (see the module doc). */
export function leaseGuarded(hostApi: ClusterApi, lease: TenantLease, tenant: string): ClusterApi {
  let leaseNamespace: string | undefined;
  let read: { hostNamespace: string | undefined; deleting: boolean } | undefined;
  const gate = async (kind: KindRef, namespace: string | undefined): Promise<void> => {
    if (lease.refused) throw lease.refused;
    if (namespace === undefined || sameKind(kind, LEASE)) return;
    await lease.take(leaseNamespace ?? namespace);
  };
  const overrides: Partial<ClusterApi> = {
    async list(kind, options) {
      // A pass lists a namespace other than its host namespace (or any, for a TenantCluster being
      // deleted) only to retire what is in it and then forget it: that listing is made under the
      // lease, so no pass forgets a namespace another pass is still writing to.
      const namespace = options?.namespace;
      if (read && namespace !== undefined && (read.deleting || namespace !== read.hostNamespace))
        await gate(kind, namespace);
      return hostApi.list(kind, options);
    },
    async get(kind, namespace, name) {
      const object = await hostApi.get(kind, namespace, name);
      // The pass reads its TenantCluster first: that read says where the lease lives (later
      // reads see the pass's own records and must not move it).
      if (object && sameKind(kind, TENANT_CLUSTER) && name === tenant && !read) {
        leaseNamespace = leaseNamespaceOf(object);
        const spec = object.spec as { hostNamespace?: unknown } | undefined;
        const hostNamespace = typeof spec?.hostNamespace === 'string' ? spec.hostNamespace : '';
        read = { hostNamespace, deleting: Boolean(object.metadata.deletionTimestamp) };
      }
      return object;
    },
    async create(object: KubeObject, options?: CreateOptions) {
      await gate(object, object.metadata.namespace);
      return hostApi.create(object, options);
    },
    async update(object: KubeObject) {
      await gate(object, object.metadata.namespace);
      return hostApi.update(object);
    },
    async delete(kind, namespace, name, preconditions, options) {
      await gate(kind, namespace);
      return hostApi.delete(kind, namespace, name, preconditions, options);
    },
    async patchStatus(kind, namespace, name, status) {
      if (lease.refused) throw lease.refused;
      return hostApi.patchStatus(kind, namespace, name, status);
    },
    requestCount(): RequestCount {
      const count = hostApi.requestCount();
      return { reads: count.reads - lease.spent.reads, writes: count.writes - lease.spent.writes };
    },
  };
  // The proxy's target is an empty object, not `hostApi`: a client whose methods are read-only
  // own properties (`Object.create` with descriptors, a frozen object) would otherwise break the
  // proxy invariant that such a property reads as its actual value, and every write would throw.
  return new Proxy({} as ClusterApi, {
    get(_target, property) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) {
        return overrides[property as keyof ClusterApi];
      }
      const value: unknown = Reflect.get(hostApi, property);
      return typeof value === 'function' ? value.bind(hostApi) : value;
    },
    has(_target, property) {
      return Reflect.has(hostApi, property);
    },
  });
}
