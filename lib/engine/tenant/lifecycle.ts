/**
 * What the engine remembers about a tenant across passes, so nothing it synced outlives its
 * reason: the kinds it has synced, the host namespaces it has synced into, and the tenant
 * cluster's identity (TenantCluster status), plus its finalizer on the TenantCluster. Every field
 * is written only when it changes, so a steady state stays write-free; and a kind or namespace is
 * recorded before the first write into it, so a crash can never leave copies nobody remembers.
 */
import { jsonEqual, stableJson } from '../../common/index.js';
import {
  type ClusterApi,
  type KindRef,
  type KubeObject,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { TenantClusterKeys } from '../names/metadata.js';
import { type ResourceKey, resourceKey } from '../names/resource-key.js';
import { parseSyncPolicy, type SyncPolicy } from '../policy/policy.js';
import {
  readTenantClusterStatus,
  type SyncedKind,
  type TenantClusterStatus,
  type TenantClusterStatusPatch,
} from './status.js';
import { prunedStatusFields, writeTenantClusterStatus } from './status-pruning.js';

/**
 * The remembered state, as `status.syncedKinds`, `status.hostNamespaces`,
 * `status.tenantClusterId` and `status.fromHostKinds` (the tenant's copies of host classes).
 */
export type Remembered = Pick<
  TenantClusterStatus,
  'syncedKinds' | 'hostNamespaces' | 'tenantClusterId' | 'fromHostKinds'
>;

/** Reads the remembered state from a TenantCluster's status (missing or garbled: nothing). */
export function readRemembered(tenantCluster: KubeObject): Remembered {
  const { syncedKinds, hostNamespaces, tenantClusterId, fromHostKinds } =
    readTenantClusterStatus(tenantCluster);
  const remembered: Remembered = { syncedKinds, hostNamespaces };
  if (tenantClusterId !== undefined) remembered.tenantClusterId = tenantClusterId;
  if (fromHostKinds !== undefined) remembered.fromHostKinds = fromHostKinds;
  return remembered;
}

/**
 * Whether a pass has copies to retire after its kinds: a remembered host namespace the policy
 * moved away from, or a remembered kind the policy no longer names. Such a pass shares its write
 * budget with one more "kind", the retirement (`gc/retire.ts`), which runs last.
 */
export function pendingRetirement(remembered: Remembered, policy: SyncPolicy): boolean {
  const current = new Set(policy.toHost.map(resourceKey));
  return (
    remembered.hostNamespaces.some((namespace) => namespace !== policy.hostNamespace) ||
    remembered.syncedKinds.some((kind) => !current.has(resourceKey(kind)))
  );
}

/** Whether copies wait in a host namespace the policy moved away from. */
export function pendingMove(remembered: Remembered, policy: SyncPolicy): boolean {
  return remembered.hostNamespaces.some((namespace) => namespace !== policy.hostNamespace);
}

/**
 * The union of two kind lists, first list's order first (a kind once: by its resource key). A
 * kind is sensitive when either list says so: sensitivity is what keeps a server's message about
 * its objects (which may quote their data) out of Decisions, Events, status and logs, so it is
 * never lost by merging what is remembered with what the policy says.
 */
export function unionKinds(
  a: readonly (KindRef & { sensitive?: boolean })[],
  b: readonly (KindRef & { sensitive?: boolean })[],
): SyncedKind[] {
  const seen = new Map<ResourceKey, SyncedKind>();
  for (const k of [...a, ...b]) {
    const key = resourceKey(k);
    const kind = seen.get(key) ?? { apiVersion: k.apiVersion, kind: k.kind };
    if (k.sensitive === true) kind.sensitive = true;
    seen.set(key, kind);
  }
  return [...seen.values()];
}

/** The status fields of `next` that differ from `before`; `undefined` when nothing changed. */
export function rememberedPatch(
  before: Remembered,
  next: Remembered,
): TenantClusterStatusPatch | undefined {
  const patch: TenantClusterStatusPatch = {};
  if (!jsonEqual(before.syncedKinds, next.syncedKinds)) patch.syncedKinds = next.syncedKinds;
  if (!jsonEqual(before.hostNamespaces, next.hostNamespaces))
    patch.hostNamespaces = next.hostNamespaces;
  if (before.tenantClusterId !== next.tenantClusterId)
    patch.tenantClusterId = next.tenantClusterId ?? null;
  if (!jsonEqual(before.fromHostKinds ?? [], next.fromHostKinds ?? []))
    patch.fromHostKinds = next.fromHostKinds ?? [];
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** Writes the remembered fields that changed (a merge patch of the status subresource). */
export async function writeRemembered(
  hostApi: ClusterApi,
  tenant: string,
  before: Remembered,
  next: Remembered,
): Promise<boolean> {
  return (await recordRemembered(hostApi, tenant, before, next)).written;
}

/** What one write of the remembered fields did. */
export interface RememberedWrite {
  /** Whether a patch was sent (only when a field changed). */
  written: boolean;
  /** The written fields the host did not keep: its TenantCluster CRD is older than the engine. */
  pruned: string[];
}

/**
 * {@link writeRemembered}, checking what the host stored: a field it dropped is not remembered,
 * so it cannot cover a copy (see `status-pruning.ts`).
 */
export async function recordRemembered(
  hostApi: ClusterApi,
  tenant: string,
  before: Remembered,
  next: Remembered,
): Promise<RememberedWrite> {
  const write = await writeTenantClusterStatus(hostApi, tenant, rememberedPatch(before, next));
  return write
    ? { written: true, pruned: prunedStatusFields(write) }
    : { written: false, pruned: [] };
}

function finalizersOf(tenantCluster: KubeObject): string[] {
  const list = tenantCluster.metadata.finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

/**
 * Adds the host-cleanup finalizer when it is missing (one update, with the resourceVersion read,
 * on the first pass only), so `kubectl delete tenantcluster` waits for a pass to remove the copies.
 */
export async function ensureFinalizer(
  hostApi: ClusterApi,
  tenantCluster: KubeObject,
): Promise<boolean> {
  const finalizers = finalizersOf(tenantCluster);
  if (finalizers.includes(TenantClusterKeys.HostCleanupFinalizer)) return false;
  await hostApi.update({
    ...tenantCluster,
    metadata: {
      ...tenantCluster.metadata,
      finalizers: [...finalizers, TenantClusterKeys.HostCleanupFinalizer],
    },
  });
  return true;
}

/**
 * Removes the host-cleanup finalizer, letting the deleted TenantCluster go. Re-reads it first:
 * the pass's own status writes moved its resourceVersion since the pass read it.
 */
export async function releaseFinalizer(hostApi: ClusterApi, tenant: string): Promise<void> {
  const tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
  if (!tenantCluster) return;
  const finalizers = finalizersOf(tenantCluster);
  if (!finalizers.includes(TenantClusterKeys.HostCleanupFinalizer)) return;
  await hostApi.update({
    ...tenantCluster,
    metadata: {
      ...tenantCluster.metadata,
      finalizers: finalizers.filter((f) => f !== TenantClusterKeys.HostCleanupFinalizer),
    },
  });
}

/**
 * A check that the policy the pass runs under still holds: re-reads the TenantCluster and says
 * why not when `hostNamespace`, `paused` or `toHost` changed, or it is being deleted. GC asks
 * before deleting anything, so it never collects under a policy that changed underneath it.
 */
export function policyRecheck(
  hostApi: ClusterApi,
  tenant: string,
  policy: SyncPolicy,
): () => Promise<string | undefined> {
  const shape = (p: SyncPolicy) => stableJson([p.hostNamespace, p.paused, p.toHost]);
  const expected = shape(policy);
  return async () => {
    const now = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
    if (!now) return `TenantCluster "${tenant}" disappeared during the pass`;
    if (now.metadata.deletionTimestamp) return `TenantCluster "${tenant}" is being deleted`;
    let next: SyncPolicy;
    try {
      next = parseSyncPolicy(tenant, now.spec);
    } catch {
      return `the sync policy of TenantCluster "${tenant}" became invalid during the pass`;
    }
    return shape(next) === expected
      ? undefined
      : `the sync policy of TenantCluster "${tenant}" changed during the pass (hostNamespace, paused or toHost), so garbage collection waits for the next pass`;
  };
}
