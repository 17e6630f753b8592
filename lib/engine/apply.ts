/**
 * Apply: converge one host object on its desired state. Create-only creation, updates only when
 * the engine-owned content differs (carrying the observed resourceVersion), and a provenance
 * check first, so an object the engine does not own is never clobbered.
 */
import { type ClusterApi, isClusterError, type KubeObject } from '../ports/index.js';
import { updateBody } from './drift.js';
import { describeOccupant, provenance, type SourceIdentity } from './provenance.js';

/** What applying one object should do, decided without any request. */
export type ApplyPlan =
  | { action: 'Create' }
  | { action: 'Update'; body: KubeObject; changed: string[] }
  | { action: 'InSync' }
  | { action: 'Skip'; reason: string };

/**
 * Plans one object against what the host has at its name (`undefined`: nothing). Refuses (Skip)
 * whenever the existing object is not this source's copy.
 */
export function planApply(
  desired: KubeObject,
  observed: KubeObject | undefined,
  source: SourceIdentity,
): ApplyPlan {
  if (!observed) return { action: 'Create' };
  const p = provenance(observed, source);
  if (p.holder !== 'same-source') {
    const { namespace, name } = desired.metadata;
    return {
      action: 'Skip',
      reason: `host name ${namespace}/${name} is occupied by ${describeOccupant(p)}; left it untouched`,
    };
  }
  const { body, changed } = updateBody(desired, observed);
  return changed.length === 0 ? { action: 'InSync' } : { action: 'Update', body, changed };
}

/**
 * What applying one object did: a Decision to record (`decided`; `error` set when its write
 * failed, the decision stands), nothing to do (`in-sync`), or a needed write the budget refused
 * (`deferred`, the next pass does it).
 */
export type ApplyOutcome =
  | { result: 'decided'; action: 'Create' | 'Update' | 'Skip'; reason: string; error?: unknown }
  | { result: 'in-sync' }
  | { result: 'deferred' };

/** Dependencies of {@link applyObject}. */
export interface ApplyContext {
  hostApi: ClusterApi;
  dryRun: boolean;
  /** Asks the pass for one more write; false when the write budget is spent. */
  reserveWrite: () => boolean;
}

/**
 * One write under the budget: a dry run spends the budget too (so it stops where the real pass
 * would) but sends nothing. A failed write is still the decision, with its error.
 */
async function write(
  ctx: ApplyContext,
  action: 'Create' | 'Update',
  reason: string,
  send: () => Promise<unknown>,
): Promise<ApplyOutcome> {
  if (!ctx.reserveWrite()) return { result: 'deferred' };
  if (!ctx.dryRun) {
    try {
      await send();
    } catch (error) {
      return { result: 'decided', action, reason, error };
    }
  }
  return { result: 'decided', action, reason };
}

/** Carries out a plan that needs no create. */
function settle(ctx: ApplyContext, plan: Exclude<ApplyPlan, { action: 'Create' }>) {
  switch (plan.action) {
    case 'InSync':
      return { result: 'in-sync' } as const;
    case 'Skip':
      return { result: 'decided', action: 'Skip', reason: plan.reason } as const;
    case 'Update':
      return write(
        ctx,
        'Update',
        `host copy differs from the tenant source in ${plan.changed.join(', ')}`,
        () => ctx.hostApi.update(plan.body),
      );
  }
}

/**
 * Applies one desired object, given what the host listing of ALL objects of the kind in the host
 * namespace showed at its name (`undefined`: nothing there). An occupied name is decided from the
 * listing without any request (a persistent Skip costs nothing). Creation is create-only; when the
 * create meets an object that appeared after the listing (a race), the object is re-read and its
 * provenance decides: a same-source copy is updated if needed, anything else is a Skip that names
 * the occupant. A dry run trusts the listing and makes no request at all.
 */
export async function applyObject(
  ctx: ApplyContext,
  desired: KubeObject,
  observed: KubeObject | undefined,
  source: SourceIdentity,
): Promise<ApplyOutcome> {
  const plan = planApply(desired, observed, source);
  if (plan.action !== 'Create') return settle(ctx, plan);
  const reason = `no host copy of tenant ${source.kind} ${source.virtualNamespace}/${source.virtualName} yet`;
  const created = await write(ctx, 'Create', reason, () => ctx.hostApi.create(desired));
  if (created.result !== 'decided' || !isClusterError(created.error, 'AlreadyExists'))
    return created;
  // The name was taken after the listing: whoever holds it now decides.
  const { namespace, name } = desired.metadata;
  const existing = await ctx.hostApi.get(desired, namespace, name);
  if (!existing) {
    // Gone again between the create and the read: the next pass creates it.
    const error = new Error('the host name was taken and released again during the create');
    return { result: 'decided', action: 'Create', reason, error };
  }
  const again = planApply(desired, existing, source);
  return again.action === 'Create'
    ? { result: 'decided', action: 'Create', reason }
    : settle(ctx, again);
}
