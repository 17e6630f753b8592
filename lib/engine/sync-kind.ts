/**
 * One kind of the policy, start to end: list the host side, take in the tenant side page by page
 * and apply each page, then garbage-collect if the tenant listing was complete.
 */
import { runPool } from '../common/index.js';
import type { KubeObject, ListPage } from '../ports/index.js';
import { applyObject } from './apply.js';
import { PassError } from './errors.js';
import { collectGarbage } from './gc.js';
import { listHostObjects } from './host-listing.js';
import { decide, type PassContext } from './pass-context.js';
import type { KindRule } from './policy.js';
import type { CompiledKindRule } from './scope.js';
import { type ApplyItem, TenantView } from './tenant-listing.js';

async function applyOne(
  ctx: PassContext,
  rule: KindRule,
  { desired, source }: ApplyItem,
  observed: KubeObject | undefined,
): Promise<void> {
  const tenantRef = { namespace: source.virtualNamespace, name: source.virtualName };
  const hostRef = { namespace: ctx.hostNamespace, name: desired.metadata.name };
  const applyContext = {
    hostApi: ctx.hostApi,
    dryRun: ctx.dryRun,
    reserveWrite: () => ctx.bounds.reserveWrite(),
  };
  try {
    const outcome = await applyObject(applyContext, desired, observed, source);
    if (outcome.result !== 'decided') return;
    decide(ctx, outcome.action, rule, { tenantRef, hostRef }, outcome.reason, outcome.error);
  } catch (error) {
    // Only the race re-read can throw; the object stays undecided and the next pass retries it.
    ctx.errors.add(rule, error, tenantRef, hostRef);
  }
}

/**
 * Converges one kind. Listing failures and bounds are recorded on the context (errors, incomplete
 * kinds, stop reason), never thrown; only pass-level failures (the tenant unreachable) throw.
 */
export async function syncKind(ctx: PassContext, compiled: CompiledKindRule): Promise<void> {
  const { rule } = compiled;
  const { bounds, errors } = ctx;
  ctx.kindsStarted.add(rule.kind);
  ctx.objectsSeen[rule.kind] ??= 0;
  let hostObjects: KubeObject[] | undefined;
  try {
    hostObjects = await listHostObjects(ctx, rule);
  } catch (error) {
    errors.listingFailed(rule, 'host', error, 'the host listing failed');
    return;
  }
  if (!hostObjects) return;
  const byName = new Map(hostObjects.map((o) => [o.metadata.name, o]));
  const view = new TenantView(ctx, compiled);
  const writesBefore = bounds.writes;
  const progress = () =>
    ctx.onProgress?.({
      kind: rule.kind,
      listed: view.count,
      written: bounds.writes - writesBefore,
    });
  let complete = false;
  let continueToken: string | undefined;
  while (!bounds.isStopped()) {
    let page: ListPage;
    try {
      page = await ctx.tenantLister.page(rule, continueToken);
    } catch (error) {
      if (error instanceof PassError) throw error;
      const why = 'the tenant listing failed, so its garbage collection was skipped';
      errors.listingFailed(rule, 'tenant', error, why);
      break;
    }
    const work = view.intake(page.items);
    await runPool(
      work,
      bounds.budget.concurrency,
      (item) => applyOne(ctx, rule, item, byName.get(item.desired.metadata.name)),
      () => bounds.isStopped(),
    );
    progress();
    continueToken = page.continueToken;
    if (bounds.stopReason) break;
    if (!continueToken) {
      complete = true;
      break;
    }
  }
  const gc = await collectGarbage(ctx, rule, hostObjects, {
    tenant: ctx.tenant,
    kind: rule.kind,
    desired: view.desired,
    listed: view.listed,
    complete,
  });
  if (!gc.ran) {
    if (bounds.stopReason) {
      errors.kindIncomplete(
        rule,
        'stopped before it finished, so its garbage collection was skipped',
      );
    }
    return;
  }
  if (gc.candidates > 0) progress();
  if (bounds.stopReason) errors.kindIncomplete(rule, 'stopped during garbage collection');
}
