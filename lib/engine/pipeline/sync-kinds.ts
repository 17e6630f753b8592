/**
 * The kinds of a pass, one after the other in apply order (referenced kinds first), each on its
 * path (`kind-path.ts`) inside its module's turn (`kinds/frame/kind-module.ts`), with the host side of
 * the kinds to come read ahead (`host-ahead.ts`).
 */
import type { PassContext } from '../context/pass-context.js';
import { kindModule } from '../kinds/registry.js';
import type { KindRule } from '../policy/policy.js';
import { type CompiledKindRule, compileKindRule } from '../policy/scope.js';
import { planHostReadAhead, settleHostReadAhead } from './host-ahead.js';
import { decidedWrites, markTrouble, syncKindByPath } from './kind-path.js';

/**
 * Syncs `order` kind by kind until a bound stops the pass. A host listing read ahead and not taken
 * is stopped and awaited before this returns, a thrown pass failure included.
 *
 * `hostFree` is called once the host apiserver has no kind left to list: at once when the first
 * kind resumes (it lists no host side), else once the host side of every kind is listed (read
 * ahead or not). Reads that are not the kinds' (the Events back's) go out then, so they overlap the
 * last kinds' tenant pages, not the host listings they would slow down.
 */
export async function syncKinds(
  ctx: PassContext,
  order: readonly KindRule[],
  hostFree?: () => void,
): Promise<void> {
  const free = () => {
    if (!ctx.scope.bounds.isStopped()) hostFree?.();
  };
  const first = order[0];
  const resumesFirst = first !== undefined && 'resume' in ctx.memory.resume.plan(first);
  if (resumesFirst) free();
  planHostReadAhead(ctx, order, resumesFirst ? undefined : free);
  try {
    for (const rule of order) {
      if (ctx.scope.bounds.isStopped()) break;
      await syncKindTurn(ctx, compileKindRule(rule));
    }
  } finally {
    await settleHostReadAhead(ctx);
  }
}

/**
 * One kind's turn: its module's turn started, the kind on its path, then the module's after-kind
 * step once with what the path did. The pipeline calls the module; the module never calls back.
 */
async function syncKindTurn(ctx: PassContext, compiled: CompiledKindRule): Promise<void> {
  const turn = kindModule(compiled.rule).startKind?.(ctx, compiled);
  const writes = decidedWrites(ctx);
  await syncKindByPath(ctx, compiled, turn);
  await turn?.afterKind({
    wrote: decidedWrites(ctx) !== writes,
    troubledSince: markTrouble(ctx),
  });
}
