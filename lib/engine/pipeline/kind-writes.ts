/**
 * The writes of one kind, and when they happen. Without a write budget they are made as the tenant
 * pages come in (streaming: nothing is held). Under a write budget the kind's creates, updates and
 * replacements wait until its listing is complete and its garbage collection has had the budget
 * first: a pass never creates a copy of a kind while an orphan of that kind it could delete is
 * still there, so copies never outgrow their sources, and churn cannot starve GC. Only as many
 * writes as the kind's share of the budget are held (the rest are counted as deferred), so memory
 * stays bounded by the budget.
 *
 * Every attempt goes through the retry memory: an object that keeps failing for the same reason
 * with the same desired state backs off, and its retries never crowd out the kind's other writes.
 */
import { runPool } from '../../common/index.js';
import type { KindRef, KubeObject, ObjectRef } from '../../ports/index.js';
import type { RetryKey } from '../bounds/retry-backoff.js';
import { forgetGone, recordBackingOff, remembers } from '../context/convergence.js';
import type { PassContext } from '../context/pass-context.js';
import { attempt } from '../errors.js';
import { writeTraits } from '../kinds/registry.js';
import { observedForApply, observedView } from '../listing/host-view.js';
import { type ApplyOutcome, applyObject, planApply } from '../object/apply.js';
import type { WriteTraits } from '../object/kind-traits.js';
import { desiredHash } from '../object/write-record.js';
import { createRefusal } from './references.js';
import type { ApplyItem } from './tenant-view.js';

type Refs = { tenantRef: ObjectRef; hostRef: ObjectRef };

/** A write held for {@link KindWriter.flush}, with the writes it is expected to take. */
type HeldWrite = { item: ApplyItem; cost: number };

/** {@link KindWriter.writesNeeded} of an object with nothing to do and nothing to record. */
const IN_SYNC = -1;

/** The writes of one kind in one pass (see the module doc). */
export class KindWriter {
  /** Held writes that are not retries, and their writes; then the retries, apart. */
  private readonly held: HeldWrite[] = [];
  private heldWrites = 0;
  private readonly heldRetries: HeldWrite[] = [];
  private heldRetryWrites = 0;
  /** True without a write budget: apply as pages come, GC after. */
  readonly streaming: boolean;

  /** How the kind's copies are written (`kinds/registry.ts`). */
  private readonly traits: WriteTraits;

  /** Starts the kind's share of the write budget (`PassBounds.beginKind`). */
  constructor(
    private readonly ctx: PassContext,
    private readonly kind: KindRef,
    private readonly byName: ReadonlyMap<string, KubeObject>,
    private readonly inSync?: (item: ApplyItem, copy: KubeObject | undefined) => void,
  ) {
    this.traits = writeTraits(kind);
    this.streaming = ctx.scope.bounds.budget.maxWrites === undefined;
    const index = Math.max(0, ctx.ledger.kindsStarted - 1);
    ctx.scope.bounds.beginKind(index, ctx.memory.convergence.kindCount);
  }

  /**
   * Takes one page of work: applied at once when streaming; otherwise what needs no write (Skips,
   * objects in sync or backing off) is decided now and what needs a write is held for
   * {@link flush}, up to what the kind may still write. An object in sync with nothing remembered
   * about it goes no further (`inSync` hears it, with its copy, for the in-sync memo).
   */
  async offer(work: readonly ApplyItem[]): Promise<void> {
    const { bounds } = this.ctx.scope;
    const now: ApplyItem[] = [];
    for (const item of work) {
      const cost = this.costOf(item);
      if (cost === IN_SYNC) this.inSync?.(item, this.byName.get(item.desired.metadata.name));
      else if (cost === 0) now.push(item);
      else if (this.isRetry(item)) {
        // A retry (its back-off is over): held apart, so failures listed early cannot fill the
        // kind's share before the writes listed after them (flush).
        if (bounds.fits(cost, this.heldRetryWrites)) {
          this.heldRetries.push({ item, cost });
          this.heldRetryWrites += cost;
        } else bounds.defer(cost);
      } else if (bounds.fits(cost, this.heldWrites)) {
        this.held.push({ item, cost });
        this.heldWrites += cost;
      } else bounds.defer(cost);
    }
    await this.run(now);
  }

