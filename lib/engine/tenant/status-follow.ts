/** The shape of `TenantCluster.status.follow` as a merge patch writes it. */
/**
 * `status.follow`, the latest follow of the tenant (owner: `follow/follow-status.ts`); `null`
 * removes a field (an active follow has no end yet).
 */
export interface FollowStatusPatch {
  active: boolean;
  holder: string;
  since: string;
  passes: number;
  changes: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
  endedAt: string | null;
  endReason: string | null;
}
