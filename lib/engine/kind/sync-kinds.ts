/**
 * The kinds of a pass, one after the other in apply order (referenced kinds first), each on its
 * path (`incremental.ts`), with the host side of the kinds to come read ahead (`host-ahead.ts`).
 */
import type { PassContext } from '../context/pass-context.js';
import type { KindRule } from '../policy/policy.js';
import { compileKindRule } from '../policy/scope.js';
import { planHostReadAhead, settleHostReadAhead } from './host-ahead.js';
import { syncKindByPath } from './incremental.js';

/**
 * Syncs `order` kind by kind until a bound stops the pass. A host listing read ahead and not taken
 * is stopped and awaited before this returns, a thrown pass failure included.
 */
export async function syncKinds(ctx: PassContext, order: readonly KindRule[]): Promise<void> {
  planHostReadAhead(ctx, order);
  try {
    for (const rule of order) {
      if (ctx.scope.bounds.isStopped()) break;
      await syncKindByPath(ctx, compileKindRule(rule));
    }
  } finally {
    await settleHostReadAhead(ctx);
  }
}
