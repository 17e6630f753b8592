/**
 * Recording a pass-level failure (an unreachable tenant cluster, an invalid policy...) in the
 * TenantCluster's conditions: `Ready` False and `Degraded` True with a reason, so `kubectl get
 * tenantclusters` and `kubectl wait` show what the function's logs say. Best effort: the
 * original failure is what the caller reports; this never throws.
 */
import { errorMessage } from '../../common/index.js';
import {
  type Clock,
  type ClusterApi,
  ClusterRole,
  systemClock,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import {
  ClusterUnreachableError,
  InvalidPolicyError,
  PassError,
  TenantClusterNotFoundError,
} from '../errors.js';
import { patchTenantClusterStatus } from '../tenant/status.js';
import {
  type ConditionInput,
  ConditionReason,
  conditionsPatch,
  conditionTime,
  outcomeConditions,
} from './conditions.js';

/** Options of {@link reportPassFailure}. */
export interface PassFailureReportOptions {
  /** Dates `lastTransitionTime` (default: the system clock). */
  clock?: Clock;
  /** A dry run writes nothing, its failure included: nothing is reported. */
  dryRun?: boolean;
}

/**
 * The reason of a pass-level failure: `TenantClusterUnreachable`, `InvalidPolicy`, the name of
 * any other {@link PassError} without its `Error` suffix (e.g. `TenantClusterChanged`), else
 * `PassFailed`.
 */
export function failureReason(error: unknown): string {
  if (error instanceof ClusterUnreachableError) {
    return error.role === ClusterRole.Tenant
      ? ConditionReason.TenantClusterUnreachable
      : ConditionReason.PassFailed;
  }
  if (error instanceof InvalidPolicyError) return ConditionReason.InvalidPolicy;
  const named = error instanceof PassError ? /^([A-Z][A-Za-z0-9]*)Error$/.exec(error.name) : null;
  return named?.[1] && named[1] !== 'Pass' ? named[1] : ConditionReason.PassFailed;
}

/** The conditions a pass-level failure asserts (`Ready` False, `Degraded` True). */
export function failureConditions(
  error: unknown,
  generation: number | undefined,
): ConditionInput[] {
  const message = `the pass failed: ${errorMessage(error)}`;
  return outcomeConditions(false, failureReason(error), message, generation);
}

/** Whether the host can hold a report of `error` at all. */
function reportable(error: unknown): boolean {
  if (error instanceof TenantClusterNotFoundError) return false;
  return !(error instanceof ClusterUnreachableError && error.role === ClusterRole.Host);
}

/**
 * Records `error`, which failed a pass of `tenant`, in the TenantCluster's conditions and
 * `observedGeneration`: one GET of the TenantCluster, and one status patch only when the
 * conditions change (a failure that repeats writes nothing more). Nothing is attempted for a dry
 * run, a missing TenantCluster or an unreachable host.
 * @returns whether the status was written; never throws.
 */
export async function reportPassFailure(
  hostApi: ClusterApi,
  tenant: string,
  error: unknown,
  options: PassFailureReportOptions = {},
): Promise<boolean> {
  if (options.dryRun === true || !reportable(error)) return false;
  const clock = options.clock ?? systemClock;
  try {
    const tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
    if (!tenantCluster) return false;
    const { generation } = tenantCluster.metadata;
    const observed = typeof generation === 'number' ? generation : undefined;
    const now = conditionTime(clock.now());
    const next = failureConditions(error, observed);
    const patch = conditionsPatch(tenantCluster.status, next, observed, now);
    return await patchTenantClusterStatus(hostApi, tenant, patch);
  } catch {
    // Best effort: the pass's own failure is what the caller reports.
    return false;
  }
}
