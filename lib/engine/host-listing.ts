/**
 * The host side of a kind: every object of the kind in the host namespace, not only the managed
 * ones, so a name occupied by a foreign object or another tenant's copy is seen and decided (a
 * Skip) without a write. GC narrows this to the tenant's own copies itself (`planGc`).
 */
import type { KindRef, KubeObject, ListPage } from '../ports/index.js';
import { restartExpired } from './expired-listing.js';
// A listed host object is held as what apply and GC need (`host-view.ts`): no managedFields, no
// status, large content fields as digests.
import { compactHostObject } from './host-view.js';
import { PageSizer } from './page-bytes.js';
import type { PassContext } from './pass-context.js';

/**
 * Lists every page of a kind in a host namespace (the pass's own by default), compacted, in
 * byte-aware pages. `undefined` when a bound stopped the pass before the listing finished. A
 * failed request throws (the caller records it); an expired continue token restarts the listing
 * once.
 */
export async function listHostObjects(
  ctx: PassContext,
  kind: KindRef,
  namespace: string = ctx.hostNamespace,
): Promise<KubeObject[] | undefined> {
  let items: KubeObject[] = [];
  let continueToken: string | undefined;
  const restarted = new Set<string>();
  // Pages of about PAGE_BYTES whatever the object sizes (`page-bytes.ts`).
  const sizer = new PageSizer(ctx.bounds.budget.pageSize);
  for (;;) {
    if (ctx.bounds.isStopped()) return undefined;
    let page: ListPage;
    try {
      page = await ctx.hostApi.list(kind, {
        namespace,
        limit: sizer.limit,
        ...(continueToken ? { continueToken } : {}),
      });
    } catch (error) {
      // An expired continue token: start again from the first page, once (expired-listing.ts).
      if (!continueToken || !restartExpired(restarted, kind, error)) throw error;
      items = [];
      continueToken = undefined;
      continue;
    }
    sizer.observe(page.items);
    for (const object of page.items) items.push(compactHostObject(object));
    continueToken = page.continueToken;
    if (!continueToken) return items;
  }
}