  /**
   * Makes the held writes, after the kind's garbage collection: the writes that are not retries
   * first, then the retries. While other writes wait, retries get at most half of what the kind
   * may still write (all of it when nothing else waits), so objects the host keeps refusing can
   * neither starve the rest of the kind nor be starved by it.
   */
  async flush(): Promise<void> {
    const fresh = this.held.splice(0);
    const retries = this.heldRetries.splice(0);
    this.heldWrites = 0;
    this.heldRetryWrites = 0;
    const { bounds } = this.ctx.scope;
    const left = bounds.writesLeft;
    const retryWrites = retries.reduce((total, held) => total + held.cost, 0);
    const retryRoom = Math.min(retryWrites, Math.floor(left / 2));
    const freshRoom = fresh.length === 0 ? 0 : left - retryRoom;
    const now: ApplyItem[] = [];
    let planned = 0;
    for (const { item, cost } of fresh) {
      if (planned + cost <= freshRoom || planned === 0) {
        now.push(item);
        planned += cost;
      } else bounds.defer(cost);
    }
    await this.run(now);
    await this.run(retries.map((held) => held.item));
  }

  /**
   * Ends the kind: its share of the budget, and, after a complete listing, the retry memory of
   * sources and copies that are gone.
   */
  finish(desired: ReadonlySet<string>, hostObjects: readonly KubeObject[], complete: boolean) {
    this.ctx.scope.bounds.endKind();
    if (complete) forgetGone(this.ctx, this.kind, desired, hostObjects);
  }

  private run(items: readonly ApplyItem[]): Promise<void> {
    const { bounds } = this.ctx.scope;
    return runPool(
      items,
      bounds.budget.concurrency,
      (item) => this.apply(item),
      () => bounds.isStopped(),
    );
  }

  /**
   * Writes an item would take now: 0 when none (a Skip, a copy terminating, an object backing
   * off), 2 for a replacement or a resize, {@link IN_SYNC} when in sync with nothing remembered about it.
   */
  private writesNeeded(item: ApplyItem): number {
    if (item.undecided) return 0;
    const observed = this.byName.get(item.desired.metadata.name);
    if (observed?.metadata.deletionTimestamp) return 0;
    const check = this.check(item);
    if (!check.due) return 0;
    const { observed: view, complete } = observedView(item.desired, observed);
    // A large field differs from the desired one: apply reads the whole copy and writes.
    if (!complete) return 1;
    const plan = planApply(item.desired, view, item.source, check.hints, this.traits);
    if (plan.action === 'InSync' && !this.remembered(item)) return IN_SYNC;
    // A replacement deletes and creates; a resize is sent before its update.
    if (plan.action === 'Replace' || (plan.action === 'Update' && plan.resize)) return 2;
    return plan.action === 'Create' || plan.action === 'Update' ? 1 : 0;
  }

  /**
   * What {@link offer} counts for an item: streaming applies everything now (0) but what is in
   * sync; under a budget, {@link writesNeeded}. A plan that throws (an object nested too deeply to
   * compare, a garbled copy) costs 0 on both paths, so apply records it as that object's error:
   * one object never stops the kind or the pass.
   */
  private costOf(item: ApplyItem): number {
    try {
      const needed = this.writesNeeded(item);
      return this.streaming && needed !== IN_SYNC ? 0 : needed;
    } catch {
      return 0;
    }
  }

  private key({ source }: ApplyItem): RetryKey {
    const object = { namespace: source.virtualNamespace, name: source.virtualName };
    return { kind: this.kind, op: 'apply', object };
  }

  /** Whether the retry memory holds the object; an empty memory (the steady state) is asked nothing. */
  private remembered(item: ApplyItem): boolean {
    return remembers(this.ctx.memory.convergence, this.key(item));
  }

  /** Whether the item failed before as it is now (its back-off over): a retry, not a new write. */
  private isRetry(item: ApplyItem): boolean {
    const retries = this.ctx.memory.convergence.retries;
    if (!this.remembered(item)) return false;
    return retries.failedBefore(this.key(item), desiredHash(item.desired));
  }

