/**
 * A tenant's lifecycle around the per-kind sync: before it, the checks and records that make the
 * pass safe (the tenant cluster is the one synced before, every rule's kind is namespaced on the
 * host, the finalizer is in place, every kind and namespace is remembered before the first write
 * into it, and a pass that cannot record them writes no copy); then retiring what the policy no longer covers; after it, forgetting what is clean.
 * A TenantCluster being deleted skips the tenant entirely: its copies are removed, then its
 * finalizer, so `kubectl delete tenantcluster` completes once a pass has run.
 */
import { errorMessage, jsonEqual } from '../../common/index.js';
import {
  type ClusterApi,
  isClusterError,
  type KubeObject,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { GATEWAY } from '../classes/gateway-copy.js';
import type { PassContext } from '../context/pass-context.js';
import { InvalidPolicyError } from '../errors.js';
import { retireTenant } from '../gc/retire.js';
import { fromHostKinds } from '../policy/from-host.js';
import type { SyncPolicy } from '../policy/policy.js';
import { isolationOf } from '../policy/workloads.js';
import { refuseHostAsTenant } from '../tenant/host-as-tenant.js';
import {
  ensureFinalizer,
  type Remembered,
  recordRemembered,
  releaseFinalizer,
  unionKinds,
  writeRemembered,
} from '../tenant/lifecycle.js';
import { patchTenantClusterStatus, readTenantClusterStatus } from '../tenant/status.js';
import { coversCopies, outdatedCrdMessage } from '../tenant/status-pruning.js';
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
      namespaced = (await ctx.scope.hostApi.namespaced?.(rule)) ?? true;
    } catch (error) {
      // Not served, or discovery failed: the kind's listing reports it, for that kind alone.
      if (!isClusterError(error)) throw error;
    }
    if (!namespaced)
      problems.push(
        `spec.toHost[${index}] ${rule.kind} (${rule.apiVersion}) is cluster-scoped on the host; only namespaced kinds can be synced into a host namespace`,
      );
  }
  if (problems.length > 0) throw new InvalidPolicyError(ctx.scope.tenant, problems);
}

/**
 * One bookkeeping write on the TenantCluster. A failure is an error of the pass, naming what could
 * not be recorded; whether the pass goes on is the caller's call.
 * @returns whether the write failed.
 */
async function bookkeep(
  ctx: PassContext,
  what: string,
  write: () => Promise<boolean>,
): Promise<boolean> {
  try {
    if (await write()) ctx.ledger.bookkept();
    return false;
  } catch (error) {
    ctx.ledger.errors.add(TENANT_CLUSTER, new Error(`could not ${what}: ${errorMessage(error)}`));
    return true;
  }
}

/** Why a copy written now would not be covered: the pass stops before its first copy write. */
const UNCOVERED =
  'so no copy was written (one written now could outlive a `kubectl delete tenantcluster` or a change of the sync policy)';

/**
 * The finalizer and the remembered kinds and namespaces, before any copy write. Either one not
 * recorded (refused: a 409, RBAC, an admission policy; or dropped by a host CRD older than the
 * engine) halts the pass with the reason, and is an error naming what.
 * @returns whether the copies are covered, so the pass may write.
 */
async function recordCoverage(
  ctx: PassContext,
  tenantCluster: KubeObject,
  remembered: Remembered,
  recorded: Remembered,
): Promise<boolean> {
  const { hostApi, tenant, bounds } = ctx.scope;
  const reasons: string[] = [];
  const finalizer = () => ensureFinalizer(hostApi, tenantCluster);
  if (await bookkeep(ctx, 'add the host-cleanup finalizer', finalizer))
    reasons.push(`the host-cleanup finalizer could not be added to TenantCluster "${tenant}"`);
  let pruned: string[] = [];
  const remember = async () => {
    const write = await recordRemembered(hostApi, tenant, remembered, recorded);
    pruned = write.pruned;
    return write.written;
  };
  if (await bookkeep(ctx, 'record the synced kinds and host namespaces in status', remember))
    reasons.push(
      `the synced kinds and host namespaces could not be recorded in the status of TenantCluster "${tenant}"`,
    );
  const uncovered = pruned.filter(coversCopies);
  if (uncovered.length > 0) {
    ctx.ledger.errors.add(TENANT_CLUSTER, new Error(outdatedCrdMessage(pruned)));
    reasons.push(
      `the TenantCluster CRD on the host is out of date (it dropped ${uncovered.join(', ')})`,
    );
  } else if (pruned.length > 0) {
    ctx.ledger.warn({ reason: 'TenantClusterCrdOutdated', message: outdatedCrdMessage(pruned) });
  }
  if (reasons.length === 0) return true;
  bounds.halt(`${reasons.join(', and ')}, ${UNCOVERED}`);
  return false;
}

