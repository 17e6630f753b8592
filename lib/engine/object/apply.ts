/**
 * Apply: converge one host object on its desired state. Create-only creation, updates only when
 * the engine-owned content differs (carrying the observed resourceVersion) and the difference is
 * not the host's recorded rewrite of the same desired object (`write-record.ts`), a replacement
 * (delete, then create) when an update can never succeed (`replace.ts`), and a provenance check
 * first, so an object the engine does not own is never clobbered.
 */
import { isRecord } from '../../common/index.js';
import { type ClusterApi, isClusterError, type KubeObject } from '../../ports/index.js';
import { budgetedWrite, passedOn, type WriteBudget } from '../bounds/budgeted-write.js';
import { deleteAsRead } from '../names/preconditions.js';
import { describeOccupant, provenance } from '../names/provenance.js';
import type { TenantSource } from '../names/reverse-mapping.js';
import { type CreateAsk, GENERIC_WRITES, type WriteTraits } from './kind-traits.js';
import { immutableFields, replaceCopy, replacementCause, sourceRecreated } from './replace.js';
import { resizeThenUpdate } from './resize.js';
import { createBody, planUpdate, recordOnly } from './write-record.js';

/** What applying one object should do, decided without any request. */
export type ApplyPlan =
  | { action: 'Create' }
  | {
      action: 'Update';
      body: KubeObject;
      changed: string[];
      recordOnly?: boolean;
      /** The in-place resize sent before the update (a Pod's resources). */
      resize?: KubeObject;
    }
  | { action: 'Replace'; fields: string[]; recreated: boolean }
  | { action: 'InSync' }
  | { action: 'Skip'; reason: string };

/** What a pass knows about an object from earlier passes (see `retry-backoff.ts`). */
export interface ApplyHints {
  /** Fields a previous pass found immutable for this very desired object: replace at once. */
  replace?: string[];
}

/**
 * Plans one object against what the host has at its name (`undefined`: nothing). Refuses (Skip)
 * whenever the existing object is not this source's copy; replaces this source's copy when an
 * update cannot express the change (an immutable field, predicted or learned from a refusal).
 */
export function planApply(
  desired: KubeObject,
  observed: KubeObject | undefined,
  source: TenantSource,
  hints: ApplyHints = {},
  traits: WriteTraits = GENERIC_WRITES,
): ApplyPlan {
  if (!observed) return { action: 'Create' };
  const p = provenance(observed, source);
  if (p.holder !== 'same-source') {
    const { namespace, name } = desired.metadata;
    return {
      action: 'Skip',
      reason: `host name ${namespace}/${name} is occupied by ${describeOccupant(p, source)}; left it untouched`,
    };
  }
  const update = planUpdate(desired, observed, traits);
  if (update.action === 'InSync') return { action: 'InSync' };
  if (update.action === 'Immutable') {
    // A tenant object recreated with another spec is what the Skip's reason asks for: the copy
    // of the old one goes, the new one is created.
    const recreated = sourceRecreated(desired, observed);
    return recreated
      ? { action: 'Replace', fields: update.fields, recreated }
      : { action: 'Skip', reason: update.reason };
  }
  const { body, changed } = update;
  const fields = hints.replace ?? traits.fixedFields?.(desired, observed) ?? [];
  if (fields.length === 0) {
    return update.resize
      ? { action: 'Update', body, changed, resize: update.resize }
      : { action: 'Update', body, changed };
  }
  // Made from this very desired object: the difference is the host's rewrite of an immutable
  // field, which a replacement would only repeat. Record it instead (an update that keeps them).
  if (update.sameDesired) {
    return {
      action: 'Update',
      body: recordOnly(update, observed, fields),
      changed,
      recordOnly: true,
    };
  }
  return { action: 'Replace', fields, recreated: sourceRecreated(desired, observed) };
}

/** One write of a replacement, as its Decision records it. */
export interface DecidedWrite {
  action: 'Delete' | 'Create';
  reason: string;
  error?: unknown;
  /** The delete found the copy gone already. */
  alreadyGone?: boolean;
}

/**
 * What applying one object did: a Decision to record (`decided`; `error` set when its write
 * failed, the decision stands; `replaceNeeded` when the host refused the update as immutable and
 * the budget left no room to replace the copy in this pass), the two Decisions of a replacement
 * (`replaced`), nothing to do (`in-sync`), or a needed write the budget refused (`deferred`, the
 * next pass does it).
 */
export type ApplyOutcome =
  | {
      result: 'decided';
      action: 'Create' | 'Update' | 'Skip';
      reason: string;
      error?: unknown;
      replaceNeeded?: string[];
      /** The host stored the write otherwise than written: a full pass would write again. */
      unsettled?: true;
    }
  | { result: 'replaced'; decisions: DecidedWrite[] }
  | { result: 'in-sync' }
  | { result: 'deferred' };

