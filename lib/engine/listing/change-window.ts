/**
 * The changes a resumed watch hands a kind, held as they stream in: only the latest change of
 * each object (a recreation ends as ADDED), only objects the rule's static scope can sync
 * (`isStaticallyExcluded`), and within a budget of changed objects and of bytes. Past the budget
 * the watch stops at once and the kind falls back to its full pass, whose paged listing is
 * bounded by construction.
 */
import type { WatchChange } from '../../ports/index.js';
import { sourceKey } from '../names/provenance.js';
import { type CompiledKindRule, isStaticallyExcluded } from '../policy/scope.js';
import { approxBytes, PAGE_BYTES } from './page-bytes.js';

/**
 * The most changed objects a resumed pass takes in for one kind. Each costs one host GET, while a
 * full pass lists a kind in pages of up to `pageSize` (500) objects a side: past about a thousand
 * changed objects the GETs cost more round trips than listing a kind of many thousand objects,
 * and the window stays small even for small objects.
 */
export const MAX_RESUMED_CHANGES = 1000;

/**
 * The most bytes of changed objects a resumed pass holds for one kind: what a full listing holds
 * at a time (the page it works on and the page it reads ahead, each about {@link PAGE_BYTES}).
 * Past it a full pass holds less than the window would.
 */
export const MAX_RESUMED_BYTES = 2 * PAGE_BYTES;

/** The budget of a {@link ChangeWindow}. */
export interface WindowBudget {
  changes: number;
  bytes: number;
}

/** The held changes of one resumed watch (see the module doc). */
export class ChangeWindow {
  private readonly latest = new Map<string, { change: WatchChange; bytes: number }>();
  private heldBytes = 0;
  /** Every change the watch delivered, in scope or not (how far the point has aged). */
  seen = 0;

  constructor(
    private readonly rule: CompiledKindRule,
    private readonly budget: WindowBudget = {
      changes: MAX_RESUMED_CHANGES,
      bytes: MAX_RESUMED_BYTES,
    },
  ) {}

  /** Takes one change; returns why the resumed path must stop, past its budget. */
  take(change: WatchChange, bytes: number | undefined): string | undefined {
    this.seen += 1;
    const { object } = change;
    if (isStaticallyExcluded(this.rule, object)) return undefined;
    const key = sourceKey(object.metadata.namespace ?? '', object.metadata.name);
    const before = this.latest.get(key);
    if (before) this.heldBytes -= before.bytes;
    this.latest.delete(key);
    const weight = bytes ?? approxBytes(object);
    this.latest.set(key, { change, bytes: weight });
    this.heldBytes += weight;
    if (this.latest.size > this.budget.changes) {
      return `more than ${this.budget.changes} objects of the kind changed since the resume point, the resumed path's bound`;
    }
    if (this.heldBytes > this.budget.bytes) {
      const mib = Math.round(this.budget.bytes / (1024 * 1024));
      return `the changes since the resume point hold more than ${mib} MiB, the resumed path's bound`;
    }
    return undefined;
  }

  /** The latest change of each object in scope, in the order of their last change. */
  get changes(): WatchChange[] {
    return [...this.latest.values()].map((held) => held.change);
  }
}
