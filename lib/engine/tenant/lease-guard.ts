/**
 * The host client as a pass sees it while it must hold the tenant's lease (`tenant-lease.ts`):
 * its first write into a namespace takes the lease (in the host namespace its TenantCluster
 * names), and once another pass was found holding it every write is refused without a request.
 * Writes to the TenantCluster itself (cluster-scoped: finalizer, status) need no lease. Lease
 * requests are kept out of `requestCount()`, so `requests` stays what the sync cost.
 */
import {
  type ClusterApi,
  type KindRef,
  type KubeObject,
  type RequestCount,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { sameKind } from '../names/resource-key.js';
import { LEASE, type TenantLease } from './tenant-lease.js';

/** `hostApi`, with every namespaced write behind `lease` (see the module doc). */
export function leaseGuarded(hostApi: ClusterApi, lease: TenantLease, tenant: string): ClusterApi {
  let hostNamespace: string | undefined;
  const gate = async (kind: KindRef, namespace: string | undefined): Promise<void> => {
    if (lease.refused) throw lease.refused;
    if (namespace === undefined || sameKind(kind, LEASE)) return;
    await lease.take(hostNamespace ?? namespace);
  };
  const overrides: Partial<ClusterApi> = {
    async get(kind, namespace, name) {
      const object = await hostApi.get(kind, namespace, name);
      // The pass reads its TenantCluster first: its host namespace is where the lease lives.
      if (object && sameKind(kind, TENANT_CLUSTER) && name === tenant) {
        const spec = object.spec as { hostNamespace?: unknown } | undefined;
        if (typeof spec?.hostNamespace === 'string') hostNamespace = spec.hostNamespace;
      }
      return object;
    },
    async create(object: KubeObject) {
      await gate(object, object.metadata.namespace);
      return hostApi.create(object);
    },
    async update(object: KubeObject) {
      await gate(object, object.metadata.namespace);
      return hostApi.update(object);
    },
    async delete(kind, namespace, name, preconditions) {
      await gate(kind, namespace);
      return hostApi.delete(kind, namespace, name, preconditions);
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
