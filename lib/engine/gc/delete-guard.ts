/**
 * The mass-delete guard. A complete tenant listing that suddenly lacks most of a kind's sources
 * (a wiped tenant, an aggregated API answering 200 with no items) would otherwise garbage-collect
 * most of the tenant's copies in one pass; so would a policy edit whose exclusion matches more
 * than meant (`labelSelector: "sync!=off"` excludes every object not labelled `sync=off`). The
 * guard weighs every deletion GC plans for a kind, vanished sources and excluded ones together:
 * above the threshold the pass deletes none of them, records each as a Skip that says so (what
 * `tenantplane plan` lists before anyone confirms), stays incomplete, and asks for a one-shot
 * confirmation (like Argo CD's prune confirmation): a token naming exactly this set of deletions,
 * so a confirmation never covers a later, different set. Deletions that are their own
 * confirmation (a kind leaving the policy, a host namespace change, a deleted TenantCluster) are
 * `retire.ts`'s and never held, and so is the deletion of a copy whose source the listing shows
 * being deleted (a Deployment scaled from 40 to 0 leaves 40 Terminating tenant Pods): the tenant's
 * own deletion, seen, not an absence the guard exists to doubt. A resumed pass, which does not
 * see every copy, stays inside the guard by {@link resumedPassFallback}.
 */
import { createHash } from 'node:crypto';
import type { PassWarning } from '../../ports/index.js';
import { TenantClusterKeys } from '../names/metadata.js';
import type { DeleteGuardPolicy } from '../policy/policy.js';
import type { GcCandidate } from './candidates.js';

/** What the guard weighs: one kind's planned deletions against its managed copies. */
export interface GuardInput {
  tenant: string;
  kind: string;
  candidates: readonly GcCandidate[];
  /** The tenant's copies of the kind on the host. */
  managedCopies: number;
  guard: DeleteGuardPolicy;
  /** The one-shot confirmations on the TenantCluster. */
  confirmed: ReadonlySet<string>;
}

/** The confirmation token of a set of deletions: stable for the same set, different for any other. */
export function confirmationToken(candidates: readonly GcCandidate[]): string {
  const uids = candidates.map((c) => c.object.metadata.uid ?? c.object.metadata.name).sort();
  return createHash('sha256').update(uids.join(','), 'utf8').digest('hex').slice(0, 10);
}

/** What the guard lets through. */
export interface GuardVerdict {
  allowed: GcCandidate[];
  /** Set when the guard held back deletions: the pass is incomplete for this kind. */
  held?: {
    count: number;
    reason: string;
    warning: PassWarning;
    /** The deletions held, each to be recorded as a Skip saying why. */
    candidates: GcCandidate[];
    /** Why one held deletion was not made, to follow its own GC reason. */
    skipNote: string;
  };
}

/** `15 of the 24 ConfigMap copies of ... whose sources vanished`, `... that the sync policy now excludes`, or both. */
function heldWhat(input: GuardInput, vanished: number, excluded: number): string {
  const { tenant, kind, managedCopies } = input;
  const of = `${vanished + excluded} of the ${managedCopies} ${kind} copies of tenant cluster "${tenant}"`;
  if (excluded === 0) return `${of} whose sources vanished`;
  if (vanished === 0) return `${of} that the sync policy now excludes`;
  return `${of} (${vanished} whose sources vanished, ${excluded} that the sync policy now excludes)`;
}

/**
 * Splits a kind's GC candidates into what may be deleted now and what the guard holds: all of
 * them or none, because every deletion of the kind counts toward the threshold, whether its
 * source vanished or an exclusion now leaves it out; those of sources being deleted (`ending`)
 * are neither counted nor held. `managedCopies` is how many copies of the
 * kind the tenant has in the host namespace.
 */
export function guardDeletes(input: GuardInput): GuardVerdict {
  const { tenant, kind, managedCopies, guard, confirmed } = input;
  // Sources the listing shows being deleted: the tenant's own deletions, never held.
  const ending = input.candidates.filter((c) => c.ending);
  const candidates = input.candidates.filter((c) => !c.ending);
  const limit = (guard.maxPercent / 100) * managedCopies;
  if (managedCopies < guard.minCopies || candidates.length <= limit)
    return { allowed: [...input.candidates] };
  const token = `${kind}:${confirmationToken(candidates)}`;
  if (confirmed.has(token)) return { allowed: [...input.candidates] };
  const count = candidates.length;
  const vanished = candidates.filter((c) => c.vanished).length;
  const excluded = count - vanished;
  const what = heldWhat(input, vanished, excluded);
  const meant =
    excluded === 0
      ? 'if the tenant really lost them'
      : `\`tenantplane plan ${tenant}\` lists them; if ${vanished === 0 ? 'the policy edit is' : 'both are'} meant`;
  const reason = `the pass would delete ${what} (more than ${guard.maxPercent}%), so it deleted none of them; ${meant}, confirm once with: kubectl annotate tenantcluster ${tenant} ${TenantClusterKeys.ConfirmDeletes}=${token} --overwrite`;
  const skipNote = `not deleted: the mass-delete guard holds the ${count} ${kind} deletions of this pass (more than ${guard.maxPercent}% of ${managedCopies} copies) until they are confirmed with ${TenantClusterKeys.ConfirmDeletes}=${token}`;
  return {
    allowed: ending,
    held: {
      count,
      reason,
      warning: { reason: 'MassDeleteGuard', message: reason },
      candidates: [...candidates],
      skipNote,
    },
  };
}

/**
 * The most deletions a resumed pass makes of one kind: at most this many can never trip the
 * guard, whatever the kind's full count of copies (the guard holds only more than `maxPercent`
 * of at least `minCopies` copies, and floor(minCopies x maxPercent / 100) is never more).
 */
export function resumableDeletes(guard: DeleteGuardPolicy): number {
  return Math.floor((guard.minCopies * guard.maxPercent) / 100);
}

/**
 * The resumed path's guard bound: what keeps a resumed pass inside the mass-delete guard. A
 * resumed pass reads only the changed sources and their copies, so it does not know the kind's
 * full count of copies the guard compares with, and `guardDeletes` cannot decide for it. So it
 * may delete at most {@link resumableDeletes} copies, which no full count could hold; with more
 * (`deletes`: the copies whose sources went or left the policy; not those of sources being
 * deleted, which the guard never holds), the kind falls back, in the
 * same pass, to the full path, whose complete listing lets the guard decide.
 * @returns why the resumed pass must fall back to the full pass; `undefined` within the bound.
 */
export function resumedPassFallback(deletes: number, guard: DeleteGuardPolicy): string | undefined {
  if (deletes <= resumableDeletes(guard)) return undefined;
  return `${deletes} copies lost their sources at once; the mass-delete guard needs a full listing`;
}
