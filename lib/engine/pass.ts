/**
 * The convergence pass, as the product describes it: read the TenantCluster, parse its policy,
 * sync each `toHost` kind in order within the budget (list, transform, apply, garbage-collect,
 * aggregate errors, record Decisions), report in status, and hand the result to the sinks.
 */
import { randomUUID } from 'node:crypto';
import {
  type Clock,
  type ClusterApi,
  type DecisionSink,
  type PassResult,
  type RequestCount,
  systemClock,
} from '../ports/index.js';
import { type Budget, effectiveBudget, PassBounds } from './budget.js';
import { DecisionRecorder, emptyCounts } from './decisions.js';
import { ObjectErrors } from './object-errors.js';
import type { PassContext, PassProgress } from './pass-context.js';
import { parseSyncPolicy } from './policy.js';
import { compileKindRule } from './scope.js';
import { reportStatus } from './status-report.js';
import { syncKind } from './sync-kind.js';
import { readTenantCluster } from './tenant-cluster.js';
import { TenantLister } from './tenant-listing.js';

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
}

/** Requests made between two readings of `ClusterApi.requestCount()`. */
export function requestDelta(after: RequestCount, before: RequestCount): RequestCount {
  return { reads: after.reads - before.reads, writes: after.writes - before.writes };
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
  const ctx: PassContext = {
    tenant,
    passId: options.passId ?? randomUUID(),
    hostNamespace: policy.hostNamespace,
    hostApi,
    tenantLister: new TenantLister(tenantApi, budget.pageSize),
    dryRun,
    bounds,
    errors: new ObjectErrors(bounds),
    recorder: new DecisionRecorder(options.sinks ?? []),
    kindsStarted: new Set(),
    objectsSeen: {},
    onProgress: options.onProgress,
  };
  if (!policy.paused) {
    for (const rule of policy.toHost) {
      if (bounds.isStopped()) break;
      await syncKind(ctx, compileKindRule(rule));
    }
  }

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
    counts: { ...emptyCounts(), ...ctx.recorder.counts },
    objectsSeen: ctx.objectsSeen,
    errors: ctx.errors.errors,
    requests: {
      tenant: requestDelta(tenantApi.requestCount(), tenantBefore),
      host: requestDelta(hostApi.requestCount(), hostBefore),
    },
    decisions: ctx.recorder.decisions,
  };
  if (reason !== undefined) result.incompleteReason = reason;
  if (policy.paused) result.note = 'the sync policy is paused; nothing was synced';
  if (tenantCluster.metadata.uid) result.tenantClusterUid = tenantCluster.metadata.uid;

  result.statusWritten = false;
  if (!dryRun && !policy.paused) {
    await reportStatus(hostApi, tenantCluster.status, result, options.statusReportIntervalMs);
  }
  await ctx.recorder.finish(result);
  return result;
}
