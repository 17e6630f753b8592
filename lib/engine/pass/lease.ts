/**
 * One pass per tenant (`tenant/tenant-lease.ts`): a pass that writes holds the tenant's Lease from
 * its first write, on either side, to its end; a pass that finds it held writes nothing (no
 * copies, no realignment, no status back, no tenant Node or Event, no Pod ending, no status, not
 * even a failure report) and its result says who holds it and since when. The sinks hear every
 * Decision as it is made, and the end of the pass only once the lease has said whether the pass
 * stands.
 */
import type { Clock, ClusterApi, Decision, DecisionSink, PassResult } from '../../ports/index.js';
import { deliver, finishSinks } from '../context/decisions.js';
import { leaseGuarded, tenantLeaseGuarded } from '../tenant/lease-guard.js';
import { LeaseHeldError, TenantLease } from '../tenant/tenant-lease.js';
import { leaseHeldResult } from './result.js';

/** Decisions reach the sinks as they are made; the end of the pass only once it is known. */
class DeferredEnd implements DecisionSink {
  constructor(private readonly sinks: readonly DecisionSink[]) {}
  decision(decision: Decision): void {
    deliver(this.sinks, decision);
  }
  async passFinished(): Promise<void> {}
  finish(result: PassResult): Promise<void> {
    return finishSinks(this.sinks, result);
  }
}

/** What a leased pass needs to know of the pass it guards. */
export interface LeasedRun {
  tenant: string;
  passId: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  sinks: readonly DecisionSink[];
  clock: Clock;
  /** When the lease must end at the latest (the pass deadline plus its reserve). */
  untilMs: number | undefined;
}

/** The clients of a leased pass: each takes the tenant's lease before its first write. */
export interface LeasedApis {
  hostApi: ClusterApi;
  tenantApi: ClusterApi;
}

/**
 * Runs `story` with host and tenant clients that take the tenant's lease before their first
 * write and with sinks that hear the end of the pass only after the lease decided it; a failure
 * of the story is reported (`failed`) through the guarded host client, so only under the lease;
 * releases the lease at the end, whatever happened.
 */
export async function withTenantLease(
  run: LeasedRun,
  story: (apis: LeasedApis, sinks: readonly DecisionSink[]) => Promise<PassResult>,
  /** Reports a failure of the story (and may throw it). */
  failed?: (hostApi: ClusterApi, error: unknown) => Promise<unknown>,
): Promise<PassResult> {
  const { tenant, passId, clock } = run;
  const lease = new TenantLease(run.hostApi, tenant, passId, clock, run.untilMs);
  const hostApi = leaseGuarded(run.hostApi, lease, tenant);
  const tenantApi = tenantLeaseGuarded(run.tenantApi, lease);
  const end = new DeferredEnd(run.sinks);
  const start = {
    atMs: clock.now(),
    tenant: run.tenantApi.requestCount(),
    host: hostApi.requestCount(),
  };
  try {
    let result: PassResult;
    try {
      result = await story({ hostApi, tenantApi }, [end]);
      if (lease.refused) throw lease.refused;
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) {
        // Before the lease is released: a report the lease refuses is not written.
        if (failed) await failed(hostApi, error);
        throw error;
      }
      result = leaseHeldResult(error, { passId, tenant }, start, {
        clock,
        tenant: run.tenantApi.requestCount(),
        host: hostApi.requestCount(),
      });
    }
    if (lease.unavailable) {
      result.warnings = [
        ...(result.warnings ?? []),
        { reason: 'LeaseUnavailable', message: lease.unavailable },
      ];
    }
    await end.finish(result);
    return result;
  } finally {
    await lease.release();
  }
}
