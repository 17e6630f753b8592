/**
 * The status back of a Pod: what the tenant Pod must show of its running host copy. Pure: from the
 * host Pod's status and the tenant Pod, the JSON merge patch of the tenant Pod's `/status`, or
 * `undefined` when the tenant already shows it (so a steady state writes nothing in the tenant).
 *
 * What is carried: phase, conditions, message, reason, the Pod and host IPs, the start time, and
 * the statuses of the tenant's own containers (by name: a container the host added is not the
 * tenant's). What is not: `qosClass` (immutable in the tenant, and the tenant apiserver computed
 * its own: vcluster #3578), `nominatedNodeName` (a host node the tenant has no use for), and
 * `observedGeneration` (the host Pod's generation, not the tenant's).
 */
import { isRecord, jsonEqual } from '../../../../common/index.js';
import type { KubeObject } from '../../../../ports/index.js';

/** The status fields the host decides, copied as they are. */
const COPIED = [
  'phase',
  'message',
  'reason',
  'podIP',
  'podIPs',
  'hostIP',
  'hostIPs',
  'startTime',
] as const;

/** Each container status list, with the spec list whose names it may keep. */
const STATUS_LISTS = [
  ['containerStatuses', 'containers'],
  ['initContainerStatuses', 'initContainers'],
  ['ephemeralContainerStatuses', 'ephemeralContainers'],
] as const;

/** Every field the status back owns in the tenant: anything else there is left as it is. */
export const POD_STATUS_FIELDS: readonly string[] = [
  ...COPIED,
  'conditions',
  ...STATUS_LISTS.map(([field]) => field),
];

function namesOf(spec: unknown, list: string): Set<string> {
  const items = isRecord(spec) ? spec[list] : undefined;
  const names = new Set<string>();
  if (!Array.isArray(items)) return names;
  for (const item of items) {
    if (isRecord(item) && typeof item.name === 'string') names.add(item.name);
  }
  return names;
}

/** A condition without the host's generation (it would claim a tenant generation it never saw). */
function tenantCondition(condition: unknown): unknown {
  if (!isRecord(condition)) return condition;
  const { observedGeneration: _generation, ...kept } = condition;
  return kept;
}

/**
 * The status the tenant Pod should show, from its host copy's status: only the fields of
 * {@link POD_STATUS_FIELDS}, container statuses narrowed to the tenant Pod's own containers.
 */
export function tenantPodStatus(
  hostStatus: Record<string, unknown>,
  tenantPod: KubeObject,
): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  for (const field of COPIED) {
    if (hostStatus[field] !== undefined) status[field] = hostStatus[field];
  }
  if (Array.isArray(hostStatus.conditions)) {
    status.conditions = hostStatus.conditions.map(tenantCondition);
  }
  for (const [field, specList] of STATUS_LISTS) {
    const listed = hostStatus[field];
    if (!Array.isArray(listed)) continue;
    const own = namesOf(tenantPod.spec, specList);
    const kept = listed.filter((s) => isRecord(s) && typeof s.name === 'string' && own.has(s.name));
    if (kept.length > 0) status[field] = kept;
  }
  return status;
}

/**
 * The JSON merge patch of the tenant Pod's `/status` that makes it show its host copy's status:
 * each owned field that differs (`null` for one the host no longer has), nothing else, so the
 * tenant's `qosClass` and anything another writer owns stay. `undefined` when the tenant Pod
 * already shows it.
 */
export function podStatusPatch(
  hostStatus: unknown,
  tenantPod: KubeObject,
): Record<string, unknown> | undefined {
  if (!isRecord(hostStatus)) return undefined;
  const desired = tenantPodStatus(hostStatus, tenantPod);
  const current = isRecord(tenantPod.status) ? tenantPod.status : {};
  const patch: Record<string, unknown> = {};
  for (const field of POD_STATUS_FIELDS) {
    const want = desired[field];
    const have = current[field];
    if (want === undefined) {
      if (have !== undefined && have !== null) patch[field] = null;
    } else if (have === undefined || !jsonEqual(want, have)) {
      patch[field] = want;
    }
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/**
 * Whether a host Pod's status is where it will stay for a while: Ready, or ended (`Succeeded`,
 * `Failed`). A Pod still starting changes its status without its tenant Pod changing, which a
 * resumed pass would not see (`kinds/pod/status-back.ts`).
 */
export function podStatusSettled(hostStatus: unknown): boolean {
  if (!isRecord(hostStatus)) return false;
  if (hostStatus.phase === 'Succeeded' || hostStatus.phase === 'Failed') return true;
  const conditions = Array.isArray(hostStatus.conditions) ? hostStatus.conditions : [];
  return conditions.some((c) => isRecord(c) && c.type === 'Ready' && c.status === 'True');
}
