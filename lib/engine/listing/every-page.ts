/**
 * Every item of a LIST, page by page: for the listings a pass reads whole (Nodes, classes, the
 * tenant's token Secrets, a kind's copies by label, the host Events). The kinds' own listings are
 * paced and byte-aware instead (`host-listing.ts`, `tenant-listing.ts`).
 */
import type { ClusterApi, KindRef, KubeObject, ListOptions } from '../../ports/index.js';

/**
 * Lists `kind` with `options`, `pageSize` items a page, until the last page; only the items `keep`
 * accepts are held, page by page (a large listing of which little concerns the pass).
 */
export async function listEveryPage(
  api: ClusterApi,
  kind: KindRef,
  pageSize: number,
  options: Omit<ListOptions, 'limit' | 'continueToken'> = {},
  keep?: (item: KubeObject) => boolean,
): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let continueToken: string | undefined;
  do {
    const page = await api.list(kind, {
      ...options,
      limit: pageSize,
      ...(continueToken === undefined ? {} : { continueToken }),
    });
    if (!keep) items.push(...page.items);
    else for (const item of page.items) if (keep(item)) items.push(item);
    continueToken = page.continueToken;
  } while (continueToken !== undefined);
  return items;
}
