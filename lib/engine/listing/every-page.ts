/**
 * Every item of a LIST, page by page: for the small listings a pass reads whole (Nodes, classes,
 * the tenant's token Secrets, a kind's copies by label). The kinds' own listings are paced and
 * byte-aware instead (`host-listing.ts`, `tenant-listing.ts`).
 */
import type { ClusterApi, KindRef, KubeObject, ListOptions } from '../../ports/index.js';

/** Lists `kind` with `options`, `pageSize` items a page, until the last page. */
export async function listEveryPage(
  api: ClusterApi,
  kind: KindRef,
  pageSize: number,
  options: Omit<ListOptions, 'limit' | 'continueToken'> = {},
): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let continueToken: string | undefined;
  do {
    const page = await api.list(kind, {
      ...options,
      limit: pageSize,
      ...(continueToken === undefined ? {} : { continueToken }),
    });
    items.push(...page.items);
    continueToken = page.continueToken;
  } while (continueToken !== undefined);
  return items;
}
