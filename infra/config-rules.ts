/**
 * The rules of `config/tenants.yaml` across tenants and across fields (`config.ts` checks each
 * field): unique names, each tenant's own host credentials, and a follow that fits its timeout.
 */
import { isRecord } from '../lib/common/index.js';

/** One problem of the config: where (the path in the document) and what. */
export interface Problem {
  path: PropertyKey[];
  message: string;
}

/**
 * Which secret an id names, so that a name and an ARN of the same secret compare equal: the name
 * inside an ARN, without the `-XXXXXX` suffix Secrets Manager appends. Conservative on purpose:
 * two ids that might be one secret are treated as one.
 */
export function secretKey(id: string): string {
  const arn = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:(.+)$/.exec(id);
  return arn ? arn[1]!.replace(/-[A-Za-z0-9]{6}$/, '') : id;
}

/** `tenants[3] (qa)`, naming the tenant when it has a name. */
export function tenantLabel(raw: unknown, index: number): string {
  return isRecord(raw) && typeof raw.name === 'string' && raw.name
    ? `tenants[${index}] (${raw.name})`
    : `tenants[${index}]`;
}

/**
 * Rules across tenants, checked on the raw document rather than in the schema so that they are
 * reported even when some other field is wrong. Each tenant has its own host credentials: a host
 * secret shared by two tenants would give one identity both tenants' rights on the host (and the
 * per-namespace RBAC of `deploy/rbac/` cannot be deployed), and a tenant secret that is a host
 * secret would hand the host identity to a tenant cluster's pass.
 */
export function crossTenantProblems(doc: unknown): Problem[] {
  const found: Problem[] = [];
  if (!isRecord(doc) || !Array.isArray(doc.tenants)) return found;
  const tenants: unknown[] = doc.tenants;
  const names = new Map<unknown, number>();
  const hostSecrets = new Map<string, number>();
  tenants.forEach((raw, index) => {
    if (!isRecord(raw) || typeof raw.hostSecretId !== 'string') return;
    const key = secretKey(raw.hostSecretId);
    if (!hostSecrets.has(key)) hostSecrets.set(key, index);
  });
  tenants.forEach((raw, index) => {
    if (!isRecord(raw)) return;
    const first = names.get(raw.name);
    if (first !== undefined)
      found.push({ path: ['tenants', index, 'name'], message: `duplicate of tenants[${first}]` });
    else if (typeof raw.name === 'string') names.set(raw.name, index);
    if (typeof raw.tenantSecretId === 'string') {
      const owner = hostSecrets.get(secretKey(raw.tenantSecretId));
      if (owner !== undefined)
        found.push({
          path: ['tenants', index, 'tenantSecretId'],
          message: `must not be a host secret (it is the hostSecretId of ${tenantLabel(tenants[owner], owner)})`,
        });
    }
    if (typeof raw.hostSecretId === 'string') {
      const owner = hostSecrets.get(secretKey(raw.hostSecretId))!;
      if (owner !== index)
        found.push({
          path: ['tenants', index, 'hostSecretId'],
          message: `is already the host secret of ${tenantLabel(tenants[owner], owner)}: each tenant needs its own host credentials`,
        });
    }
  });
  return found;
}

const ACCESS = [
  { secret: 'tenantSecretId', eks: 'tenantEks', what: 'tenant cluster' },
  { secret: 'hostSecretId', eks: 'hostEks', what: 'host' },
] as const;

/**
 * Each cluster of a tenant is reached one way: a kubeconfig secret or an EKS cluster with the
 * function's IAM role, exactly one. A tenant cluster that is its own host is refused: a pass would
 * copy the host into itself.
 */
export function clusterAccessProblems(doc: unknown): Problem[] {
  if (!isRecord(doc) || !Array.isArray(doc.tenants)) return [];
  const found: Problem[] = [];
  doc.tenants.forEach((raw: unknown, index) => {
    if (!isRecord(raw)) return;
    for (const { secret, eks, what } of ACCESS) {
      if (raw[secret] !== undefined && raw[eks] !== undefined)
        found.push({
          path: ['tenants', index, eks],
          message: `set ${secret} or ${eks}, not both`,
        });
      else if (raw[secret] === undefined && raw[eks] === undefined)
        found.push({
          path: ['tenants', index, secret],
          message: `is required (or ${eks}: {clusterName, region}, for a ${what} on EKS reached with the function's IAM role)`,
        });
    }
    const [tenant, host] = [raw.tenantEks, raw.hostEks];
    if (
      isRecord(tenant) &&
      isRecord(host) &&
      tenant.clusterName === host.clusterName &&
      tenant.region === host.region
    )
      found.push({
        path: ['tenants', index, 'tenantEks'],
        message: 'must not be the host cluster (hostEks): a pass would copy the host into itself',
      });
  });
  return found;
}

/** The function timeout of a followed tenant that sets none: room to follow a burst of changes. */
export const DEFAULT_FOLLOW_TIMEOUT_SECONDS = 900;

/**
 * Time an invocation keeps for its first pass and its end, beyond `follow.quietSeconds`: a quiet
 * that does not fit in the timeout with this much to spare would never end a follow, which would
 * always run to its deadline instead (paying for it).
 */
export const FOLLOW_SPARE_SECONDS = 30;

/**
 * Each followed tenant's quiet must fit its function timeout (`budget.timeoutSeconds`, else
 * {@link DEFAULT_FOLLOW_TIMEOUT_SECONDS}) with {@link FOLLOW_SPARE_SECONDS} to spare. Fields of
 * the wrong type are left to the schema, which reports them.
 */
export function followProblems(doc: unknown): Problem[] {
  if (!isRecord(doc) || !Array.isArray(doc.tenants)) return [];
  const found: Problem[] = [];
  doc.tenants.forEach((raw: unknown, index) => {
    if (!isRecord(raw) || !isRecord(raw.follow)) return;
    const quiet = raw.follow.quietSeconds;
    const budget = isRecord(raw.budget) ? raw.budget : {};
    const timeout =
      budget.timeoutSeconds === undefined ? DEFAULT_FOLLOW_TIMEOUT_SECONDS : budget.timeoutSeconds;
    if (!Number.isInteger(quiet) || !Number.isInteger(timeout)) return;
    if ((quiet as number) + FOLLOW_SPARE_SECONDS > (timeout as number))
      found.push({
        path: ['tenants', index, 'follow', 'quietSeconds'],
        message: `must leave at least ${FOLLOW_SPARE_SECONDS} s of the function timeout (budget.timeoutSeconds ${String(timeout)}) for the pass and the end of the follow, got ${String(quiet)}`,
      });
  });
  return found;
}