/** The deleted-TenantCluster path: remove every copy; once none is left, release the finalizer. */
export async function cleanUp(
  ctx: PassContext,
  tenantCluster: KubeObject,
  remembered: Remembered,
): Promise<LifecycleOutcome> {
  const { clean, left: copiesLeft } = await retireTenant(ctx, ctx.scope.policy, remembered);
  const recorded = readTenantClusterStatus(tenantCluster).cleanup;
  if (!jsonEqual(recorded, { copiesLeft })) {
    // What `tenantplane status` and `kubectl get -o yaml` show while the deletion waits.
    await patchTenantClusterStatus(ctx.scope.hostApi, ctx.scope.tenant, {
      cleanup: { copiesLeft },
    });
  }
  if (!clean) return { copiesLeft };
  return { copiesLeft, release: () => releaseFinalizer(ctx.scope.hostApi, ctx.scope.tenant) };
}

/**
 * Before the kinds: the tenant cluster is the one synced before and not the host itself, every
 * rule's kind is namespaced on the host, the finalizer is in place, and every kind and namespace is remembered before the first write into
 * it. Throws the pass-level failures (an unreachable tenant, a different tenant cluster, a tenant
 * kubeconfig that reaches the host, a rule whose kind is cluster-scoped on the host).
 * @returns what is remembered now, for {@link rememberSynced} after the kinds; `undefined` when
 * the finalizer or the remembered state could not be recorded: the pass is halted and writes no
 * copy (see {@link recordCoverage}).
 */
export async function prepareTenant(
  ctx: PassContext,
  tenantCluster: KubeObject,
  remembered: Remembered,
  tenantApi: ClusterApi,
): Promise<Remembered | undefined> {
  const { policy } = ctx.scope;
  const observed = await readTenantClusterId(tenantApi);
  // Before the identity check: a host kubeconfig pasted as the tenant's is that, not just a
  // different tenant cluster.
  await refuseHostAsTenant({
    tenant: ctx.scope.tenant,
    policy,
    tenantApi,
    hostApi: ctx.scope.hostApi,
    newIdentity: observed !== undefined && observed !== remembered.tenantClusterId,
  });
  const id = checkTenantClusterId(
    ctx.scope.tenant,
    tenantCluster,
    remembered.tenantClusterId,
    observed,
  );
  ctx.memory.resume.identify(id);
  await checkHostScope(ctx, policy);
  const recorded: Remembered = {
    syncedKinds: unionKinds(remembered.syncedKinds, policy.toHost),
    hostNamespaces: [...new Set([...remembered.hostNamespaces, policy.hostNamespace])],
  };
  if (id) recorded.tenantClusterId = id;
  // Class kinds too, before the first copy of a host class (or Gateway) is written into the tenant.
  const classKinds = new Set([
    ...(remembered.fromHostKinds ?? []),
    ...fromHostKinds(policy.fromHost),
    ...(isolationOf(policy.workloads).gateways.parents.length > 0 ? [GATEWAY.kind] : []),
  ]);
  if (classKinds.size > 0) recorded.fromHostKinds = [...classKinds];
  return (await recordCoverage(ctx, tenantCluster, remembered, recorded)) ? recorded : undefined;
}

/** After the kinds: forget the kinds and namespaces that retiring left clean. */
export async function rememberSynced(
  ctx: PassContext,
  recorded: Remembered,
  next: Remembered,
): Promise<void> {
  await bookkeep(ctx, 'update the synced kinds and host namespaces in status', () =>
    writeRemembered(ctx.scope.hostApi, ctx.scope.tenant, recorded, next),
  );
}
