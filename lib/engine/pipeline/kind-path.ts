/**
 * A kind's path, picked from its resume point: the incremental path resumes a watch from the stored resourceVersion, take in only the
 * tenant objects that changed, read just their host names (GET, no host LIST), apply them and
 * delete the copies of sources that went (each with uid and resourceVersion preconditions,
 * through GC's own code), deciding exactly what a full pass would. Anything that could make it
 * decide otherwise falls back, in the same pass, to the full two-sided path of `sync-kind.ts`:
 * a resume that failed, a window of changes past its budget of objects or bytes (the watch holds
 * only the latest change of each object in the rule's static scope, so changes in excluded
 * namespaces cost no host read: `listing/change-window.ts`), or more deletions than the
 * mass-delete guard could leave alone (the guard needs the full count of copies, which only a
 * full listing has: the bound is `resumedPassFallback` in `gc/delete-guard.ts`).
 */
import { runPool } from '../../common/index.js';
import { type KubeObject, type WatchChange, withRequestDeadline } from '../../ports/index.js';
import { workDeadline } from '../bounds/deadlines.js';
import type { PassContext } from '../context/pass-context.js';
import { planGc } from '../gc/candidates.js';
import { resumedPassFallback } from '../gc/delete-guard.js';
import { collectGarbage } from '../gc/gc.js';
import { type KindTurn, kindModule } from '../kinds/registry.js';
import { hostName } from '../names/naming.js';
import { sourceKey } from '../names/provenance.js';
import { ourCopySource } from '../names/reverse-mapping.js';
import type { KindRule } from '../policy/policy.js';
import type { CompiledKindRule } from '../policy/scope.js';
import type { ResumePoint } from '../tenant/status.js';
import { KindWriter } from './kind-writes.js';
import { syncKind } from './sync-kind.js';
import { readFacts, TenantView, UNREAD } from './tenant-view.js';

/** The last change of each source, by `<namespace>/<name>` (a recreation ends as ADDED). */
export function latestChanges(changes: readonly WatchChange[]): Map<string, WatchChange> {
  const latest = new Map<string, WatchChange>();
  for (const change of changes) {
    const { namespace, name } = change.object.metadata;
    const key = sourceKey(namespace ?? '', name);
    latest.delete(key);
    latest.set(key, change);
  }
  return latest;
}

/**
 * Opens the resumed watch of every kind that will resume, all at once (the kinds are then synced
 * one after the other and each takes its own watch's outcome), and what each such kind's module
 * reads ahead with it (a resumed Pod kind's host Pods).
 */
export function prefetchResumes(ctx: PassContext, rules: readonly KindRule[]): void {
  for (const rule of rules) {
    const plan = ctx.memory.resume.plan(rule);
    if (!('resume' in plan)) continue;
    const { resourceVersion } = plan.resume;
    void withRequestDeadline(workDeadline(ctx.scope.bounds.budget), async () =>
      ctx.scope.tenantLister.prefetch(rule, resourceVersion),
    );
    // Read while the watches wait for their bookmarks.
    kindModule(rule).prefetch?.(ctx, rule, plan.resume);
  }
}

/** A mark of the kind's trouble so far; the returned check says whether any came since. */
export function markTrouble(ctx: PassContext): () => boolean {
  const before = kindTrouble(ctx);
  return () => !untroubled(before, kindTrouble(ctx));
}

/** Writes decided so far (tried or not): those of one kind, taken around its sync. */
export function decidedWrites(ctx: PassContext): number {
  const { counts, failed } = ctx.ledger.recorder;
  const { Create, Update, Delete } = counts;
  return Create + Update + Delete + failed.Create + failed.Update + failed.Delete;
}

/**
 * Syncs one kind on the path its resume point allows (`resume-point.ts`): resumed when the
 * watch resumes and nothing forces a full pass, else full; records the path and the next point.
 * `turn` (the kind module's) hears what the path reads and hands it host copies read ahead.
 */
