/**
 * What an invocation reports besides the decision logs: EMF metrics of the pass and of the follow
 * after it, one warning log line per object error, and errors made safe to log.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { PassResult } from '../../lib/ports/index.js';
import { SyncMetric } from './contract.js';
import type { InvocationFollow } from './follow.js';

/** The error, safe to log: name and message only (no `cause` chain: a cause may quote input). */
export function safeError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(`non-error thrown: ${typeof error}`);
  const safe = new Error(error.message);
  safe.name = error.name;
  const frames = (error.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  safe.stack = [`${error.name}: ${error.message}`, ...frames].join('\n');
  return safe;
}

/** Tenant objects listed in the pass, all kinds. */
export function objectsSeen(result: PassResult): number {
  return Object.values(result.objectsSeen).reduce((a, b) => a + b, 0);
}

/**
 * 1 when the pass took the `resumed` path (every kind read only its changes), else 0: a full or
 * resync pass, or one that synced no kind. The Average per tenant is its resume hit rate.
 */
export function resumeHit(result: PassResult): 0 | 1 {
  return result.path === 'resumed' ? 1 : 0;
}

/** Adds the pass's metrics and logs each per-object error (which did not fail the invocation). */
export function recordPass(metrics: Metrics, logger: Logger, result: PassResult): void {
  const { counts } = result;
  metrics.addMetric(SyncMetric.Creates, MetricUnit.Count, counts.Create);
  metrics.addMetric(SyncMetric.Updates, MetricUnit.Count, counts.Update);
  metrics.addMetric(SyncMetric.Deletes, MetricUnit.Count, counts.Delete);
  metrics.addMetric(SyncMetric.Skips, MetricUnit.Count, counts.Skip);
  // Failed writes apart, so Creates/Updates/Deletes count only what was done.
  const failed = result.failed ?? { Create: 0, Update: 0, Delete: 0, Skip: 0 };
  const failedWrites = failed.Create + failed.Update + failed.Delete;
  metrics.addMetric(SyncMetric.FailedWrites, MetricUnit.Count, failedWrites);
  metrics.addMetric(SyncMetric.AlreadyGone, MetricUnit.Count, result.alreadyGone ?? 0);
  metrics.addMetric(SyncMetric.ObjectErrors, MetricUnit.Count, result.errors.length);
  metrics.addMetric(SyncMetric.ObjectsSeen, MetricUnit.Count, objectsSeen(result));
  metrics.addMetric(SyncMetric.PassDurationMs, MetricUnit.Milliseconds, result.durationMs);
  metrics.addMetric(SyncMetric.PassComplete, MetricUnit.Count, result.complete ? 1 : 0);
  metrics.addMetric(SyncMetric.PassIncomplete, MetricUnit.Count, result.complete ? 0 : 1);
  metrics.addMetric(SyncMetric.ResumeHit, MetricUnit.Count, resumeHit(result));
  for (const error of result.errors) {
    logger.warn({
      message: 'object error',
      kind: error.kind,
      tenantNamespace: error.tenantRef?.namespace,
      tenantName: error.tenantRef?.name,
      hostNamespace: error.hostRef?.namespace,
      hostName: error.hostRef?.name,
      reason: error.reason,
      error: error.message,
    });
  }
}

/**
 * Adds a followed tenant's follow metrics and logs how the follow ended. An invocation that did
 * not follow publishes `FollowedSeconds` 0, so the Sum of every followed tenant's series is its
 * followed (billed) time and an idle one still shows; latencies only when a change converged.
 */
export function recordFollow(metrics: Metrics, logger: Logger, follow: InvocationFollow): void {
  if (!follow.followed) {
    metrics.addMetric(SyncMetric.FollowedSeconds, MetricUnit.Seconds, 0);
    logger.info({ message: 'not following', reason: follow.reason });
    return;
  }
  metrics.addMetric(SyncMetric.FollowedSeconds, MetricUnit.Seconds, follow.seconds);
  metrics.addMetric(SyncMetric.FollowPasses, MetricUnit.Count, follow.passes);
  metrics.addMetric(SyncMetric.FollowChanges, MetricUnit.Count, follow.changes);
  metrics.addMetric(SyncMetric.FollowFailures, MetricUnit.Count, follow.failures);
  if (follow.latency) {
    metrics.addMetric(SyncMetric.ChangeLatencyP50, MetricUnit.Milliseconds, follow.latency.p50Ms);
    metrics.addMetric(SyncMetric.ChangeLatencyP99, MetricUnit.Milliseconds, follow.latency.p99Ms);
  }
  // Another process took the lease between the pass and the follow: it follows the tenant now.
  const held = follow.heldBy ? { heldBy: follow.heldBy.holder } : {};
  const line = { message: 'follow ended', ...follow, ...held };
  if (follow.failures > 0) logger.warn(line);
  else logger.info(line);
}

/**
 * A tick that found the tenant's lease held wrote nothing: another process (a follower, a
 * laptop's `tenantplane sync`) converges the tenant. Dropped, not failed: no error, no retry.
 */
export function recordDroppedTick(
  metrics: Metrics,
  logger: Logger,
  leaseHeld: PassResult['leaseHeld'],
): void {
  metrics.addMetric(SyncMetric.TicksDropped, MetricUnit.Count, leaseHeld ? 1 : 0);
  if (leaseHeld)
    logger.info({
      message: 'tick dropped: the tenant lease is held',
      holder: leaseHeld.holder,
      lease: leaseHeld.lease,
      expires: leaseHeld.expires,
    });
}

/** A woken invocation (`{"wake": true}`) counts 1, any other 0: its Sum is the wakes that ran. */
export function recordWake(metrics: Metrics, woken: boolean): void {
  metrics.addMetric(SyncMetric.Wakes, MetricUnit.Count, woken ? 1 : 0);
}
