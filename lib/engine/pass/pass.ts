import {
  type Clock,
  type ClusterApi,
  type DecisionSink,
  type PassResult,
  type RequestCount,
  systemClock,
} from '../../ports/index.js';
import { type Budget, effectiveBudget, PassBounds } from '../bounds/budget.js';
import { convergenceStatus } from '../context/convergence.js';
import { newPassContext, type PassContext, type PassProgress } from '../context/pass-context.js';
import { parseSyncPolicy } from '../policy/policy.js';
import { reportStatus } from '../report/status-report.js';
import { readTenantCluster, tenantClusterFacts } from '../tenant/tenant-cluster.js';
import { readTenantClusterId, syncTenant } from './tenant-lifecycle.js';

export interface PassOptions {
  tenant: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  sinks?: DecisionSink[];
  clock?: Clock;
  budget?: Partial<Budget>;
  /** Compute and report every Decision, write nothing (no host writes, no status). */
  dryRun?: boolean;
  passId?: string;
  onProgress?: (progress: PassProgress) => void;
  /**
   * How old `status.lastPass` may grow before a clean pass that changed nothing rewrites it
   * (default `DEFAULT_STATUS_REPORT_INTERVAL_MS`); 0 rewrites it after every pass.
   */
  statusReportIntervalMs?: number;
  /** List every kind in full on both sides instead of resuming (`--full`, `{"full": true}`). */
  full?: boolean;
  /** `false` turns resumed (incremental) passes off: every kind is listed in full, no resume point is kept. */
  incremental?: boolean;
}

/** Requests made between two readings of `ClusterApi.requestCount()`. */
export function requestDelta(
  after: RequestCount,
  before: RequestCount,
  bookkeeping = 0,
): RequestCount {
  return { reads: after.reads - before.reads, writes: after.writes - before.writes - bookkeeping };
}

/** Why the pass is incomplete, in plain words; `undefined` when it is complete. */
function incompleteReason(ctx: PassContext, kinds: readonly string[]): string | undefined {
  const stop = ctx.bounds.stopReason;
  const notStarted = stop ? kinds.filter((kind) => !ctx.kindsStarted.has(kind)) : [];
  const reasons: string[] = [];
  if (stop) reasons.push(`${stop}; the next pass continues`);
  reasons.push(...ctx.errors.incompleteKinds);
  if (notStarted.length > 0) reasons.push(`not started: ${notStarted.join(', ')}`);
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

/**
 * Runs one bounded convergence pass for `tenant`. Per-object and per-kind failures (a rejected
 * write, a kind whose listing is forbidden or not installed) are aggregated into `errors`; a
 * failed or truncated listing makes the pass incomplete and skips that kind's GC. When a bound
 * stops the pass, no new work starts, writes in flight finish, and `incompleteReason` says why;
 * the next pass picks up the rest.
 *
 * `requests` counts the pass's own requests; the status write is not included (`statusWritten`
 * says whether it happened), so a steady-state pass reports zero writes and makes none.
 *
 * @throws TenantClusterNotFoundError, InvalidPolicyError, ClusterUnreachableError (the first
 * request to a cluster failed at the transport level), or PassError (the TenantCluster could not
 * be read); each with `cause`.
 */
export async function runPass(options: PassOptions): Promise<PassResult> {
  const clock = options.clock ?? systemClock;
  const { tenant, tenantApi, hostApi } = options;
  const dryRun = options.dryRun === true;
  const budget = effectiveBudget(options.budget);
  const startedAtMs = clock.now();
  const tenantBefore = tenantApi.requestCount();
  const hostBefore = hostApi.requestCount();

  const tenantCluster = await readTenantCluster(hostApi, tenant);
  const policy = parseSyncPolicy(tenant, tenantCluster.spec);

  const bounds = new PassBounds(budget, clock);
  const ctx = newPassContext({ ...options, dryRun, bounds, tenantCluster, policy });

  const lifecycle = policy.paused
    ? {}
    : await syncTenant(ctx, tenantCluster, policy, () => readTenantClusterId(tenantApi));

  const finishedAtMs = clock.now();
  const reason = incompleteReason(
    ctx,
    policy.toHost.map((rule) => rule.kind),
  );
  const result: PassResult = {
    passId: ctx.passId,
    tenant,
    dryRun,
    startedAt: new Date(startedAtMs).toISOString(),
    finishedAt: new Date(finishedAtMs).toISOString(),
    durationMs: Math.max(0, finishedAtMs - startedAtMs),
    complete: reason === undefined,
    ...ctx.recorder.tally(),
    objectsSeen: ctx.objectsSeen,
    errors: ctx.errors.errors,
    requests: {
      tenant: requestDelta(tenantApi.requestCount(), tenantBefore),
      host: requestDelta(hostApi.requestCount(), hostBefore, ctx.bookkeeping.writes),
    },
    decisions: ctx.recorder.decisions,
  };
  if (reason !== undefined) result.incompleteReason = reason;
  if (ctx.terminating.count > 0) result.terminating = ctx.terminating.count;
  if (ctx.warnings.length > 0) result.warnings = ctx.warnings;
  if (lifecycle.copiesLeft !== undefined) result.cleanup = { copiesLeft: lifecycle.copiesLeft };
  if (policy.paused) result.note = 'the sync policy is paused; nothing was synced';
  const path = ctx.resume.summary();
  if (path) result.path = path.path;
  if (path?.reason) result.pathReason = path.reason;
  Object.assign(result, tenantClusterFacts(tenantCluster));

  result.statusWritten = false;
  if (!dryRun && !policy.paused) {
    const resume = ctx.resume.statusFields(policy.toHost);
    const retries = convergenceStatus(ctx);
    const more = retries || resume.must ? { ...retries, ...resume.must } : undefined;
    const interval = options.statusReportIntervalMs;
    await reportStatus(hostApi, tenantCluster.status, result, interval, more, resume.withOthers);
  }
  await lifecycle.release?.();
  await ctx.recorder.finish(result);
  return result;
}
