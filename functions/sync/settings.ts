/** The function's configuration, from its environment (set by infra/), validated. */

import type { EksClusterRef } from '../../lib/adapters/eks/token.js';
import { DEFAULT_SECRETS_MAX_AGE_SECONDS } from '../../lib/adapters/kubeconfig/secrets-manager-source.js';
import type { ClusterRole } from '../../lib/ports/index.js';
import { DEFAULT_SAFETY_MARGIN_MS, SyncEnv } from './contract.js';

/** How each cluster is reached: exactly one of a kubeconfig secret and an EKS cluster. */
export interface SyncSettings {
  tenant: string;
  tenantSecretId?: string;
  hostSecretId?: string;
  /** The tenant cluster on EKS, reached with the function's IAM role. */
  tenantEks?: EksClusterRef;
  /** The host cluster on EKS, reached with the function's IAM role. */
  hostEks?: EksClusterRef;
  maxWrites?: number;
  pageSize?: number;
  concurrency?: number;
  safetyMarginMs: number;
  secretsMaxAgeSeconds: number;
  /** Set for a followed tenant: end a follow after this many seconds without a change. */
  followQuietSeconds?: number;
}

export class SettingsError extends Error {
  constructor(problem: string) {
    super(`sync function misconfigured: ${problem}`);
    this.name = 'SettingsError';
  }
}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const v = env[name]?.trim();
  if (!v) throw new SettingsError(`environment variable ${name} is not set`);
  return v;
}

function int(env: Env, name: string, min: number): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new SettingsError(
      `environment variable ${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

const ACCESS_ENV = {
  tenant: {
    secret: SyncEnv.TenantSecretId,
    cluster: SyncEnv.TenantEksCluster,
    region: SyncEnv.TenantEksRegion,
  },
  host: {
    secret: SyncEnv.HostSecretId,
    cluster: SyncEnv.HostEksCluster,
    region: SyncEnv.HostEksRegion,
  },
} as const;

/** One cluster's access: its secret id, or its EKS cluster (name and region both set). */
function access(env: Env, role: ClusterRole): { secretId: string } | { eks: EksClusterRef } {
  const names = ACCESS_ENV[role];
  const secretId = env[names.secret]?.trim();
  const clusterName = env[names.cluster]?.trim();
  if (secretId && clusterName)
    throw new SettingsError(`set ${names.secret} or ${names.cluster}, not both`);
  if (secretId) return { secretId };
  if (!clusterName)
    throw new SettingsError(
      `environment variable ${names.secret} (or ${names.cluster}) is not set`,
    );
  return { eks: { clusterName, region: required(env, names.region) } };
}

/**
 * Reads and checks the settings.
 * @throws SettingsError naming the variable that is missing or wrong.
 */
export function readSettings(env: Env): SyncSettings {
  const tenantAccess = access(env, 'tenant');
  const hostAccess = access(env, 'host');
  const settings: SyncSettings = {
    tenant: required(env, SyncEnv.Tenant),
    ...('eks' in tenantAccess
      ? { tenantEks: tenantAccess.eks }
      : { tenantSecretId: tenantAccess.secretId }),
    ...('eks' in hostAccess ? { hostEks: hostAccess.eks } : { hostSecretId: hostAccess.secretId }),
    safetyMarginMs: int(env, SyncEnv.SafetyMarginMs, 0) ?? DEFAULT_SAFETY_MARGIN_MS,
    secretsMaxAgeSeconds:
      int(env, SyncEnv.SecretsMaxAgeSeconds, 0) ?? DEFAULT_SECRETS_MAX_AGE_SECONDS,
  };
  const maxWrites = int(env, SyncEnv.MaxWrites, 0);
  const pageSize = int(env, SyncEnv.PageSize, 1);
  const concurrency = int(env, SyncEnv.Concurrency, 1);
  if (maxWrites !== undefined) settings.maxWrites = maxWrites;
  if (pageSize !== undefined) settings.pageSize = pageSize;
  if (concurrency !== undefined) settings.concurrency = concurrency;
  const quietSeconds = int(env, SyncEnv.FollowQuietSeconds, 1);
  if (quietSeconds !== undefined) settings.followQuietSeconds = quietSeconds;
  return settings;
}
