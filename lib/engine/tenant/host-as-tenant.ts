/**
 * The tenant cluster must not be the host. A tenant kubeconfig that reaches the host (a host
 * kubeconfig pasted as the tenant's) would copy every host object the pass can read, other
 * tenants' copies included, into this tenant's host namespace, and copy those copies at the next
 * pass. Refused before the first write, on two kinds of evidence:
 * - the two kubeconfigs name the same API server (every pass; it costs nothing);
 * - the tenant cluster lists objects in this tenant's host namespace (where its own copies live)
 *   or copies of this very tenant, read with one namespaced LIST of `limit: 1` per kind. Asked
 *   when the tenant cluster's identity is new (no identity recorded, or a new one accepted),
 *   because a steady pass must not pay for it; a host URL that differs from the host kubeconfig's
 *   (a proxy, an IP instead of a name) is caught there, before the first pass writes anything.
 */
import { errorMessage } from '../../common/index.js';
import { type ClusterApi, isClusterError } from '../../ports/index.js';
import { PassError, TenantClusterIsHostError } from '../errors.js';
import { tenantCopySelector } from '../names/copy-selector.js';
import type { SyncPolicy } from '../policy/policy.js';

/** A server URL as a comparable key: scheme, lowercase host, explicit port, no trailing path slash. */
export function serverKey(server: string): string {
  try {
    const url = new URL(server);
    const port = url.port || (url.protocol === 'http:' ? '80' : '443');
    return `${url.protocol}//${url.hostname.toLowerCase()}:${port}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return server.trim().replace(/\/+$/, '');
  }
}

export interface HostAsTenantInput {
  tenant: string;
  policy: SyncPolicy;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  /** Whether the tenant cluster's identity is new this pass: then its listing is probed too. */
  newIdentity: boolean;
}

/** One object of `rule` the tenant lists with `options`, or undefined (a failure is the kind's). */
async function firstListed(
  tenantApi: ClusterApi,
  rule: SyncPolicy['toHost'][number],
  options: { namespace?: string; labelSelector?: string },
): Promise<string | undefined> {
  try {
    const page = await tenantApi.list(rule, { ...options, limit: 1 });
    const item = page.items[0];
    // A cluster-scoped kind ignores the namespace (and is an invalid rule, said after this).
    if (!item?.metadata.namespace) return undefined;
    if (options.namespace !== undefined && item.metadata.namespace !== options.namespace)
      return undefined;
    return `${rule.kind} ${item.metadata.namespace}/${item.metadata.name}`;
  } catch (error) {
    // Not served or forbidden: the kind's own listing reports it, for that kind alone.
    if (isClusterError(error) && !isClusterError(error, 'Transport')) return undefined;
    throw new PassError(
      `could not check that the tenant cluster is not the host: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/**
 * Throws {@link TenantClusterIsHostError} when the tenant kubeconfig reaches the host cluster;
 * makes no write, and at most two LISTs per kind (only when `newIdentity`).
 */
export async function refuseHostAsTenant(input: HostAsTenantInput): Promise<void> {
  const { tenant, policy, tenantApi, hostApi } = input;
  if (
    tenantApi.server !== undefined &&
    hostApi.server !== undefined &&
    serverKey(tenantApi.server) === serverKey(hostApi.server)
  )
    throw new TenantClusterIsHostError(
      tenant,
      `both kubeconfigs name the API server ${serverKey(hostApi.server)}`,
    );
  if (!input.newIdentity) return;
  const ownCopies = tenantCopySelector(tenant);
  for (const rule of policy.toHost) {
    const inHostNamespace = await firstListed(tenantApi, rule, { namespace: policy.hostNamespace });
    if (inHostNamespace)
      throw new TenantClusterIsHostError(
        tenant,
        `the tenant cluster lists ${inHostNamespace}, in this tenant's host namespace ${policy.hostNamespace}`,
      );
    const copy = await firstListed(tenantApi, rule, { labelSelector: ownCopies });
    if (copy)
      throw new TenantClusterIsHostError(
        tenant,
        `the tenant cluster lists ${copy}, labelled as a host copy of this very tenant (${ownCopies}); if it is a tenant object, not a host copy, remove those labels from it and the next pass goes on`,
      );
  }
}
