/**
 * The pass result, assembled from the ledger once the story has run: counts, errors, requests,
 * why the pass is incomplete, and what the operator must know.
 */
import type { Clock, PassResult, RequestCount } from '../../ports/index.js';
import { emptyCounts } from '../context/decisions.js';
import type { PassContext } from '../context/pass-context.js';
import type { LeaseHeldError } from '../tenant/tenant-lease.js';

/** Requests made between two readings of `ClusterApi.requestCount()`. */
export function requestDelta(
  after: RequestCount,
  before: RequestCount,
  bookkeeping = 0,
): RequestCount {
  return { reads: after.reads - before.reads, writes: after.writes - before.writes - bookkeeping };
}

/** Why the pass is incomplete, in plain words; `undefined` when it is complete. */
function incompleteReason(ctx: PassContext): string | undefined {
  const stop = ctx.scope.bounds.stopReason;
  const notStarted = stop
    ? ctx.scope.policy.toHost.filter((rule) => !ctx.ledger.hasStarted(rule)).map((r) => r.kind)
    : [];
  const reasons: string[] = [];
  if (stop) reasons.push(`${stop}; the next pass continues`);
  reasons.push(...ctx.ledger.errors.incompleteKinds);
  if (notStarted.length > 0) reasons.push(`not started: ${notStarted.join(', ')}`);
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

/** Where a pass started: its time and both clusters' request counters. */
export interface PassStart {
  atMs: number;
  tenant: RequestCount;
  host: RequestCount;
}

/** What the story adds to the ledger's record. */
export interface PassEnd {
  /** Copies of a deleted TenantCluster still on the host. */
  copiesLeft?: number;
  paused: boolean;
  tenantRequests: RequestCount;
  hostRequests: RequestCount;
}

/** The result of a pass that ran its story. */
export function passResult(
  ctx: PassContext,
  start: PassStart,
  end: PassEnd,
  finishedAtMs: number,
): PassResult {
  const { scope, ledger, memory } = ctx;
  const reason = incompleteReason(ctx);
  const result: PassResult = {
    passId: scope.passId,
    tenant: scope.tenant,
    dryRun: scope.dryRun,
    startedAt: new Date(start.atMs).toISOString(),
    finishedAt: new Date(finishedAtMs).toISOString(),
    durationMs: Math.max(0, finishedAtMs - start.atMs),
    complete: reason === undefined,
    ...ledger.recorder.tally(),
    objectsSeen: ledger.objectsSeen,
    errors: ledger.errors.errors,
    requests: {
      tenant: requestDelta(end.tenantRequests, start.tenant),
      host: requestDelta(end.hostRequests, start.host, ledger.bookkeeping),
    },
    decisions: ledger.recorder.decisions,
  };
  if (reason !== undefined) result.incompleteReason = reason;
  if (ledger.terminating > 0) result.terminating = ledger.terminating;
  if (ledger.warnings.length > 0) result.warnings = [...ledger.warnings];
  if (end.copiesLeft !== undefined) result.cleanup = { copiesLeft: end.copiesLeft };
  if (end.paused) result.note = 'the sync policy is paused; nothing was synced';
  const path = memory.resume.summary();
  if (path) result.path = path.path;
  if (path?.reason) result.pathReason = path.reason;
  const throttled = scope.bounds.throttle.summary();
  if (throttled) result.throttled = throttled;
  return result;
}

/** The result of a pass that found another pass holding the tenant's lease: it wrote nothing. */
export function leaseHeldResult(
  error: LeaseHeldError,
  identity: { passId: string; tenant: string },
  start: PassStart,
  now: { clock: Clock; tenant: RequestCount; host: RequestCount },
): PassResult {
  const finishedAtMs = now.clock.now();
  return {
    passId: identity.passId,
    tenant: identity.tenant,
    dryRun: false,
    startedAt: new Date(start.atMs).toISOString(),
    finishedAt: new Date(finishedAtMs).toISOString(),
    durationMs: Math.max(0, finishedAtMs - start.atMs),
    complete: false,
    incompleteReason: error.message,
    counts: emptyCounts(),
    objectsSeen: {},
    errors: [],
    requests: {
      tenant: requestDelta(now.tenant, start.tenant),
      host: requestDelta(now.host, start.host),
    },
    decisions: [],
    statusWritten: false,
    leaseHeld: error.holding,
  };
}
