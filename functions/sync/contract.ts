/**
 * What the sync function and its infrastructure agree on: environment variable names, the
 * metrics namespace, dimension and metric names. Imported by the handler and by infra/, so the
 * alarms watch exactly the metrics the handler emits. No dependencies.
 */
export const SyncEnv = {
  Tenant: 'TENANT',
  TenantSecretId: 'TENANT_KUBECONFIG_SECRET_ID',
  HostSecretId: 'HOST_KUBECONFIG_SECRET_ID',
  MaxWrites: 'MAX_WRITES',
  PageSize: 'PAGE_SIZE',
  Concurrency: 'CONCURRENCY',
  SafetyMarginMs: 'SAFETY_MARGIN_MS',
  SecretsMaxAgeSeconds: 'SECRETS_MAX_AGE_SECONDS',
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
} as const;

/** The EventBridge detail-type of a manual sync request. */
export const SYNC_REQUESTED = 'SyncRequested';

/** Default time kept in reserve after the pass deadline (status write, Events, metrics flush). */
export const DEFAULT_SAFETY_MARGIN_MS = 10_000;
