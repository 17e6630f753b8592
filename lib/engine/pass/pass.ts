/**
 * One pass, as callers run it and as it reads: read the TenantCluster and its policy, check the
 * tenant cluster's identity and every rule's scope, sync each kind, retire what the policy no
 * longer covers, copy the host classes it names into the tenant, then the host Events about the
 * copies (read while the kinds sync), report. Around it, the guards every caller needs: requests
 * end by the pass deadline plus the reporting reserve (`bounds/deadlines.ts`) and back off on 429
 * as told (`bounds/throttle.ts`), a pass that writes holds the tenant's lease on both sides
 * (`lease.ts`), a dry run sends no host write, a pass-level failure is reported, then thrown.
 */
import {
  type Clock,
  type ClusterApi,
  type PassResult,
  systemClock,
  withRequestDeadline,
} from '../../ports/index.js';
import { effectiveBudget, PassBounds } from '../bounds/budget.js';
import { passEndDeadline } from '../bounds/deadlines.js';
import { type Throttled, throttledApis } from '../bounds/throttle.js';
import { syncFromHost } from '../classes/host-gateways.js';
import { convergenceStatus } from '../context/convergence.js';
import { dryRunClient } from '../context/dry-run.js';
import { newPassContext } from '../context/pass-context.js';
import { prefetchEventsBack } from '../events/event-reads.js';
import { syncEventsBack } from '../events/events-back.js';
import { retireStale } from '../gc/retire.js';
import { referencedKinds, isSensitiveKind as sensitiveKind } from '../kinds/registry.js';
import { TenantLister } from '../listing/tenant-listing.js';
import { prefetchResumes } from '../pipeline/kind-path.js';
import { applyOrder } from '../pipeline/references.js';
import { syncKinds } from '../pipeline/sync-kinds.js';
import { parseSyncPolicy } from '../policy/policy.js';
import { reportPassFailure } from '../report/pass-failure.js';
import { reportStatus } from '../report/status-report.js';
import { readRemembered } from '../tenant/lifecycle.js';
import { statusPatch } from '../tenant/status.js';
import { readTenantCluster, tenantClusterFacts } from '../tenant/tenant-cluster.js';
import { withTenantLease } from './lease.js';
import type { PassOptions } from './options.js';
import { passResult } from './result.js';
import {
  cleanUp,
  type LifecycleOutcome,
  prepareTenant,
  rememberSynced,
} from './tenant-lifecycle.js';

/**
 * Runs one bounded convergence pass for `options.tenant`. Per-object and per-kind failures are
 * aggregated into the result's `errors`; a failed or truncated listing skips that kind's GC; a
 * bound stops new work and `incompleteReason` says why. `requests` counts the pass's own
 * requests, not its bookkeeping (status, finalizer, lease).
 * @throws TenantClusterNotFoundError, InvalidPolicyError, ClusterUnreachableError,
 * TenantClusterChangedError or PassError, each with `cause`, after reporting it on the
 * TenantCluster's conditions.
 */
export function runPass(options: PassOptions): Promise<PassResult> {
  const end = passEndDeadline(options.budget ?? {});
  const clock = options.clock ?? systemClock;
  const dryRun = options.dryRun === true;
  const passId = options.passId ?? crypto.randomUUID();
  const run = { ...throttledApis(options, clock), clock, passId, dryRun };
  const report = async (hostApi: ClusterApi, error: unknown): Promise<never> => {
    await reportPassFailure(hostApi, options.tenant, error, { clock, dryRun });
    throw error;
  };
  return withRequestDeadline(end, async () => {
    if (dryRun || options.lease === false) return story(run).catch((e) => report(run.hostApi, e));
    const leased = { ...run, sinks: options.sinks ?? [], untilMs: end?.atMs };
    return withTenantLease(leased, (apis, sinks) => story({ ...run, ...apis, sinks }), report);
  });
}

type StoryOptions = PassOptions & { clock: Clock; passId: string; dryRun: boolean } & Throttled;

async function story(options: StoryOptions): Promise<PassResult> {
  const { tenant, tenantApi, clock, dryRun } = options;
  const hostApi = dryRun ? dryRunClient(options.hostApi) : options.hostApi;
  const budget = effectiveBudget(options.budget);
  const start = {
    atMs: clock.now(),
    tenant: tenantApi.requestCount(),
    host: hostApi.requestCount(),
  };

  const tenantCluster = await readTenantCluster(hostApi, tenant);
  const policy = parseSyncPolicy(tenant, tenantCluster.spec);
  const bounds = new PassBounds(budget, clock, options.throttle);
  const tenantLister = new TenantLister(tenantApi, budget.pageSize);
  const ctx = newPassContext({
    ...options,
    ...{ hostApi, tenantLister, bounds, tenantCluster, policy, referencedKinds, sensitiveKind },
  });
  const remembered = readRemembered(tenantCluster);

  let outcome: LifecycleOutcome = {};
  if (policy.paused) {
    // Nothing is synced, retired or remembered while the policy is paused.
  } else if (tenantCluster.metadata.deletionTimestamp) {
    outcome = await cleanUp(ctx, tenantCluster, remembered);
  } else {
    // `undefined`: what would cover the copies is not recorded, so the pass writes none.
    const recorded = await prepareTenant(ctx, tenantCluster, remembered, tenantApi);
    if (recorded) {
      try {
        if (!bounds.isStopped()) prefetchResumes(ctx, policy.toHost);
        // The Events back reads go out once the host has no kind left to list (`sync-kinds.ts`).
        await syncKinds(ctx, applyOrder(policy.toHost), () => prefetchEventsBack(ctx));
        // After the kinds, with a share of its own: a move creates before it deletes.
        const retired = await retireStale(ctx, policy, recorded);
        // Then the host classes and Gateways the tenant sees, on what the write budget has left.
        await rememberSynced(ctx, recorded, await syncFromHost(ctx, retired));
        // Last, the host Events about the copies, on the tenant objects.
        await syncEventsBack(ctx);
      } finally {
        await ctx.readAhead.settle(); // whatever was read ahead and not taken: no request outlives
      }
    }
  }

  const result = passResult(
    ctx,
    start,
    {
      paused: policy.paused === true,
      tenantRequests: tenantApi.requestCount(),
      hostRequests: hostApi.requestCount(),
      ...(outcome.copiesLeft === undefined ? {} : { copiesLeft: outcome.copiesLeft }),
    },
    clock.now(),
  );
  Object.assign(result, tenantClusterFacts(tenantCluster));
  result.statusWritten = false;
  if (!dryRun && !policy.paused) {
    const resume = ctx.memory.resume.statusFields(policy.toHost);
    const more = statusPatch(convergenceStatus(ctx), resume.must);
    await reportStatus(hostApi, {
      recordedStatus: tenantCluster.status,
      result,
      intervalMs: options.statusReportIntervalMs,
      ...(more ? { more } : {}),
      ...(resume.withOthers ? { alongside: resume.withOthers } : {}),
      policy,
    });
  }
  await outcome.release?.();
  await ctx.ledger.recorder.finish(result);
  return result;
}