  /** What the retry memory says; the desired digest is computed only for a remembered object. */
  private check(item: ApplyItem) {
    const retries = this.ctx.memory.convergence.retries;
    if (!this.remembered(item)) return { due: true as const, hints: {} };
    const key = this.key(item);
    const check = retries.check(key, desiredHash(item.desired));
    if (!check.due) return check;
    return { due: true as const, hints: check.replace ? { replace: check.replace } : {} };
  }

  private async apply(item: ApplyItem): Promise<void> {
    const { ctx, kind } = this;
    const { desired, source } = item;
    const observed = this.byName.get(desired.metadata.name);
    if (observed?.metadata.deletionTimestamp) {
      // A host finalizer holds the copy in deletion: writing to it would be lost; the kind keeps
      // no resume point, so a full pass creates the copy anew once it is gone.
      ctx.ledger.countTerminating(observed, 'wanted');
      return;
    }
    const refs: Refs = {
      tenantRef: { namespace: source.virtualNamespace, name: source.virtualName },
      hostRef: { namespace: ctx.scope.hostNamespace, name: desired.metadata.name },
    };
    if (item.undecided) {
      // Nothing written whatever the copy is: not updated, and (still desired) not collected.
      const reason = observed ? item.undecided.kept : item.undecided.notCreated;
      ctx.ledger.decide({ action: 'Skip', rule: kind, ...refs, reason });
      return;
    }
    const applyContext = {
      hostApi: ctx.scope.hostApi,
      budget: ctx.scope.bounds,
      traits: this.traits,
    };
    const done = await attempt(async () => {
      // Inside the attempt: the retry check digests the object and the plan compares it, and either
      // may throw for this object alone (JsonDepthError).
      const check = this.check(item);
      if (!check.due) {
        const seen = observedView(desired, observed).observed;
        const plan = planApply(desired, seen, source, {}, this.traits);
        if (plan.action !== 'InSync' && plan.action !== 'Skip') {
          recordBackingOff(ctx, kind, refs, check.entry);
          return;
        }
      }
      const hints = check.due ? check.hints : {};
      // A large field held as a digest that differs: the whole copy is read (host-view.ts).
      const current = await observedForApply(
        ctx.scope.hostApi,
        desired,
        observed,
        ctx.scope.dryRun,
      );
      // A create that must not be made now (a missing reference, a Pod the host ended).
      const missing = current ? undefined : await createRefusal(ctx, item);
      const outcome: ApplyOutcome = missing
        ? { result: 'decided', action: 'Skip', reason: missing }
        : await applyObject(applyContext, desired, current, source, hints, item.ask);
      this.record(item, outcome, refs);
    });
    // A read (the race re-read, the whole copy) or a plan that cannot be made: the object stays
    // undecided, an error of its own, and the next pass retries it. A pass-level failure (another
    // pass holds the tenant's lease) goes on up.
    if (!done.ok) ctx.ledger.errors.add(kind, done.error, refs.tenantRef, refs.hostRef);
  }

  /** Records the Decisions of an outcome, and what the retry memory learns from it. */
  private record(item: ApplyItem, outcome: ApplyOutcome, refs: Refs): void {
    const { ctx, kind } = this;
    const retries = ctx.memory.convergence.retries;
    const key = this.key(item);
    const version = () => desiredHash(item.desired);
    switch (outcome.result) {
      case 'deferred':
        return;
      case 'in-sync':
        retries.succeeded(key);
        return;
      case 'decided':
        ctx.ledger.decide({
          action: outcome.action,
          rule: kind,
          ...refs,
          reason: outcome.reason,
          error: outcome.error,
        });
        if (outcome.unsettled) ctx.ledger.unsettle();
        if (outcome.error === undefined) retries.succeeded(key);
        else retries.failed(key, version(), outcome.error, outcome.replaceNeeded);
        return;
      case 'replaced': {
        ctx.ledger.unsettle(); // its create's answer is not checked: the next pass is full
        let failure: unknown;
        for (const d of outcome.decisions) {
          ctx.ledger.decide({
            action: d.action,
            rule: kind,
            ...refs,
            reason: d.reason,
            error: d.error,
            alreadyGone: d.alreadyGone === true,
          });
          failure ??= d.error;
        }
        if (failure === undefined) retries.succeeded(key);
        else retries.failed(key, version(), failure);
      }
    }
  }
}
