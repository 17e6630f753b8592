/**
 * What the sync function and its infrastructure agree on: environment variable names, the
 * metrics namespace, dimension and metric names. Imported by the handler and by infra/, so the
 * alarms watch exactly the metrics the handler emits. No dependencies.
 */
export const SyncEnv = {
  Tenant: 'TENANT',
  TenantSecretId: 'TENANT_KUBECONFIG_SECRET_ID',
  HostSecretId: 'HOST_KUBECONFIG_SECRET_ID',
  /** Instead of a secret: an EKS cluster reached with the function's own IAM role. */
  TenantEksCluster: 'TENANT_EKS_CLUSTER_NAME',
  TenantEksRegion: 'TENANT_EKS_REGION',
  HostEksCluster: 'HOST_EKS_CLUSTER_NAME',
  HostEksRegion: 'HOST_EKS_REGION',
  MaxWrites: 'MAX_WRITES',
  PageSize: 'PAGE_SIZE',
  Concurrency: 'CONCURRENCY',
  SafetyMarginMs: 'SAFETY_MARGIN_MS',
  SecretsMaxAgeSeconds: 'SECRETS_MAX_AGE_SECONDS',
  /** Set for a followed tenant (`follow.quietSeconds` in config/tenants.yaml). */
  FollowQuietSeconds: 'FOLLOW_QUIET_SECONDS',
} as const;

export const SERVICE_NAME = 'tenantplane-sync';
export const METRICS_NAMESPACE = 'Tenantplane';
/** The only metrics dimension: the tenant cluster name. */
export const TENANT_DIMENSION = 'tenant';

export const SyncMetric = {
  Creates: 'Creates',
  Updates: 'Updates',
  Deletes: 'Deletes',
  Skips: 'Skips',
  /** Decisions whose write failed (counted apart from Creates, Updates and Deletes). */
  FailedWrites: 'FailedWrites',
  /** Deletes that found their host object already gone (not in Deletes). */
  AlreadyGone: 'AlreadyGone',
  ObjectErrors: 'ObjectErrors',
  ObjectsSeen: 'ObjectsSeen',
  PassDurationMs: 'PassDurationMs',
  PassComplete: 'PassComplete',
  PassIncomplete: 'PassIncomplete',
  /** 1 when the pass resumed every kind, else 0 (full, resync, none): its Average is the hit rate. */
  ResumeHit: 'ResumeHit',
  /**
   * Seconds an invocation of a followed tenant spent following after its pass (0 when the pass
   * found the tenant idle): its Sum is the followed time the function is billed for.
   */
  FollowedSeconds: 'FollowedSeconds',
  /** Changes a follow converged (each watch event that woke one of its passes). */
  FollowChanges: 'FollowChanges',
  /** Passes a follow ran (each also publishes the pass metrics above). */
  FollowPasses: 'FollowPasses',
  /** Per invocation: the median latency of its follow's changes, arrival to converged. */
  ChangeLatencyP50: 'ChangeLatencyP50',
  /** Per invocation: the 99th percentile latency of its follow's changes. */
  ChangeLatencyP99: 'ChangeLatencyP99',
  /** Passes of a follow that failed as a whole (the follow went on; the invocation did not fail). */
  FollowFailures: 'FollowFailures',
  /** 1 for a tick dropped because another process held the tenant's lease (it follows it). */
  TicksDropped: 'TicksDropped',
  /** 1 for an invocation the wake endpoint sent (`{"wake": true}`), else 0 (docs/wake.md). */
  Wakes: 'Wakes',
} as const;

/** The EventBridge detail-type of a manual sync request. */
export const SYNC_REQUESTED = 'SyncRequested';

/** Default time kept in reserve after the pass deadline (status write, Events, metrics flush). */
export const DEFAULT_SAFETY_MARGIN_MS = 10_000;
