/**
 * What woke a follow since its last pass: the arrival time of each change (its latency is
 * measured from there to the end of the pass that converged it), the watches that reported a gap,
 * whether a host copy went (the pass then lists in full), and whether the TenantCluster itself
 * changed (a policy edit, a deletion).
 */
import type { Clock, WatchChange } from '../../ports/index.js';
import { TENANT_CLUSTER } from '../../ports/index.js';
import { sameKind } from '../names/resource-key.js';
import type { Trigger, TriggerListener } from './triggers.js';

/** What a follow's next pass answers. */
export interface WakeBatch {
  /** When each change arrived (epoch ms). */
  arrivals: number[];
  /** Watches that failed and may have missed a change. */
  gaps: string[];
  policyChanged: boolean;
  deleted: boolean;
  /** A host copy went: the pass lists in full (`Trigger.fullOnDelete`). */
  full: boolean;
}

/** The wake-ups of one follow (see the module doc). */
export class Wakeups implements TriggerListener {
  private batch: WakeBatch = Wakeups.empty();
  private waiter: (() => void) | undefined;

  /**
   * @param ownDelete whether the follow's own passes deleted that host object: their deletions
   * need no full pass.
   */
  constructor(
    private readonly clock: Clock,
    private readonly ownDelete: (namespace: string, name: string) => boolean = () => false,
  ) {}

  private static empty(): WakeBatch {
    return { arrivals: [], gaps: [], policyChanged: false, deleted: false, full: false };
  }

  changed(trigger: Trigger, { type, object }: WatchChange): void {
    const { namespace = '', name } = object.metadata;
    if (trigger.fullOnDelete && type === 'DELETED' && !this.ownDelete(namespace, name)) {
      this.batch.full = true;
    }
    if (sameKind(trigger.kind, TENANT_CLUSTER)) {
      if (object.metadata.deletionTimestamp !== undefined) this.batch.deleted = true;
      else this.batch.policyChanged = true;
    }
    this.batch.arrivals.push(this.clock.now());
    this.wake();
  }

  gap(trigger: Trigger, reason: string): void {
    this.batch.gaps.push(`the ${trigger.side} watch of ${trigger.kind.kind}: ${reason}`);
    this.wake();
  }

  /** Whether anything waits for a pass. */
  pending(): boolean {
    const { arrivals, gaps, policyChanged, deleted } = this.batch;
    return arrivals.length > 0 || gaps.length > 0 || policyChanged || deleted;
  }

  /** What waited, now handed to a pass; later wake-ups go to the next one. */
  take(): WakeBatch {
    const batch = this.batch;
    this.batch = Wakeups.empty();
    return batch;
  }

  /** Resolves at the next wake-up, at `atMs` (epoch ms), or when `signal` aborts. */
  next(atMs: number, signal: AbortSignal): Promise<void> {
    if (this.pending() || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const delay = Number.isFinite(atMs) ? Math.max(0, atMs - this.clock.now()) : undefined;
      const timer = delay === undefined ? undefined : setTimeout(done, delay);
      const self = this;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        self.waiter = undefined;
        resolve();
      }
      this.waiter = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    this.waiter?.();
  }
}
