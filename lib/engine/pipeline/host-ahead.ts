/**
 * The next kind's host listing, read ahead of its turn. A kind's tenant pages are taken in and
 * applied once its host side is listed; meanwhile the host apiserver would sit idle. So as soon as
 * a kind's host listing is complete, the host listing of the next kind in apply order starts, and
 * the two apiservers work at once across kinds, not only within one (the tenant's first page of a
 * kind is read while its host side is listed: `sync-kind.ts`).
 *
 * - Only for a next kind that takes the full path: a kind that resumes lists no host side.
 * - Bounded: before their turn the listings read ahead hold at most {@link READ_AHEAD_BYTES} of
 *   responses together, then wait. So a pass holds, besides the host listing of the kind it works
 *   on, at most one page's worth of the kinds after it.
 * - A listing read ahead is only earlier, never different: the kind takes it as its own, and
 *   every write and delete of the kind still carries its preconditions (the write that finds the
 *   copy changed since fails and is retried by a later pass, as with any listing).
 * - A listing read ahead that completes before its turn starts the next kind's, within the same
 *   bound. One the pass never takes (a stop, a kind that resumed after all) is stopped at its next
 *   page and awaited before the pass reports: no request outlives the pass.
 */
import type { KindRef, KubeObject } from '../../ports/index.js';
import { withRequestDeadline } from '../../ports/index.js';
import { workDeadline } from '../bounds/deadlines.js';
import type { PassContext } from '../context/pass-context.js';
import { readKey } from '../context/read-ahead.js';
import { kindModule } from '../kinds/registry.js';
import { type ListingPace, listHostObjects } from '../listing/host-listing.js';
import { PAGE_BYTES } from '../listing/page-bytes.js';
import { resourceKey } from '../names/resource-key.js';

/** What the listings read ahead may hold, together, before their turn: one page's worth. */
export const READ_AHEAD_BYTES = PAGE_BYTES;

type Turn = 'ahead' | 'taken' | 'dropped';

interface Ahead {
  kind: KindRef;
  listing: Promise<KubeObject[] | undefined>;
  turn: Turn;
  /** The response bytes the listing holds so far. */
  held: number;
  /** Ends the wait of a listing held back: its turn came (`taken`) or never will (`dropped`). */
  settle(turn: Exclude<Turn, 'ahead'>): void;
}

interface HostReadAhead {
  order: readonly KindRef[];
  /** Called once, when no host listing of a kind is left (see {@link planHostReadAhead}). */
  listed?: () => void;
  /** The listings read ahead, in apply order. */
  queue: Ahead[];
  /** Listings dropped, to await before the pass reports. */
  dropped: Promise<unknown>[];
}

/** The pass's plan of host listings read ahead. */
const HOST_LISTINGS = readKey<HostReadAhead>('host-listings');

/**
 * Plans the read-ahead of a pass: the kinds it syncs, in apply order. `listed` is called once no
 * host listing is left: the last kind's is complete, or the next kind resumes (a resumed kind
 * lists no host side) and the listings before it are complete. Then the host apiserver has time
 * for other reads.
 */
export function planHostReadAhead(
  ctx: PassContext,
  order: readonly KindRef[],
  listed?: () => void,
): void {
  const plan: HostReadAhead = { order, queue: [], dropped: [], ...(listed ? { listed } : {}) };
  ctx.readAhead.start(HOST_LISTINGS, plan, settlePlan);
}

/** Tells the plan's `listed` hook, once. */
function allListed(plan: HostReadAhead): void {
  const { listed } = plan;
  plan.listed = undefined;
  listed?.();
}

function heldAhead(plan: HostReadAhead): number {
  return plan.queue.reduce((sum, ahead) => sum + ahead.held, 0);
}

/**
 * Starts the host listing of the kind after `kind` in apply order (after the last one already
 * read ahead), when that kind takes the full path and the listings read ahead hold less than
 * {@link READ_AHEAD_BYTES}. Called once `kind`'s own host listing is complete; a listing read ahead
 * that completes before its turn starts the next one the same way.
 */
export function readNextHostListing(ctx: PassContext, kind: KindRef): void {
  const plan = ctx.readAhead.peek(HOST_LISTINGS);
  if (!plan || ctx.scope.bounds.isStopped() || heldAhead(plan) >= READ_AHEAD_BYTES) return;
  const last = plan.queue.at(-1)?.kind ?? kind;
  const at = plan.order.findIndex((k) => resourceKey(k) === resourceKey(last));
  const next = at < 0 ? undefined : plan.order[at + 1];
  if (!next || 'resume' in ctx.memory.resume.plan(next)) {
    // Nothing left to start: the host is free once the listings read ahead are in.
    const tail = plan.queue.at(-1)?.listing;
    if (tail) void tail.finally(() => allListed(plan)).catch(() => undefined);
    else allListed(plan);
    return;
  }
  let settleWait: (go: boolean) => void = () => undefined;
  const wait = new Promise<boolean>((resolve) => {
    settleWait = resolve;
  });
  const pace: ListingPace = (held) => {
    ahead.held = held;
    if (ahead.turn !== 'ahead') return ahead.turn === 'taken';
    return heldAhead(plan) < READ_AHEAD_BYTES ? true : wait;
  };
  const { scope } = ctx;
  const listing = withRequestDeadline(workDeadline(scope.bounds.budget), () =>
    listHostObjects(scope, next, scope.hostNamespace, pace, kindModule(next).hostView),
  );
  const ahead: Ahead = {
    kind: next,
    listing,
    turn: 'ahead',
    held: 0,
    settle(to) {
      ahead.turn = to;
      settleWait(to === 'taken');
    },
  };
  plan.queue.push(ahead);
  listing.then(
    (items) => {
      if (items && ahead.turn === 'ahead') readNextHostListing(ctx, next);
    },
    // Never an unhandled rejection: the kind that takes the listing records its failure.
    () => undefined,
  );
}

/**
 * The host listing of `kind` read ahead, now its own (read on without a bound); `undefined` when
 * none was. Listings read ahead for kinds before it are dropped: their turn has passed.
 */
export function takeHostListing(
  ctx: PassContext,
  kind: KindRef,
): Promise<KubeObject[] | undefined> | undefined {
  const plan = ctx.readAhead.peek(HOST_LISTINGS);
  if (!plan) return undefined;
  const turnOf = (k: KindRef) => plan.order.findIndex((o) => resourceKey(o) === resourceKey(k));
  const now = turnOf(kind);
  for (let ahead = plan.queue[0]; ahead; ahead = plan.queue[0]) {
    const turn = turnOf(ahead.kind);
    if (turn > now) return undefined;
    plan.queue.shift();
    if (turn === now) {
      ahead.settle('taken');
      return ahead.listing;
    }
    ahead.settle('dropped');
    plan.dropped.push(ahead.listing.catch(() => undefined));
  }
  return undefined;
}

/** Stops what is read ahead and not taken, and waits for its requests to end. */
export async function settleHostReadAhead(ctx: PassContext): Promise<void> {
  await ctx.readAhead.drop(HOST_LISTINGS);
}

async function settlePlan(plan: HostReadAhead): Promise<void> {
  for (const ahead of plan.queue) ahead.settle('dropped');
  const pending = plan.queue.map((ahead) => ahead.listing.catch(() => undefined));
  await Promise.all([...plan.dropped, ...pending]);
}
