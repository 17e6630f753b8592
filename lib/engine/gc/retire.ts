/**
 * Retiring copies that lost their reason to exist, whatever their sources do: copies of a kind
 * that left the policy, copies in a host namespace the tenant no longer uses, and every copy of a
 * TenantCluster being deleted. Each is a deliberate act of the operator, so each delete is made
 * (with uid and resourceVersion preconditions) and explained, never held by the mass-delete guard.
 */
import { plural, runPool } from '../../common/index.js';
import { isClusterError, type KindRef } from '../../ports/index.js';
import { errorText } from '../context/error-text.js';
import type { PassContext } from '../context/pass-context.js';
import { passWrite } from '../context/step-write.js';
import { attempt } from '../errors.js';
import { listHostObjects } from '../listing/host-listing.js';
import { tenantCopySelector } from '../names/copy-selector.js';
import { deleteAsRead } from '../names/preconditions.js';
import { resourceKey } from '../names/resource-key.js';
import { isOurCopy, ourCopySource } from '../names/reverse-mapping.js';
import type { SyncPolicy } from '../policy/policy.js';
import { type Remembered, unionKinds } from '../tenant/lifecycle.js';
import { type MoveHold, moveHold } from './move.js';

/** How far retiring one kind in one namespace got. */
export interface RetireResult {
  /** True when the namespace was listed completely and no copy is left. */
  clean: boolean;
  /** Copies still there (not deleted yet, failed, or terminating). */
  left: number;
}

/**
 * Deletes the tenant's copies of `kind` in `namespace`, each a `Delete` Decision with `why`.
 * A kind the host does not serve has no copies. A Forbidden listing or delete is an error that
 * says what to grant, or what to delete by hand.
 */
export async function retireCopies(
  ctx: PassContext,
  kind: KindRef & { sensitive?: boolean },
  namespace: string,
  why: string,
  /** Copies to keep for now (a move keeps a copy until the new namespace has its own). */
  hold?: MoveHold,
): Promise<RetireResult> {
  const listed = await attempt(() => listHostObjects(ctx.scope, kind, namespace));
  if (!listed.ok) {
    const { error } = listed;
    if (isClusterError(error, 'NotFound')) return { clean: true, left: 0 };
    ctx.ledger.errors.add(kind, new Error(retireHint(ctx, kind, namespace, error)));
    ctx.ledger.errors.kindIncomplete(
      kind,
      `its copies in host namespace ${namespace} could not be listed`,
    );
    return { clean: false, left: 1 };
  }
  const objects = listed.value;
  if (!objects) return { clean: false, left: 1 };
  const owner = { tenant: ctx.scope.tenant, kind: kind.kind };
  const ours = objects.filter((o) => o.metadata.uid && isOurCopy(o, owner));
  const copies = hold ? ours.filter((copy) => !hold.keeps(copy)) : ours;
  let left = ours.length - copies.length;
  if (hold && left > 0)
    ctx.ledger.errors.kindIncomplete(
      kind,
      `${plural(left, 'copy', 'copies')} in host namespace ${namespace} wait until ${left === 1 ? 'its' : 'their'} replacement exists in ${hold.namespace}`,
    );
  let started = 0;
  let failed = 0;
  await runPool(
    copies,
    ctx.scope.bounds.budget.concurrency,
    async (copy) => {
      started += 1;
      if (copy.metadata.deletionTimestamp) {
        ctx.ledger.countTerminating(copy);
        left += 1;
        return;
      }
      const ref = ourCopySource(copy, owner);
      const tenantRef = { namespace: ref?.virtualNamespace ?? '', name: ref?.virtualName ?? '' };
      const hostRef = { namespace, name: copy.metadata.name };
      await passWrite(ctx, {
        whenSpent: () => {
          left += 1;
        },
        send: () => deleteAsRead(ctx.scope.hostApi, kind, copy, namespace),
        decide: (deleted) => {
          let failure: unknown;
          const gone = !deleted.ok && isClusterError(deleted.error, 'NotFound');
          if (!deleted.ok && !gone) {
            const { error } = deleted;
            failure = isClusterError(error, 'Forbidden')
              ? new Error(retireHint(ctx, kind, namespace, error))
              : error;
            left += 1;
            failed += 1;
          }
          const reason = gone ? `${why}; the host copy was already gone` : why;
          return {
            action: 'Delete',
            rule: kind,
            tenantRef,
            hostRef,
            reason,
            error: failure,
            alreadyGone: gone,
          };
        },
      });
    },
    () => ctx.scope.bounds.isStopped(),
  );
  // Copies a bound kept the pool from reaching are left too.
  left += copies.length - started;
  if (failed > 0)
    ctx.ledger.errors.kindIncomplete(
      kind,
      `${failed} of its copies in host namespace ${namespace} could not be removed`,
    );
  return { clean: left === 0 && !ctx.scope.bounds.stopReason, left };
}

