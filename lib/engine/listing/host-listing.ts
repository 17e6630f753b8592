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
import { compactHostObject } from './host-view.js';
import { type PageRead, PageSizer, settlePage, wasCutOff } from './page-bytes.js';

/** What a host listing reads with and stops on. */
export interface HostListingScope {
  readonly hostApi: ClusterApi;
  readonly hostNamespace: string;
  readonly bounds: PassBounds;
}

/**
 * Lists every page of a kind in a host namespace (the pass's own by default), compacted, in
 * byte-aware pages. `undefined` when a bound stopped the pass before the listing finished. A
 * failed request throws (the caller records it); an expired continue token restarts the listing
 * once. The next page is read while this one is compacted (one page ahead), so the compaction
 * overlaps the host apiserver's answer.
 */
export async function listHostObjects(
  ctx: HostListingScope,
  kind: KindRef,
  namespace: string = ctx.hostNamespace,
): Promise<KubeObject[] | undefined> {
  let items: KubeObject[] = [];
  const restarted = new Set<ResourceKey>();
  // Pages of about PAGE_BYTES whatever the object sizes (`page-bytes.ts`).
  const sizer = new PageSizer(ctx.bounds.budget.pageSize);
  const read = (continueToken: string | undefined): Promise<PageRead> =>
    settlePage(
      ctx.hostApi.list(kind, {
        namespace,
        limit: sizer.limit,
        ...(sizer.maxBytes === undefined ? {} : { maxBytes: sizer.maxBytes }),
        ...(continueToken ? { continueToken } : {}),
      }),
    );
  let continueToken: string | undefined;
  let next: Promise<PageRead> | undefined;
  try {
    for (;;) {
      if (ctx.bounds.isStopped()) return undefined;
      const answer = await (next ?? read(continueToken));
      next = undefined;
      if ('error' in answer) {
        // A page far larger than meant: ask again from the same place, smaller (page-bytes.ts).
        if (wasCutOff(answer.error)) {
          sizer.cutOff();
          continue;
        }
        // An expired continue token: start again from the first page, once (expired-listing.ts).
        if (!continueToken || !restartExpired(restarted, kind, answer.error)) throw answer.error;
        items = [];
        continueToken = undefined;
        continue;
      }
      const { page } = answer;
      sizer.observe(page.items, page.bytes);
      continueToken = page.continueToken;
      if (continueToken && !ctx.bounds.isStopped()) {
        next = read(continueToken);
        // Let the request go out before the compaction holds the thread (see sync-kind.ts).
        await setImmediate();
      }
      for (const object of page.items) items.push(compactHostObject(object));
      if (!continueToken) return items;
    }
  } finally {
    // A page read ahead that a stop or a failure left unused: no request outlives the listing.
    await next;
  }
}