/** Dependencies of {@link applyObject}. */
export interface ApplyContext {
  /** In a dry run, a client that answers writes without sending them (`context/dry-run.ts`). */
  hostApi: ClusterApi;
  /** The pass's write budget, each write of apply taken from it (`bounds/budgeted-write.ts`). */
  budget: WriteBudget;
  /** How the kind's copies are written (`kinds/registry.ts`). */
  traits: WriteTraits;
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
  desired: KubeObject,
  writes = 1,
): Promise<ApplyOutcome> {
  return budgetedWrite<unknown, ApplyOutcome>(ctx.budget, {
    writes,
    whenSpent: () => ({ result: 'deferred' }),
    send, // a pass-level failure (the lease refused) goes on up
    decide: (sent) => {
      if (!sent.ok) return { result: 'decided', action, reason, error: sent.error };
      return settledBy(sent.value, desired, ctx.traits)
        ? { result: 'decided', action, reason }
        : { result: 'decided', action, reason, unsettled: true };
    },
  });
}

/** Whether the copy as the host stored it is one a full pass would leave as it is. */
function settledBy(stored: unknown, desired: KubeObject, traits: WriteTraits): boolean {
  if (!isRecord(stored) || !isRecord(stored.metadata)) return false;
  return planUpdate(desired, stored as KubeObject, traits).action === 'InSync';
}

/** Deletes (uid + resourceVersion preconditions) and recreates a copy; two Decisions. */
async function replace(
  ctx: ApplyContext,
  desired: KubeObject,
  observed: KubeObject,
  cause: string,
): Promise<ApplyOutcome> {
  const outcome = await replaceCopy(
    {
      delete: (copy) => deleteAsRead(ctx.hostApi, copy, copy),
      create: () => ctx.hostApi.create(createBody(desired, ctx.traits)),
    },
    observed,
    cause,
  );
  const decisions: DecidedWrite[] = [{ action: 'Delete', ...outcome.deleted }];
  if (outcome.created) decisions.push({ action: 'Create', ...outcome.created });
  return { result: 'replaced', decisions };
}

/** An update; when the host refuses it as immutable, the copy is replaced if the budget allows. */
async function update(
  ctx: ApplyContext,
  plan: Extract<ApplyPlan, { action: 'Update' }>,
  desired: KubeObject,
  observed: KubeObject,
  source: TenantSource,
): Promise<ApplyOutcome> {
  const reason = plan.recordOnly
    ? `the host stores ${plan.changed.join(', ')} of the copy differently from what was written and refuses to change it; recorded as the host's own, so later passes leave it`
    : `host copy differs from the tenant source in ${plan.changed.join(', ')}`;
  const { resize } = plan;
  const send = resize
    ? () => resizeThenUpdate(ctx.hostApi, resize, plan.body)
    : () => ctx.hostApi.update(plan.body);
  // A resize is a second write, reserved with the update's.
  const outcome = await write(ctx, 'Update', reason, send, desired, resize ? 2 : 1);
  if (outcome.result !== 'decided') return outcome;
  const fields = immutableFields(outcome.error);
  if (!fields) return outcome;
  const cause = replacementCause(source, fields, sourceRecreated(desired, observed));
  return budgetedWrite<ApplyOutcome, ApplyOutcome>(ctx.budget, {
    writes: 2,
    whenSpent: () => ({ ...outcome, replaceNeeded: fields }),
    send: () => replace(ctx, desired, observed, `the host refused the update because ${cause}`),
    decide: passedOn,
  });
}

/** Carries out a plan that needs no create. */
function settle(
  ctx: ApplyContext,
  plan: Exclude<ApplyPlan, { action: 'Create' }>,
  desired: KubeObject,
  observed: KubeObject,
  source: TenantSource,
): Promise<ApplyOutcome> | ApplyOutcome {
  switch (plan.action) {
    case 'InSync':
      return { result: 'in-sync' };
    case 'Skip':
      return { result: 'decided', action: 'Skip', reason: plan.reason };
    case 'Update':
      return update(ctx, plan, desired, observed, source);
    case 'Replace':
      return budgetedWrite<ApplyOutcome, ApplyOutcome>(ctx.budget, {
        writes: 2,
        whenSpent: () => ({ result: 'deferred' }),
        send: () =>
          replace(ctx, desired, observed, replacementCause(source, plan.fields, plan.recreated)),
        decide: passedOn,
      });
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
  source: TenantSource,
  hints: ApplyHints = {},
  ask?: CreateAsk,
): Promise<ApplyOutcome> {
  const plan = planApply(desired, observed, source, hints, ctx.traits);
  if (plan.action !== 'Create') return settle(ctx, plan, desired, observed as KubeObject, source);
  const why = ask?.why === undefined ? '' : `; the host allocates its address: ${ask.why}`;
  const reason = `no host copy of tenant ${source.kind} ${source.virtualNamespace}/${source.virtualName} yet${why}`;
  const body = createBody(desired, ctx.traits);
  const asked = ask?.spec ? { ...body, spec: { ...(body.spec as object), ...ask.spec } } : body;
  let created = await write(ctx, 'Create', reason, () => ctx.hostApi.create(asked), desired);
  const refused = created.result === 'decided' ? ask?.refused(created.error) : undefined;
  if (ask?.spec && refused !== undefined) {
    // The host holds the asked address (or cannot): it allocates its own, and the tenant is
    // realigned to it after the path (the kind's turn).
    const again = `${reason}; the host refused the tenant's address (${refused}), so it allocated its own`;
    created = await write(ctx, 'Create', again, () => ctx.hostApi.create(body), desired);
  }
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
  const again = planApply(desired, existing, source, hints, ctx.traits);
  return again.action === 'Create'
    ? { result: 'decided', action: 'Create', reason }
    : settle(ctx, again, desired, existing, source);
}
