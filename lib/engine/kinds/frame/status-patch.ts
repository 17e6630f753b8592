/**
 * Status back (Pods have `pod/translate/status.ts`): what the tenant object must show of its host
 * copy, by the kind's {@link StatusBackRule} (each kind's module holds its own). Pure: from the host copy and the tenant object,
 * the JSON merge patch of the tenant object's `/status`, or `undefined` when it shows it already
 * (so a steady state writes nothing in the tenant).
 *
 * - **Service**: `status.loadBalancer` (the host's load balancer ingress: the address a tenant's
 *   clients reach), and `status.conditions`. The host's cluster IP is not a status field: the
 *   tenant Service has the same one (`service/cluster-ip.ts`, `service/realign.ts`).
 * - **Ingress**: `status.loadBalancer`.
 * - **PersistentVolumeClaim**: `phase`, `capacity`, `accessModes`, `conditions`, and the resize
 *   state (`allocatedResources`, `allocatedResourceStatuses`). `spec.volumeName` is not carried: the
 *   host's volume is not the tenant's, and no tenant-side stand-in volume is made.
 */
import { isRecord, jsonEqual } from '../../../common/index.js';
import type { KindRef, KubeObject } from '../../../ports/index.js';

/** How one kind's status comes back. */
export interface StatusBackRule {
  readonly kind: KindRef;
  /** The status fields the tenant object shows of its host copy; anything else stays. */
  readonly fields: readonly string[];
  /**
   * Whether the host copy's status is where it will stay a while: one still moving (a claim not
   * bound yet) changes while its tenant object does not, which only a full pass sees
   * (`status-back.ts`). A load balancer address is not waited for: it may never come.
   */
  settled(host: KubeObject): boolean;
  /**
   * The host copy's status as the tenant object shows it, when it names host objects (a route's
   * parents: the host Gateway as the tenant named it); absent, the host's status as it is. Pure.
   */
  toTenant?(hostStatus: Record<string, unknown>, tenant: KubeObject): Record<string, unknown>;
  /**
   * Condition types the tenant's own controllers write on the tenant object, about the tenant's
   * own objects: kept as the tenant has them, never taken from the host (a host of an older
   * release may not report them at all: docs/versions.md).
   */
  readonly tenantConditions?: readonly string[];
}

/** The host's `conditions`, less the tenant's own types, then the tenant's own as it has them. */
function conditionsBack(own: ReadonlySet<unknown>, host: unknown, tenant: unknown): unknown[] {
  const typeOf = (c: unknown) => (isRecord(c) ? c.type : undefined);
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  return [
    ...list(host).filter((c) => !own.has(typeOf(c))),
    ...list(tenant).filter((c) => own.has(typeOf(c))),
  ];
}

/** The status of an object, `{}` when it has none. */
export function statusOf(object: KubeObject): Record<string, unknown> {
  return isRecord(object.status) ? object.status : {};
}

/** An empty load balancer status is no status: the tenant's `{}` and an absent one are the same. */
function meaningful(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (isRecord(value)) return Object.values(value).some(meaningful);
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * The JSON merge patch of the tenant object's `/status` that makes it show its host copy's
 * status: each field of the rule that differs (`null` for one the host no longer has), nothing
 * else. `undefined` when the tenant object shows it already.
 */
export function statusBackPatch(
  rule: StatusBackRule,
  host: KubeObject,
  tenant: KubeObject,
): Record<string, unknown> | undefined {
  // A copy the host has not reported on yet says nothing: what the tenant shows stays.
  if (!isRecord(host.status)) return undefined;
  const want = rule.toTenant ? rule.toTenant(statusOf(host), tenant) : statusOf(host);
  const have = statusOf(tenant);
  const patch: Record<string, unknown> = {};
  const own = new Set<unknown>(rule.tenantConditions ?? []);
  for (const field of rule.fields) {
    const value =
      field === 'conditions' && own.size > 0
        ? conditionsBack(own, want.conditions, have.conditions)
        : want[field];
    const wanted = meaningful(value) ? value : undefined;
    const had = meaningful(have[field]) ? have[field] : undefined;
    if (wanted === undefined) {
      if (had !== undefined) patch[field] = null;
    } else if (had === undefined || !jsonEqual(wanted, had)) {
      patch[field] = wanted;
    }
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