export async function syncKindByPath(
  ctx: PassContext,
  compiled: CompiledKindRule,
  turn?: KindTurn,
): Promise<void> {
  const { rule } = compiled;
  const { observe, listedHost, hostFacts } = turn ?? {};
  const book = ctx.memory.resume;
  const plan = book.plan(rule);
  const before = kindTrouble(ctx);
  if ('resume' in plan) {
    const outcome = await withRequestDeadline(workDeadline(ctx.scope.bounds.budget), () =>
      resumeKind(ctx, compiled, plan.resume, turn),
    );
    if ('stalled' in outcome) {
      // Nothing was synced, so the kind did not resume (ResumeHit counts only kinds that did);
      // the next pass lists it in full.
      book.took(rule, 'full', outcome.stalled);
      book.clear(rule);
      return;
    }
    if ('resourceVersion' in outcome) {
      book.took(rule, 'resumed');
      if (untroubled(before, kindTrouble(ctx))) {
        book.resumed(rule, plan.resume, outcome.resourceVersion, outcome.changes);
      } else book.clear(rule);
      return;
    }
    book.failed();
    const fallback = { path: 'full' as const, reason: outcome.fallback };
    book.took(rule, 'full', outcome.fallback);
    const listing = await syncKind(ctx, compiled, observe, listedHost, hostFacts);
    book.listed(rule, untroubled(before, kindTrouble(ctx)) ? listing : undefined, fallback);
    return;
  }
  book.took(rule, plan.path, plan.reason);
  const listing = await syncKind(ctx, compiled, observe, listedHost, hostFacts);
  book.listed(rule, untroubled(before, kindTrouble(ctx)) ? listing : undefined, plan);
}

/** What {@link kindTrouble} counts: each count only grows during a pass. */
interface KindTrouble {
  /** Object and kind errors recorded. */
  readonly errors: number;
  /** Kinds left unfinished (and clusters that stalled). */
  readonly incomplete: number;
  /** Needed writes the budget left for the next pass. */
  readonly deferred: number;
  /** Whether a bound stopped the pass. */
  readonly stopped: boolean;
  /** Decisions a full pass would make again (`DecisionRecorder.unsettled`). */
  readonly unsettled: number;
  /** Terminating copies a source still wants (`Ledger.terminatingWanted`). */
  readonly terminatingWanted: number;
}

/** Whether nothing went wrong between two snapshots: it all is as it was. */
function untroubled(before: KindTrouble, after: KindTrouble): boolean {
  return (
    after.errors === before.errors &&
    after.incomplete === before.incomplete &&
    after.deferred === before.deferred &&
    after.stopped === before.stopped &&
    after.unsettled === before.unsettled &&
    after.terminatingWanted === before.terminatingWanted
  );
}

/**
 * Everything that makes a kind's pass incomplete, and its unsettled Decisions; unchanged over a
 * kind means it converged. A kind with an unsettled Decision (a Skip, which persists, or a write
 * the host stored otherwise than written) keeps no resume point: its next pass is full, so it
 * decides what a resumed pass would not see (the Skip again, the update recording the host's
 * rewrite). So does a kind whose source wants a copy a host finalizer holds in deletion: a point
 * past that change would never see it again, and the copy must be created once the host lets it
 * go. Settled writes and deletes keep it: a full pass would find nothing more to do.
 */
function kindTrouble(ctx: PassContext): KindTrouble {
  const { errors, recorder } = ctx.ledger;
  const { bounds } = ctx.scope;
  return {
    errors: errors.errors.length,
    incomplete: errors.incompleteKinds.length,
    deferred: bounds.deferred,
    stopped: bounds.isStopped(),
    unsettled: recorder.unsettled,
    terminatingWanted: ctx.ledger.terminatingWanted,
  };
}

type ResumeOutcome =
  | { resourceVersion: string; changes: number }
  | { fallback: string }
  | { stalled: string };