/**
 * What to grant or delete by hand when the host refuses to let the pass retire copies. The
 * server's words go through {@link errorText} like every error about an object: a refusal may
 * quote the copy (an admission policy's `messageExpression` over `oldObject`), and for a
 * sensitive kind that would put its data in the Decision, the Event, the status and the logs.
 */
function retireHint(
  ctx: PassContext,
  kind: KindRef & { sensitive?: boolean },
  namespace: string,
  error: unknown,
): string {
  const selector = tenantCopySelector(ctx.scope.tenant, kind.kind);
  return `could not remove ${kind.kind} copies of tenant cluster "${ctx.scope.tenant}" from host namespace ${namespace}: ${errorText(kind, error, ctx.ledger.sensitive)}; grant this tenant's host identity list and delete on ${kind.kind} there, or delete them by hand: kubectl delete ${kind.kind.toLowerCase()} -n ${namespace} -l ${selector}`;
}

/**
 * Retires what the policy no longer covers: every remembered kind in every host namespace the
 * tenant left, and kinds that left `toHost` in the current one. It runs after the kinds, with a
 * share of the write budget like a kind (the last one: `PassBounds.beginKind`), so a move creates
 * in the new namespace before it deletes from the old, and a copy in the old namespace goes only
 * once its replacement exists in the new one or its source no longer wants one (`move.ts`).
 * Returns what is still to be remembered: a namespace or kind is forgotten only once it is clean.
 */
export async function retireStale(
  ctx: PassContext,
  policy: SyncPolicy,
  remembered: Remembered,
): Promise<Remembered> {
  const { bounds } = ctx.scope;
  const current = new Set(policy.toHost.map(resourceKey));
  const allKinds = unionKinds(remembered.syncedKinds, policy.toHost);
  const kindCount = ctx.memory.convergence.kindCount;
  bounds.beginKind(kindCount - 1, kindCount);
  // In the order remembered: the first is where the tenant's lease lives (`leaseNamespaceOf`), so
  // it stays first until it is forgotten, which only a pass holding the lease there does, once
  // every kind in it was listed clean.
  const keptNamespaces: string[] = [];
  for (const namespace of remembered.hostNamespaces) {
    if (namespace === policy.hostNamespace) {
      keptNamespaces.push(namespace);
      continue;
    }
    let clean = !bounds.isStopped();
    for (const kind of allKinds) {
      if (bounds.isStopped()) break;
      const why = `the host namespace of tenant cluster "${ctx.scope.tenant}" changed from ${namespace} to ${policy.hostNamespace}`;
      const hold = current.has(resourceKey(kind)) ? await moveHold(ctx, kind) : undefined;
      clean = (await retireCopies(ctx, kind, namespace, why, hold)).clean && clean;
    }
    if (!clean) keptNamespaces.push(namespace);
  }
  if (!keptNamespaces.includes(policy.hostNamespace)) keptNamespaces.push(policy.hostNamespace);
  const keptKinds: KindRef[] = [];
  for (const kind of remembered.syncedKinds) {
    if (current.has(resourceKey(kind))) continue;
    const why = `kind ${kind.kind} (${kind.apiVersion}) left the sync policy of tenant cluster "${ctx.scope.tenant}"`;
    let clean = !bounds.isStopped();
    for (const namespace of keptNamespaces) {
      if (bounds.isStopped()) break;
      clean = (await retireCopies(ctx, kind, namespace, why)).clean && clean;
    }
    if (!clean) keptKinds.push(kind);
  }
  bounds.endKind();
  const next: Remembered = {
    syncedKinds: unionKinds(policy.toHost, keptKinds),
    hostNamespaces: keptNamespaces,
  };
  if (remembered.tenantClusterId) next.tenantClusterId = remembered.tenantClusterId;
  // The tenant's class copies are not this step's: kept as they were (`classes/`).
  if (remembered.fromHostKinds) next.fromHostKinds = remembered.fromHostKinds;
  return next;
}

/**
 * Removes every copy of a TenantCluster being deleted: every kind it ever synced, in every host
 * namespace it remembers. Returns how many copies are known to be left, and whether every
 * namespace was listed and emptied (only then may the finalizer go).
 */
export async function retireTenant(
  ctx: PassContext,
  policy: SyncPolicy,
  remembered: Remembered,
): Promise<{ clean: boolean; left: number }> {
  const kinds = unionKinds(remembered.syncedKinds, policy.toHost);
  const namespaces = [...new Set([policy.hostNamespace, ...remembered.hostNamespaces])];
  const why = `TenantCluster "${ctx.scope.tenant}" is being deleted`;
  let left = 0;
  let clean = true;
  for (const namespace of namespaces) {
    for (const kind of kinds) {
      const result = await retireCopies(ctx, kind, namespace, why);
      left += result.left;
      clean &&= result.clean;
    }
  }
  return { clean, left };
}
