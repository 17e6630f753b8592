/**
 * The clients a pass sees while it must hold the tenant's lease (`tenant-lease.ts`): every write
 * on either side takes the lease first, and once another pass was found holding it every write
 * is refused without a request.
 *
 * - The host client (`leaseGuarded`): its first read of the TenantCluster says where the lease
 *   lives (`leaseNamespaceOf` the TenantCluster as the pass first read it: not
 *   `spec.hostNamespace`, which moves). A namespaced write takes the lease there; so does a write
 *   to the TenantCluster itself (finalizer, status): the status of a pass that may not write is
 *   the holder's to write.
 * - The tenant client (`tenantLeaseGuarded`): the realignments of tenant Services, status back,
 *   tenant Nodes and Events, Pod endings and bindings, token requests take the same lease, on
 *   the host, before they are sent.
 *
 * Lease requests are kept out of `requestCount()`, so `requests` stays what the sync cost.
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

/** `hostApi`, with every write behind `lease` (see the module doc). */
export function leaseGuarded(hostApi: ClusterApi, lease: TenantLease, tenant: string): ClusterApi {
  let read: { hostNamespace: string | undefined; deleting: boolean } | undefined;
  const gate = async (kind: KindRef, namespace: string | undefined): Promise<void> => {
    if (lease.refused) throw lease.refused;
    if (sameKind(kind, LEASE)) return;
    // Cluster-scoped (the TenantCluster): where the lease lives, once the pass read it.
    if (namespace === undefined && lease.namespace === undefined) return;
    await lease.take(lease.namespace ?? namespace);
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
        lease.namespace ??= leaseNamespaceOf(object);
        const spec = object.spec as { hostNamespace?: unknown } | undefined;
        const hostNamespace = typeof spec?.hostNamespace === 'string' ? spec.hostNamespace : '';
        read = { hostNamespace, deleting: Boolean(object.metadata.deletionTimestamp) };
      }
      return object;
    },
    ...guardedWrites(hostApi, (kind, namespace) => gate(kind, namespace)),
    requestCount(): RequestCount {
      const count = hostApi.requestCount();
      return { reads: count.reads - lease.spent.reads, writes: count.writes - lease.spent.writes };
    },
  };
  return overriding(hostApi, overrides);
}

/**
 * `tenantApi`, with every write behind `lease`, taken on the host where the lease lives (known
 * once the host client read the TenantCluster): a write the lease refuses is never sent.
 */
export function tenantLeaseGuarded(tenantApi: ClusterApi, lease: TenantLease): ClusterApi {
  const gate = async (): Promise<void> => {
    if (lease.refused) throw lease.refused;
    await lease.take();
  };
  return overriding(tenantApi, guardedWrites(tenantApi, gate));
}

/** Every write method of `api` (those it has), each sent only once `gate` resolved. */
function guardedWrites(
  api: ClusterApi,
  gate: (kind: KindRef, namespace: string | undefined) => Promise<void>,
): Partial<ClusterApi> {
  const writes: Partial<ClusterApi> = {
    async create(object: KubeObject, options?: CreateOptions) {
      // A dry run persists nothing (the realignment asks the tenant whether it can hold an
      // address that way): no lease for it.
      if (!options?.dryRun) await gate(object, object.metadata.namespace);
      return api.create(object, options);
    },
    async update(object: KubeObject) {
      await gate(object, object.metadata.namespace);
      return api.update(object);
    },
    async delete(kind, namespace, name, preconditions, options) {
      await gate(kind, namespace);
      return api.delete(kind, namespace, name, preconditions, options);
    },
    async patchStatus(kind, namespace, name, status) {
      await gate(kind, namespace);
      return api.patchStatus(kind, namespace, name, status);
    },
  };
  const { resize, bind, createToken } = api;
  if (resize) {
    writes.resize = async (object) => {
      await gate(object, object.metadata.namespace);
      return resize.call(api, object);
    };
  }
  if (bind) {
    writes.bind = async (binding) => {
      await gate(binding, binding.metadata.namespace);
      return bind.call(api, binding);
    };
  }
  if (createToken) {
    // A token request persists nothing, but what it is minted for is a write of the pass.
    writes.createToken = async (namespace, serviceAccount, request) => {
      await gate({ apiVersion: 'v1', kind: 'ServiceAccount' }, namespace);
      return createToken.call(api, namespace, serviceAccount, request);
    };
  }
  return writes;
}

/** `api` with `overrides` in place of its own members, every other member bound to it. */
function overriding(api: ClusterApi, overrides: Partial<ClusterApi>): ClusterApi {
  // The proxy's target is an empty object, not `api`: a client whose methods are read-only
  // own properties (`Object.create` with descriptors, a frozen object) would otherwise break the
  // proxy invariant that such a property reads as its actual value, and every write would throw.
  return new Proxy({} as ClusterApi, {
    get(_target, property) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) {
        return overrides[property as keyof ClusterApi];
      }
      const value: unknown = Reflect.get(api, property);
      return typeof value === 'function' ? value.bind(api) : value;
    },
    has(_target, property) {
      return Reflect.has(api, property);
    },
  });
}