async function resumeKind(
  ctx: PassContext,
  compiled: CompiledKindRule,
  point: ResumePoint,
  turn: KindTurn | undefined,
): Promise<ResumeOutcome> {
  const { rule } = compiled;
  const { observe, hostCopies, hostFacts } = turn ?? {};
  let watched: Awaited<ReturnType<typeof ctx.scope.tenantLister.watch>>;
  try {
    watched = await ctx.scope.tenantLister.watch(rule, point.resourceVersion);
  } catch (error) {
    // A stalled tenant: listing in full would only wait again (the pass stops early).
    ctx.ledger.errors.listingFailed(rule, 'tenant', error, 'resuming its watch failed');
    return { stalled: 'resuming its watch failed; nothing was synced' };
  }
  if (!watched.resumed) {
    // Past the window's budget the reason says so itself (`change-window.ts`).
    return { fallback: watched.bounded ? watched.reason : `the resume failed: ${watched.reason}` };
  }
  ctx.ledger.startKind(rule);
  // Already the latest change per object, in static scope only, within budget.
  const latest = latestChanges(watched.changes);
  const done = { resourceVersion: watched.resourceVersion, changes: watched.seen };
  if (latest.size === 0) return done;

  // The host side: just the names the changed sources map to.
  const names = new Set<string>();
  for (const key of latest.keys()) {
    const [namespace = '', name = ''] = key.split('/');
    if (namespace !== '' && name !== '') names.add(hostName(name, namespace, ctx.scope.tenant));
  }
  const byName = new Map<string, KubeObject>();
  try {
    // The kind's host copies listed this pass already (the Pod kind's): no GET per name.
    const listed = await hostCopies;
    if (listed) {
      for (const copy of listed) {
        if (names.has(copy.metadata.name)) byName.set(copy.metadata.name, copy);
      }
    } else {
      await runPool([...names], ctx.scope.bounds.budget.concurrency, async (name) => {
        const found = await ctx.scope.hostApi.get(rule, ctx.scope.hostNamespace, name);
        if (found) byName.set(name, found);
      });
    }
  } catch (error) {
    ctx.ledger.errors.listingFailed(rule, 'host', error, 'reading the changed host copies failed');
    return done;
  }

  const view = new TenantView(ctx, compiled, observe);
  const present = [...latest.values()].filter((c) => c.type !== 'DELETED').map((c) => c.object);
  const facts = await readFacts(hostFacts, present);
  // Facts that could not be read (the turn recorded why): nothing is taken in, nothing collected.
  if (facts === UNREAD) return { stalled: 'what it needs of the host could not be read' };
  const work = view.intake(present, facts);
  // Only copies of the changed sources: every other copy's source did not change.
  const owner = { tenant: ctx.scope.tenant, kind: rule.kind };
  const copies = [...byName.values()].filter((object) => {
    const source = ourCopySource(object, owner);
    return (
      source !== undefined && latest.has(sourceKey(source.virtualNamespace, source.virtualName))
    );
  });
  const listing = {
    tenant: ctx.scope.tenant,
    kind: rule.kind,
    desired: view.desired,
    listed: view.listed,
    ending: view.ending,
  };
  const mismatch = historyMismatch(copies, latest, owner);
  if (mismatch !== undefined) return { fallback: mismatch };
  // The resumed path's guard bound lives with the guard (`delete-guard.ts`).
  const weighed = planGc(copies, listing).filter((c) => !c.ending).length;
  const fallback = resumedPassFallback(weighed, ctx.scope.deleteGuard);
  if (fallback !== undefined) return { fallback };
  const writer = new KindWriter(ctx, rule, byName);
  await writer.offer(work);
  await collectGarbage(ctx, rule, copies, { ...listing, complete: true }, kindModule(rule).gcHold);
  await writer.flush();
  writer.finish(view.desired, copies, false);
  return done;
}

/**
 * Why the watch's deletions do not fit the copies, or `undefined`. A deletion names the uid of the
 * source it deleted; a copy made from another incarnation of that name (its virtual uid differs)
 * was never the deleted object's copy. In one consistent history the latest change of a recreated
 * source is its creation, never an older incarnation's deletion, so this means the tenant's history
 * is not the one the copies were synced from (a restored etcd): a full listing decides instead.
 */
function historyMismatch(
  copies: readonly KubeObject[],
  latest: ReadonlyMap<string, { type: string; object: KubeObject }>,
  owner: { tenant: string; kind: string },
): string | undefined {
  for (const copy of copies) {
    const source = ourCopySource(copy, owner);
    if (!source?.virtualUid) continue;
    const key = sourceKey(source.virtualNamespace, source.virtualName);
    const change = latest.get(key);
    const deleted = change?.type === 'DELETED' ? change.object.metadata.uid : undefined;
    if (deleted !== undefined && deleted !== source.virtualUid) {
      return `the watch deleted ${key} (uid ${deleted}), but its copy was made from uid ${source.virtualUid}: the tenant cluster's history is not the one synced (a restored etcd?)`;
    }
  }
  return undefined;
}
