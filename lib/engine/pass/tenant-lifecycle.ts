/**
 * A tenant's lifecycle around the per-kind sync: before it, the checks and records that make the
 * pass safe (the tenant cluster is the one synced before, every rule's kind is namespaced on the
 * host, the finalizer is in place, every kind and namespace is remembered before the first write
 * into it); then retiring what the policy no longer covers; after it, forgetting what is clean.
 * A TenantCluster being deleted skips the tenant entirely: its copies are removed, then its
 * finalizer, so `kubectl delete tenantcluster` completes once a pass has run.
 */
import { errorMessage, isRecord, jsonEqual } from '../../common/index.js';
import { isClusterError, type KubeObject, TENANT_CLUSTER } from '../../ports/index.js';
import type { PassContext } from '../context/pass-context.js';
import { InvalidPolicyError } from '../errors.js';
import { retireStale, retireTenant } from '../gc/retire.js';
import { prefetchResumes, syncKindByPath } from '../kind/incremental.js';
import type { SyncPolicy } from '../policy/policy.js';
import { compileKindRule } from '../policy/scope.js';
import {
  ensureFinalizer,
  type Remembered,
  readRemembered,
  releaseFinalizer,
  unionKinds,
  writeRemembered,
} from '../tenant/lifecycle.js';
import { checkTenantClusterId, readTenantClusterId } from '../tenant/tenant-identity.js';

/** What the pass does after reporting, for a deleted TenantCluster whose copies are all gone. */
export interface LifecycleOutcome {
  /** Copies of a deleted TenantCluster still on the host. */
  copiesLeft?: number;
  /** Lets the deleted TenantCluster go; call after the status is written. */
  release?: () => Promise<void>;
}

/** A rule whose kind is cluster-scoped on the host could only write outside the host namespace. */
async function checkHostScope(ctx: PassContext, policy: SyncPolicy): Promise<void> {
  const problems: string[] = [];
  for (const [index, rule] of policy.toHost.entries()) {
    let namespaced = true;
    try {
      namespaced = (await ctx.hostApi.namespaced?.(rule)) ?? true;
    } catch (error) {
      // Not served, or discovery failed: the kind's listing reports it, for that kind alone.
      if (!isClusterError(error)) throw error;
    }
    if (!namespaced)
      problems.push(
        `spec.toHost[${index}] ${rule.kind} (${rule.apiVersion}) is cluster-scoped on the host; only namespaced kinds can be synced into a host namespace`,
      );
  }
  if (problems.length > 0) throw new InvalidPolicyError(ctx.tenant, problems);
}

/**
 * One bookkeeping write on the TenantCluster. A failure is an error of the pass, not its end: the
 * sync itself is still safe, and the next pass tries again.
 */
async function bookkeep(
  ctx: PassContext,
  what: string,
  write: () => Promise<boolean>,
): Promise<void> {
  try {
    if (await write()) ctx.bookkeeping.writes += 1;
  } catch (error) {
    ctx.errors.add(TENANT_CLUSTER, new Error(`could not ${what}: ${errorMessage(error)}`));
  }
}

/** The deleted-TenantCluster path: remove every copy; once none is left, release the finalizer. */
async function cleanUp(
  ctx: PassContext,
  tenantCluster: KubeObject,
  policy: SyncPolicy,
  remembered: Remembered,
): Promise<LifecycleOutcome> {
  const { clean, left: copiesLeft } = await retireTenant(ctx, policy, remembered);
  const recorded = isRecord(tenantCluster.status) ? tenantCluster.status.cleanup : undefined;
  if (!ctx.dryRun && !jsonEqual(recorded, { copiesLeft })) {
    // What `tenantplane status` and `kubectl get -o yaml` show while the deletion waits.
    await ctx.hostApi.patchStatus(TENANT_CLUSTER, undefined, ctx.tenant, {
      cleanup: { copiesLeft },
    });
  }
  if (!clean || ctx.dryRun) return { copiesLeft };
  return { copiesLeft, release: () => releaseFinalizer(ctx.hostApi, ctx.tenant) };
}

/**
 * Runs the tenant's part of a pass (see the module doc). Throws the pass-level failures: an
 * unreachable tenant, a different tenant cluster, a rule whose kind is cluster-scoped on the host.
 */
export async function syncTenant(
  ctx: PassContext,
  tenantCluster: KubeObject,
  policy: SyncPolicy,
  readTenantId: () => Promise<string | undefined>,
): Promise<LifecycleOutcome> {
  const remembered = readRemembered(tenantCluster);
  if (tenantCluster.metadata.deletionTimestamp) {
    return cleanUp(ctx, tenantCluster, policy, remembered);
  }
  const id = checkTenantClusterId(
    ctx.tenant,
    tenantCluster,
    remembered.tenantClusterId,
    await readTenantId(),
  );
  await checkHostScope(ctx, policy);
  const recorded: Remembered = {
    syncedKinds: unionKinds(remembered.syncedKinds, policy.toHost),
    hostNamespaces: [...new Set([...remembered.hostNamespaces, policy.hostNamespace])],
  };
  if (id) recorded.tenantClusterId = id;
  if (!ctx.dryRun) {
    await bookkeep(ctx, 'add the host-cleanup finalizer', () =>
      ensureFinalizer(ctx.hostApi, tenantCluster),
    );
    await bookkeep(ctx, 'record the synced kinds and host namespaces in status', () =>
      writeRemembered(ctx.hostApi, ctx.tenant, remembered, recorded),
    );
  }
  const next = await retireStale(ctx, policy, recorded);
  if (!ctx.bounds.isStopped()) prefetchResumes(ctx, policy.toHost);
  for (const rule of policy.toHost) {
    if (ctx.bounds.isStopped()) break;
    await syncKindByPath(ctx, compileKindRule(rule));
  }
  if (!ctx.dryRun) {
    await bookkeep(ctx, 'update the synced kinds and host namespaces in status', () =>
      writeRemembered(ctx.hostApi, ctx.tenant, recorded, next),
    );
  }
  return {};
}

export { readTenantClusterId };
