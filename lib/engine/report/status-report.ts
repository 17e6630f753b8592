/**
 * Reporting a pass in `TenantCluster.status.lastPass`, without breaking the zero-write steady
 * state: a pass that acted, failed or recovered always reports; a clean pass that changed nothing
 * (or whose only Decisions are the recorded pass's Skips, see `skip-digest.ts`) leaves the
 * recorded pass alone until it is older than the report interval. Like the kubelet's
 * node status (report on change, else every few minutes), the status's age still tells an
 * operator that passes run.
 */
import { errorMessage, stableJson } from '../../common/index.js';
import { type ClusterApi, type PassResult, TENANT_CLUSTER } from '../../ports/index.js';
import { clusterReason, formatObjectError } from '../context/object-errors.js';
import type { SyncPolicy } from '../policy/policy.js';
import { readHostFeatures } from '../tenant/host-features.js';
import { readHostPodSecurity } from '../tenant/host-pod-security.js';
import {
  type LastPassStatus,
  readTenantClusterStatus,
  type TenantClusterStatusPatch,
} from '../tenant/status.js';
import {
  outdatedCrdMessage,
  prunedStatusFields,
  writeTenantClusterStatus,
} from '../tenant/status-pruning.js';
import { conditionsPatch, conditionTime, passConditions } from './conditions.js';
import { hostFeaturesConditions, readPodFields } from './host-features-condition.js';
import { hostPodSecurityConditions } from './pod-security-condition.js';
import { actedBeyondRecordedSkips, skipDigest } from './skip-digest.js';

/** The default report interval for a clean pass that changed nothing. */
export const DEFAULT_STATUS_REPORT_INTERVAL_MS = 10 * 60_000;

/** Maximum errors written to status.lastPass.errors (the CRD's maxItems). */
const STATUS_ERRORS = 20;

/** The `status.lastPass` object of the TenantCluster CRD for a result. */
export function lastPassStatus(result: PassResult): LastPassStatus {
  const failed = result.failed ?? { Create: 0, Update: 0, Delete: 0, Skip: 0 };
  return {
    passId: result.passId,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    complete: result.complete,
    // null removes a reason left by an earlier incomplete pass (JSON merge patch).
    incompleteReason: result.incompleteReason ?? null,
    // lowerCamelCase in the API (PassResult keeps the Decision actions' names).
    counts: {
      create: result.counts.Create,
      update: result.counts.Update,
      delete: result.counts.Delete,
      skip: result.counts.Skip,
      alreadyGone: result.alreadyGone ?? 0,
    },
    // Failed Decisions apart from the counts, so a refused write never reads as done.
    failed: { create: failed.Create, update: failed.Update, delete: failed.Delete },
    failedCount: failed.Create + failed.Update + failed.Delete,
    skipDigest: skipDigest(result.decisions),
    errorCount: result.errors.length,
    errors: result.errors.slice(0, STATUS_ERRORS).map(formatObjectError),
    // Which path ran (resumed, full, resync) and why a kind did not resume (resume-point.ts).
    path: result.path ?? null,
    pathReason: result.pathReason ?? null,
  };
}

/** The parts of `status.lastPass` that say whether the pass was in trouble. */
function troubleOf(lastPass: Record<string, unknown>): string {
  const { complete, incompleteReason, errorCount, errors } = lastPass;
  return stableJson([complete, incompleteReason ?? null, errorCount ?? 0, errors ?? []]);
}

/** Whether a pass must write `status.lastPass`, given the recorded one (see the module doc). */
export function statusReportDue(
  recorded: unknown,
  next: Record<string, unknown>,
  nowMs: number,
  intervalMs: number = DEFAULT_STATUS_REPORT_INTERVAL_MS,
): boolean {
  if (recorded === null || typeof recorded !== 'object') return true;
  const previous = recorded as Record<string, unknown>;
  if (actedBeyondRecordedSkips(previous, next)) return true;
  if (troubleOf(previous) !== troubleOf(next)) return true;
  const finishedAt = Date.parse(String(previous.finishedAt));
  return !Number.isFinite(finishedAt) || nowMs - finishedAt >= intervalMs;
}

/** What one status report writes, and what it compares against. */
export interface StatusReport {
  /** The status as the pass read it. */
  recordedStatus: unknown;
  result: PassResult;
  /** How old `lastPass` may grow before an unchanged pass rewrites it. */
  intervalMs: number | undefined;
  /** Fields whose owners must write them this pass (retries, resume points). */
  more?: TenantClusterStatusPatch;
  /** Fields written only alongside a write that happens anyway. */
  alongside?: TenantClusterStatusPatch;
  /**
   * The pass's policy: a full pass of a policy that syncs Pods reads the host namespace's Pod
   * Security label for the `HostPodSecurity` condition (`pod-security-condition.ts`), and the
   * host's discovery for `HostFeatures` (`host-features-condition.ts`); a resumed pass, which
   * follows changes of the tenant's objects, leaves the recorded conditions alone.
   */
  policy?: SyncPolicy;
}

/**
 * Writes `status.lastPass` when it is due, or when the conditions (`HostPodSecurity` included,
 * read on a full pass: see {@link StatusReport.policy}) or `observedGeneration` changed (then with
 * them; see `conditions.ts`), or when `more` (other status fields, e.g. the retry
 * memory of `retry-backoff.ts`) is given; sets `result.statusWritten`. A failed write is an error
 * of the pass, not a failure of it: the pass's work is done either way. A written field the host
 * dropped (its TenantCluster CRD is out of date) is a `TenantClusterCrdOutdated` warning.
 */
export async function reportStatus(hostApi: ClusterApi, report: StatusReport): Promise<void> {
  const { recordedStatus, result, intervalMs, more, alongside, policy } = report;
  result.statusWritten = false;
  const lastPass = lastPassStatus(result);
  const recorded = readTenantClusterStatus({ status: recordedStatus }).lastPass;
  const generation = result.tenantClusterGeneration;
  const full = policy && result.path !== 'resumed' ? policy : undefined;
  const wall = full ? await readHostPodSecurity(hostApi, full) : undefined;
  const features = full ? await readHostFeatures(hostApi, full) : undefined;
  const pods = full ? await readPodFields(hostApi, full, result.tenant) : undefined;
  const conditions = [
    ...hostPodSecurityConditions(wall, recordedStatus, generation),
    ...hostFeaturesConditions(features, recordedStatus, generation, pods),
  ];
  const observed = conditionsPatch(
    recordedStatus,
    [...passConditions(result), ...conditions],
    generation,
    conditionTime(Date.parse(result.finishedAt)),
  );
  const due = statusReportDue(recorded, lastPass, Date.parse(result.finishedAt), intervalMs);
  if (!due && observed === undefined && more === undefined) return;
  try {
    // `alongside` (e.g. the resume points) is written only with a status write made anyway.
    const write = await writeTenantClusterStatus(
      hostApi,
      result.tenant,
      { lastPass },
      observed,
      alongside,
      more,
    );
    result.statusWritten = true;
    // A host CRD older than the engine drops what it does not know (`status-pruning.ts`).
    const pruned = write ? prunedStatusFields(write) : [];
    if (pruned.length > 0) {
      const warning = { reason: 'TenantClusterCrdOutdated', message: outdatedCrdMessage(pruned) };
      result.warnings = [...(result.warnings ?? []), warning];
    }
  } catch (error) {
    const reason = clusterReason(error);
    result.errors.push({
      kind: TENANT_CLUSTER.kind,
      message: `could not write status.lastPass: ${errorMessage(error)}`,
      ...(reason ? { reason } : {}),
    });
  }
}
