/**
 * One kind of the policy, start to end: list the host side, take in the tenant side page by page
 * and apply each page, then garbage-collect if the tenant listing was complete. Under a write
 * budget the applies wait for GC (`kind-writes.ts`): deletes come first within the kind's share.
 */
import { setImmediate } from 'node:timers/promises';
import { type KindRef, type KubeObject, withRequestDeadline } from '../../ports/index.js';
import { workDeadline } from '../bounds/deadlines.js';
import type { PassContext } from '../context/pass-context.js';
import { PassError } from '../errors.js';
import { collectGarbage } from '../gc/gc.js';
import { type KindTurn, kindModule } from '../kinds/registry.js';
import { listHostObjects } from '../listing/host-listing.js';
import { type PageRead, settlePage } from '../listing/page-bytes.js';
import { sourceKey } from '../names/provenance.js';
import type { CompiledKindRule } from '../policy/scope.js';
import { readNextHostListing, takeHostListing } from './host-ahead.js';
import { KindWriter } from './kind-writes.js';
import { readFacts, TenantView, UNREAD } from './tenant-view.js';

// Applying one object (and the copy a host finalizer holds in deletion) lives in kind-writes.ts.

/**
 * Converges one kind. Listing failures and bounds are recorded on the context (errors, incomplete
 * kinds, stop reason), never thrown; only pass-level failures (the tenant unreachable) throw.
 * `observe` hears each tenant object taken in as work (see `TenantView`); `listedHost` gets the
 * kind's host listing (as held: `listing/host-view.ts`), which the Pod kind's later steps share;
 * `hostFacts` reads what a page's translations need of the host (`KindTurn.hostFacts`).
 */
export function syncKind(
  ctx: PassContext,
  compiled: CompiledKindRule,
  observe?: (tenantObject: KubeObject) => void,
  listedHost?: (hostObjects: readonly KubeObject[]) => void,
  hostFacts?: KindTurn['hostFacts'],
): Promise<string | undefined> {
  // Every request of the kind's work ends by the pass deadline (a stalled server included).
  return withRequestDeadline(workDeadline(ctx.scope.bounds.budget), () =>
    syncKindWithin(ctx, compiled, observe, listedHost, hostFacts),
  );
}

function readPage(
  ctx: PassContext,
  rule: KindRef,
  continueToken: string | undefined,
): Promise<PageRead> {
  return settlePage(ctx.scope.tenantLister.page(rule, continueToken));
}

/** @returns the tenant listing's resourceVersion when the kind converged from one snapshot. */
async function syncKindWithin(
  ctx: PassContext,
  compiled: CompiledKindRule,
  observe: ((tenantObject: KubeObject) => void) | undefined,
  listedHost: ((hostObjects: readonly KubeObject[]) => void) | undefined,
  hostFacts: KindTurn['hostFacts'],
): Promise<string | undefined> {
  const { rule } = compiled;
  const { bounds } = ctx.scope;
  const { errors } = ctx.ledger;
  ctx.ledger.startKind(rule);
  // The tenant's first page is read while the host side is listed: the two apiservers answer at
  // once, and each page's parsing overlaps the other side's wait. It is the one page read ahead
  // (below), so a pass still holds at most two tenant pages.
  let next = bounds.isStopped() ? undefined : readPage(ctx, rule, undefined);
  let hostObjects: KubeObject[] | undefined;
  try {
    // Read ahead while the kind before was applied (`host-ahead.ts`), or listed now.
    hostObjects = await (takeHostListing(ctx, rule) ??
      listHostObjects(ctx.scope, rule, undefined, undefined, kindModule(rule).hostView));
  } catch (error) {
    await next; // no request outlives the kind
    errors.listingFailed(rule, 'host', error, 'the host listing failed');
    return undefined;
  }
  if (!hostObjects) {
    await next;
    return undefined;
  }
  // The host apiserver lists the next kind while this one's tenant pages are applied.
  readNextHostListing(ctx, rule);
  if (bounds.isStopped()) {
    // Stopped while the host side was listed: the tenant page read meanwhile is not taken in.
    await next;
    next = undefined;
  }
  listedHost?.(hostObjects);
  const byName = new Map(hostObjects.map((o) => [o.metadata.name, o]));
  // A kind other kinds refer to: their creates look its copies up here (`references.ts`).
  ctx.ledger.copies.listed(rule, byName);
  // A warm process's memo of the copies found in sync: only what changed since is compared.
  const memo = ctx.memory.inSync?.kind(rule);
  const view = new TenantView(ctx, compiled, observe, memo && { memo, copies: byName });
  const writer = new KindWriter(ctx, rule, byName, (item, copy) => {
    const { virtualNamespace, virtualName } = item.source;
    memo?.record(sourceKey(virtualNamespace, virtualName), item.version, copy);
  });
  const writesBefore = bounds.writes;
  const progress = () =>
    ctx.ledger.progress({
      kind: rule.kind,
      listed: view.count,
      written: bounds.writes - writesBefore,
    });
  let complete = false;
  const snapshots = new Set<string | undefined>();
  // One page ahead: the next tenant page is read while this one is applied, so the apply work
  // overlaps the tenant apiserver's answer. Never more than that: a pass holds two tenant pages.
  try {
    while (next) {
      const read = await next;
      next = undefined;
      if ('error' in read) {
        if (read.error instanceof PassError) throw read.error;
        const why = 'the tenant listing failed, so its garbage collection was skipped';
        errors.listingFailed(rule, 'tenant', read.error, why);
        break;
      }
      const { page } = read;
      snapshots.add(page.resourceVersion);
      const { continueToken } = page;
      if (continueToken && !bounds.isStopped()) {
        next = readPage(ctx, rule, continueToken);
        // Let the request go out (its credentials, its write to the connection) before the apply
        // work holds the thread; otherwise the read would only start once this page is applied.
        await setImmediate();
      }
      const facts = await readFacts(hostFacts, page.items);
      // Facts that could not be read (the turn recorded why): nothing more is taken in, no GC.
      if (facts === UNREAD) break;
      await writer.offer(view.intake(page.items, facts));
      progress();
      // A spent write budget does not end the listing: GC needs it complete.
      if (bounds.isStopped()) break;
      if (!continueToken) {
        complete = true;
        break;
      }
    }
  } finally {
    // A page read ahead that a stop (or a failure) left unused: no request outlives the kind.
    await next;
  }
  const gc = await collectGarbage(
    ctx,
    rule,
    hostObjects,
    {
      tenant: ctx.scope.tenant,
      kind: rule.kind,
      desired: view.desired,
      listed: view.listed,
      ending: view.ending,
      complete,
    },
    kindModule(rule).gcHold,
  );
  await writer.flush();
  writer.finish(view.desired, hostObjects, complete);
  memo?.end(complete);
  if (!gc.ran) {
    if (bounds.isStopped()) {
      errors.kindIncomplete(
        rule,
        'stopped before it finished, so its garbage collection was skipped',
      );
    }
    return undefined;
  }
  // A namespace move deletes an old copy only once the source no longer wants one, or has one
  // in the new namespace (`gc/retire.ts`): what the complete listing wanted says which.
  if (complete) ctx.ledger.listedWanted(rule, view.desired);
  if (gc.candidates > 0) progress();
  if (bounds.isStopped()) errors.kindIncomplete(rule, 'stopped during garbage collection');
  // A listing restarted after an expired continue token spans two snapshots: no resume point.
  return snapshots.size === 1 ? [...snapshots][0] : undefined;
}
