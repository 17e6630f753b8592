/**
 * The host side of a kind: every object of the kind in the host namespace, not only the managed
 * ones, so a name occupied by a foreign object or another tenant's copy is seen and decided (a
 * Skip) without a write. GC narrows this to the tenant's own copies itself (`planGc`).
 */
import { setImmediate } from 'node:timers/promises';
import type { ClusterApi, KindRef, KubeObject } from '../../ports/index.js';
import type { PassBounds } from '../bounds/budget.js';
import type { ResourceKey } from '../names/resource-key.js';
import { restartExpired } from './expired-listing.js';
// A listed host object is held as what apply and GC need (`host-view.ts`): no managedFields, no
// status, large content fields as digests.
import { compactHostObject, type HostView } from './host-view.js';
import { approxBytes, type PageRead, PageSizer, settlePage, wasCutOff } from './page-bytes.js';

/** What a host listing reads with and stops on. */
export interface HostListingScope {
  readonly hostApi: ClusterApi;
  readonly hostNamespace: string;
  readonly bounds: PassBounds;
}

/**
 * Paces a listing read ahead of its turn (`host-ahead.ts`): asked, before each page after the
 * first, with the bytes the listing holds so far. `true`: read on now. `false`: stop (the listing
 * ends as stopped). A promise: wait for it before reading on.
 */
export type ListingPace = (heldBytes: number) => boolean | Promise<boolean>;

/**
 * Lists every page of a kind in a host namespace (the pass's own by default), compacted, in
 * byte-aware pages. `undefined` when a bound stopped the pass before the listing finished. A
 * failed request throws (the caller records it); an expired continue token restarts the listing
 * once. The next page is asked for as soon as this one's continue token is known: from the head
 * of its response when the client reads it early (`ListOptions.onContinue`), so the host apiserver
 * prepares it while this one is parsed and compacted; else once this one is parsed. One page
 * ahead, never more. `pace`, for a listing read ahead of its turn, may hold the next page back;
 * `keep` is what the kind keeps of each object (`host-view.ts`).
 */
export async function listHostObjects(
  ctx: HostListingScope,
  kind: KindRef,
  namespace: string = ctx.hostNamespace,
  pace?: ListingPace,
  keep: HostView = 'compact',
): Promise<KubeObject[] | undefined> {
  let items: KubeObject[] = [];
  /** The response bytes of the pages held (what `pace` weighs). */
  let held = 0;
  const restarted = new Set<ResourceKey>();
  // Pages of about PAGE_BYTES whatever the object sizes (`page-bytes.ts`).
  const sizer = new PageSizer(ctx.bounds.budget.pageSize);
  /** The page read ahead, and the continue token it was asked with. */
  let next: { token: string; read: Promise<PageRead> } | undefined;
  const read = (continueToken: string | undefined): Promise<PageRead> => {
    const asked = sizer.limit;
    return settlePage(
      ctx.hostApi.list(kind, {
        namespace,
        limit: asked,
        ...(sizer.maxBytes === undefined ? {} : { maxBytes: sizer.maxBytes }),
        ...(continueToken ? { continueToken } : {}),
        onContinue: (early, bytes) => {
          if (early === undefined || next !== undefined || ctx.bounds.isStopped()) return;
          if (pace && pace(held + bytes) !== true) return; // the loop asks again, and waits
          // The next page's size from this one's length, as if it was full (its parse corrects
          // what follows; a page far larger than meant is still cut off).
          sizer.observeLength(asked, bytes);
          next = { token: early, read: read(early) };
        },
      }),
    );
  };
  /** The page read ahead for `token`, taken; a page read ahead for another token is dropped. */
  const take = async (token: string | undefined) => {
    const ahead = next;
    next = undefined;
    if (ahead !== undefined && token !== undefined && ahead.token === token) return ahead.read;
    await ahead?.read;
    return undefined;
  };
  let continueToken: string | undefined;
  try {
    for (;;) {
      if (ctx.bounds.isStopped()) return undefined;
      const ahead = await take(continueToken);
      if (!ahead && continueToken && pace && !(await pace(held))) return undefined;
      const answer = await (ahead ?? read(continueToken));
      if ('error' in answer) {
        // A page far larger than meant: ask again from the same place, smaller (page-bytes.ts).
        if (wasCutOff(answer.error)) {
          sizer.cutOff();
          continue;
        }
        // An expired continue token: start again from the first page, once (expired-listing.ts).
        if (!continueToken || !restartExpired(restarted, kind, answer.error)) throw answer.error;
        items = [];
        held = 0;
        continueToken = undefined;
        continue;
      }
      const { page } = answer;
      sizer.observe(page.items, page.bytes);
      held += page.bytes ?? approxBytes(page.items);
      continueToken = page.continueToken;
      const paced = !pace || pace(held) === true;
      if (continueToken && paced && next?.token !== continueToken && !ctx.bounds.isStopped()) {
        await take(undefined);
        next = { token: continueToken, read: read(continueToken) };
        // Let the request go out before the compaction holds the thread (see sync-kind.ts).
        await setImmediate();
      }
      for (const object of page.items) items.push(compactHostObject(object, keep));
      if (!continueToken) return items;
    }
  } finally {
    // A page read ahead that a stop or a failure left unused: no request outlives the listing.
    await next?.read;
  }
}
