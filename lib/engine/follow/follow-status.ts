/**
 * What a follow did, for the caller (`FollowResult`) and on the TenantCluster
 * (`status.follow`): who follows it and since when, the passes it ran, the changes they converged
 * and their latency (from a change's arrival to the end of the pass that converged it), and, once
 * it ended, when and why. Written when the follow starts, at most every
 * {@link STATUS_INTERVAL_MS} while passes run, and when it ends: an idle follow writes nothing.
 */
import { errorMessage } from '../../common/index.js';
import type { Clock, ClusterApi, PassResult } from '../../ports/index.js';
import { patchTenantClusterStatus } from '../tenant/status.js';
import type { FollowStatusPatch } from '../tenant/status-follow.js';
import type { LeaseHeldError, LeaseHolding } from '../tenant/tenant-lease.js';

/** How often a busy follow refreshes `status.follow`. */
export const STATUS_INTERVAL_MS = 10_000;

/** The latencies a follow keeps for its percentiles (the latest ones). */
const KEPT_LATENCIES = 10_000;

/** Why a follow ended. */
export const FollowEnd = {
  Quiet: 'quiet',
  Deadline: 'deadline',
  Signal: 'signal',
  LeaseLost: 'lease-lost',
  Deleted: 'deleted',
  Held: 'held',
  /** It could not go on (its watches could not be opened): the error is thrown to the caller. */
  Failed: 'failed',
} as const;
export type FollowEnd = (typeof FollowEnd)[keyof typeof FollowEnd];

/** Latency percentiles of converged changes, in milliseconds. */
export interface FollowLatency {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** How a follow went. */
export interface FollowResult {
  tenant: string;
  holder: string;
  startedAt: string;
  endedAt: string;
  endReason: FollowEnd;
  /** The lease holder, when the follow never got the lease. */
  heldBy?: LeaseHolding;
  passes: number;
  /** Changes converged (each watch event that woke a pass). */
  changes: number;
  latency?: FollowLatency;
  /** Passes that failed as a whole, in plain words (the latest ones). */
  failures: string[];
  /** Watches that failed and were answered by a pass. */
  gaps: number;
  /**
   * The passes' resumed watches: answered from the follow's own watches (no bookmark wait), and
   * those the apiserver answered (`followed-changes.ts`).
   */
  resumedWatches: { fromFollow: number; fromApiserver: number };
}

/** The `p`th percentile (0..1) of ascending `sorted`, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The record of one follow (see the module doc). */
export class FollowRecord {
  private readonly startedMs: number;
  private readonly latencies: number[] = [];
  private passes = 0;
  private changes = 0;
  private gaps = 0;
  private failures: string[] = [];
  private writtenMs: number | undefined;
  private heldBy: LeaseHolding | undefined;
  private endedMs: number | undefined;
  private consecutiveFailures = 0;
  endReason: FollowEnd | undefined;
  /** Counted by `FollowedChanges`, as the passes ask. */
  readonly served = { buffered: 0, delegated: 0 };
  /** When the last change arrived or the follow started (epoch ms): quiet is measured from it. */
  lastActivityMs: number;

  constructor(
    private hostApi: ClusterApi,
    private readonly tenant: string,
    readonly holder: string,
    private readonly clock: Clock,
  ) {
    this.startedMs = clock.now();
    this.lastActivityMs = this.startedMs;
  }

  /** Writes `status.follow` through `hostApi` from now on (the client behind the follow's lease). */
  writeThrough(hostApi: ClusterApi): void {
    this.hostApi = hostApi;
  }

  /** The follow found the lease held and ends without following. */
  held(error: LeaseHeldError): FollowResult {
    this.heldBy = error.holding;
    this.end(FollowEnd.Held);
    return this.result();
  }

  /** Records on the TenantCluster that the follow started. */
  async started(): Promise<void> {
    await this.write(true);
  }

  /** A pass ended, converging the changes that arrived at `arrivals`. */
  async passed(
    result: PassResult,
    arrivals: readonly number[],
    gaps: number,
    progress: boolean,
  ): Promise<void> {
    const now = this.clock.now();
    this.passes += 1;
    this.changes += arrivals.length;
    this.gaps += gaps;
    // A pass that left work and wrote nothing is stuck on something a retry will not fix soon.
    const stuck = !result.complete && !progress;
    this.consecutiveFailures = stuck ? this.consecutiveFailures + 1 : 0;
    for (const at of arrivals) this.latencies.push(now - at);
    if (this.latencies.length > KEPT_LATENCIES) {
      this.latencies.splice(0, this.latencies.length - KEPT_LATENCIES);
    }
    if (arrivals.length > 0) this.lastActivityMs = Math.max(this.lastActivityMs, ...arrivals);
    if (progress) this.lastActivityMs = now;
    if (now - (this.writtenMs ?? 0) >= STATUS_INTERVAL_MS) await this.write(true);
  }

  /** A pass failed as a whole (an unreachable server, a bad kubeconfig): the next one retries. */
  failed(message: string, arrivals: readonly number[]): void {
    this.passes += 1;
    this.consecutiveFailures += 1;
    this.failures = [...this.failures, message].slice(-10);
    this.lastActivityMs = Math.max(this.lastActivityMs, ...arrivals, this.clock.now());
  }

  /** How long to wait before the next pass after failed or stuck ones: 1 s, doubling, to 30 s. */
  retryMs(): number {
    return Math.min(30_000, 1000 * 2 ** Math.max(0, this.consecutiveFailures - 1));
  }

  /** The follow ends (the first reason given stands). */
  end(reason: FollowEnd): void {
    this.endReason ??= reason;
    this.endedMs ??= this.clock.now();
  }

  /** Records on the TenantCluster how the follow ended. */
  async finish(): Promise<void> {
    this.end(FollowEnd.Failed); // every other end is recorded where it happens
    await this.write(false);
  }

  /** How the follow went, so far. */
  result(): FollowResult {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      tenant: this.tenant,
      holder: this.holder,
      startedAt: new Date(this.startedMs).toISOString(),
      endedAt: new Date(this.endedMs ?? this.clock.now()).toISOString(),
      endReason: this.endReason ?? FollowEnd.Failed,
      ...(this.heldBy ? { heldBy: this.heldBy } : {}),
      passes: this.passes,
      changes: this.changes,
      ...(sorted.length === 0
        ? {}
        : {
            latency: {
              p50Ms: percentile(sorted, 0.5),
              p99Ms: percentile(sorted, 0.99),
              maxMs: sorted[sorted.length - 1] as number,
            },
          }),
      failures: this.failures,
      gaps: this.gaps,
      resumedWatches: { fromFollow: this.served.buffered, fromApiserver: this.served.delegated },
    };
  }

  /** `status.follow` as a merge patch; a status the server refuses is a failure of its own. */
  private async write(active: boolean): Promise<void> {
    const result = this.result();
    const follow: FollowStatusPatch = {
      active,
      holder: this.holder,
      since: result.startedAt,
      passes: result.passes,
      changes: result.changes,
      latencyP50Ms: result.latency?.p50Ms ?? null,
      latencyP99Ms: result.latency?.p99Ms ?? null,
      endedAt: active ? null : result.endedAt,
      endReason: active ? null : result.endReason,
    };
    this.writtenMs = this.clock.now();
    try {
      await patchTenantClusterStatus(this.hostApi, this.tenant, { follow });
    } catch (error) {
      this.failures = [...this.failures, `status.follow not written: ${errorMessage(error)}`].slice(
        -10,
      );
    }
  }
}
