/**
 * The host side of a kind: every object of the kind in the host namespace, not only the managed
 * ones, so a name occupied by a foreign object or another tenant's copy is seen and decided (a
 * Skip) without a write. GC narrows this to the tenant's own copies itself (`planGc`).
 */
import type { KubeObject, ListPage } from '../ports/index.js';
import { restartExpired } from './expired-listing.js';
import type { PassContext } from './pass-context.js';
import type { KindRule } from './policy.js';

/**
 * A listed host object as the pass keeps it for the rest of its kind (every host object of the
 * kind in the host namespace is held until GC): a copy without `metadata.managedFields` and
 * `status`, which apply and GC never read. managedFields is most of a small object's size (about
 * 60% of a parsed ConfigMap), so this keeps a tenant with tens of thousands of objects within a
 * small function's memory. Update bodies are unaffected: they never carried managedFields (the
 * server then keeps its record) nor status. The listed object is not mutated.
 */
export function compactHostObject(object: KubeObject): KubeObject {
  const { status: _status, metadata, ...rest } = object;
  if (!metadata || typeof metadata !== 'object') return { ...rest, metadata } as KubeObject;
  const { managedFields: _managedFields, ...kept } = metadata;
  return { ...rest, metadata: kept };
}

/**
 * Lists every page of a kind in the host namespace, compacted. `undefined` when a bound stopped
 * the pass before the listing finished. A failed request throws (the caller records it); an
 * expired continue token restarts the listing once.
 */
export async function listHostObjects(
  ctx: PassContext,
  rule: KindRule,
): Promise<KubeObject[] | undefined> {
  let items: KubeObject[] = [];
  let continueToken: string | undefined;
  const restarted = new Set<string>();
  for (;;) {
    if (ctx.bounds.isStopped()) return undefined;
    let page: ListPage;
    try {
      page = await ctx.hostApi.list(rule, {
        namespace: ctx.hostNamespace,
        limit: ctx.bounds.budget.pageSize,
        ...(continueToken ? { continueToken } : {}),
      });
    } catch (error) {
      // An expired continue token: start again from the first page, once (expired-listing.ts).
      if (!continueToken || !restartExpired(restarted, rule, error)) throw error;
      items = [];
      continueToken = undefined;
      continue;
    }
    for (const object of page.items) items.push(compactHostObject(object));
    continueToken = page.continueToken;
    if (!continueToken) return items;
  }
}
