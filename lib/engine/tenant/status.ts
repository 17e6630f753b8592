/**
 * `TenantCluster.status`, typed: the shape of every field, the one reader of a recorded status
 * and the one way a status patch is built and written. Each field has one owner that decides
 * its value (named on each field below); this module only knows its shape.
 *
 * The reader is tolerant: a status is the engine's memory, but anyone with `patch` on the status
 * subresource can edit it, so a missing, garbled or hand-edited field reads as absent (or, in a
 * list or map, the malformed entries are dropped) and never fails a pass.
 */
import { isRecord } from '../../common/index.js';
import {
  type ClusterApi,
  type KindRef,
  type KubeObject,
  type PassPath,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { type RetryEntry, readRetryEntries } from '../bounds/retry-backoff.js';
import { type RetryGroup, readRetryGroups } from '../bounds/retry-overflow.js';
import type { FollowStatusPatch } from './status-follow.js';

/** One kind's resume point in `status.resume` (owner: `resume-point.ts`). */
export interface ResumePoint {
  /** The tenant resourceVersion up to which every change of the kind has been converged. */
  resourceVersion: string;
  /** When it was recorded (RFC 3339). */
  at: string;
  /** When the kind last had a full two-sided pass (RFC 3339). */
  fullAt: string;
  /** Digest of the rule and host namespace the point holds for. */
  policy: string;
  /**
   * Pods: the highest host Pod resourceVersion up to which the status back converged; a host Pod
   * with a higher one changed since (`kinds/pod/pod-kind.ts`).
   */
  hostResourceVersion?: string;
}

/**
 * A kind the tenant has copies of, as `status.syncedKinds` records it: `sensitive` is kept (only
 * when true) so the retire and cleanup paths, which run after the kind left the policy or the
 * TenantCluster is gone, still withhold server messages about its objects (`error-text.ts`).
 */
export type SyncedKind = KindRef & { sensitive?: true };

/** `metav1.ConditionStatus`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One status condition, as `metav1.Condition` and the CRD define it (owner: `conditions.ts`). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** RFC 3339; when `status` last changed. */
  lastTransitionTime: string;
  /** `metadata.generation` of the TenantCluster the condition was set from. */
  observedGeneration?: number;
}

/** `status.lastPass.counts`: the Decisions carried out, by action, in lowerCamelCase. */
export type LastPassCounts = {
  create: number;
  update: number;
  delete: number;
  skip: number;
  alreadyGone: number;
};

/** `status.lastPass`: the latest reported pass (owner: `status-report.ts`). */
export type LastPassStatus = {
  passId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  complete: boolean;
  /** `null` removes the reason an earlier incomplete pass left (JSON merge patch). */
  incompleteReason: string | null;
  counts: LastPassCounts;
  /** Decisions whose write failed, by action. */
  failed: { create: number; update: number; delete: number };
  failedCount: number;
  /** Digest of the pass's Skips (`skip-digest.ts`), `null` without any. */
  skipDigest: string | null;
  errorCount: number;
  /** The first errors of the pass, in plain words. */
  errors: string[];
  path: PassPath | null;
  pathReason: string | null;
};

/** A recorded `status.lastPass`: the fields that are well-formed (an older engine wrote fewer). */
export type RecordedLastPass = Partial<LastPassStatus>;

/** The whole status, as read (every field as {@link readTenantClusterStatus} leaves it). */
export interface TenantClusterStatus {
  /** Kinds the tenant has copies of (owner: `lifecycle.ts`). */
  syncedKinds: SyncedKind[];
  /** Host namespaces the tenant has copies in (owner: `lifecycle.ts`). */
  hostNamespaces: string[];
  /**
   * Kinds of host classes the tenant cluster has copies of (`StorageClass`...), when any (owner:
   * `classes/host-classes.ts`): a kind that leaves `spec.fromHost` is cleaned up, then forgotten.
   */
  fromHostKinds?: string[];
  /** uid of the tenant cluster's kube-system namespace (owner: `tenant-identity.ts`). */
  tenantClusterId?: string;
  /** Resume points by resource key, `<apiVersion>/<kind>` (owner: `resume-point.ts`). */
  resume: Record<string, ResumePoint>;
  /** The retry memory (owner: `retry-backoff.ts`). */
  retries: RetryEntry[];
  /** The retry memory past its detailed entries, folded (owner: `retry-backoff.ts`). */
  retryOverflow: RetryGroup[];
  /** While the TenantCluster is being deleted, the copies left (owner: the pass's cleanup). */
  cleanup?: { copiesLeft: number };
  /** `metadata.generation` the latest reported pass read (owner: `conditions.ts`). */
  observedGeneration?: number;
  /** `Ready` and `Degraded`, and any condition someone else set (owner: `conditions.ts`). */
  conditions: Condition[];
  /** The latest reported pass (owner: `status-report.ts`). */
  lastPass?: RecordedLastPass;
}

/**
 * A JSON merge patch of `TenantCluster.status`: each field given replaces the recorded one,
 * `null` removes it; in `resume`, a kind's `null` removes that kind's point.
 */
export type TenantClusterStatusPatch = {
  syncedKinds?: SyncedKind[];
  hostNamespaces?: string[];
  fromHostKinds?: string[];
  tenantClusterId?: string | null;
  resume?: Record<string, ResumePoint | null>;
  retries?: RetryEntry[];
  retryOverflow?: RetryGroup[];
  cleanup?: { copiesLeft: number };
  observedGeneration?: number;
  conditions?: Condition[];
  lastPass?: LastPassStatus;
  follow?: FollowStatusPatch;
};

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;
const CONDITION_STATUSES: ReadonlySet<unknown> = new Set(['True', 'False', 'Unknown']);
const PASS_PATHS: ReadonlySet<unknown> = new Set(['resumed', 'full', 'resync']);

function listOf<T>(value: unknown, keep: (item: unknown) => T | undefined): T[] {
  if (!Array.isArray(value)) return [];
  const items: T[] = [];
  for (const item of value) {
    const kept = keep(item);
    if (kept !== undefined) items.push(kept);
  }
  return items;
}

function syncedKind(value: unknown): SyncedKind | undefined {
  if (!isRecord(value) || !isString(value.apiVersion) || !isString(value.kind)) return undefined;
  const kind: SyncedKind = { apiVersion: value.apiVersion, kind: value.kind };
  if (value.sensitive === true) kind.sensitive = true;
  return kind;
}

function resumePoints(value: unknown): Record<string, ResumePoint> {
  const points: Record<string, ResumePoint> = {};
  if (!isRecord(value)) return points;
  for (const [key, point] of Object.entries(value)) {
    if (!isRecord(point)) continue;
    const { resourceVersion, at, fullAt, policy, hostResourceVersion } = point;
    if (isString(resourceVersion) && isString(at) && isString(fullAt) && isString(policy)) {
      points[key] = { resourceVersion, at, fullAt, policy };
      if (isString(hostResourceVersion)) points[key].hostResourceVersion = hostResourceVersion;
    }
  }
  return points;
}

/**
 * The well-formed conditions (a known `type` and `status`), as recorded: what else a condition
 * carries is kept, so a condition another controller set is written back as it was.
 */
function condition(value: unknown): Condition | undefined {
  if (!isRecord(value) || !isString(value.type) || !CONDITION_STATUSES.has(value.status)) {
    return undefined;
  }
  return value as unknown as Condition;
}

/** The counts `keys` of a recorded object; one missing or garbled reads as 0. */
function numbersOf<K extends string>(
  value: unknown,
  keys: readonly K[],
): Record<K, number> | undefined {
  if (!isRecord(value)) return undefined;
  const numbers = {} as Record<K, number>;
  for (const key of keys) numbers[key] = isCount(value[key]) ? value[key] : 0;
  return numbers;
}

/** The well-formed fields of a recorded `status.lastPass`; `undefined` when it is not an object. */
function readLastPass(value: unknown): RecordedLastPass | undefined {
  if (!isRecord(value)) return undefined;
  const read: RecordedLastPass = {};
  for (const key of ['passId', 'startedAt', 'finishedAt'] as const) {
    const field = value[key];
    if (isString(field)) read[key] = field;
  }
  for (const key of ['durationMs', 'failedCount', 'errorCount'] as const) {
    const field = value[key];
    if (typeof field === 'number') read[key] = field;
  }
  if (typeof value.complete === 'boolean') read.complete = value.complete;
  for (const key of ['incompleteReason', 'skipDigest', 'pathReason'] as const) {
    const field = value[key];
    if (isString(field) || field === null) read[key] = field;
  }
  if (PASS_PATHS.has(value.path) || value.path === null) read.path = value.path as PassPath | null;
  const counts = numbersOf(value.counts, ['create', 'update', 'delete', 'skip', 'alreadyGone']);
  if (counts) read.counts = counts;
  const failed = numbersOf(value.failed, ['create', 'update', 'delete']);
  if (failed) read.failed = failed;
  if (Array.isArray(value.errors)) read.errors = value.errors.filter(isString);
  return read;
}

/**
 * The one reader of `TenantCluster.status`: every field typed, whatever was recorded (see the
 * module doc). `tenantCluster` may be undefined, or have no status yet: then everything is
 * absent or empty.
 */
export function readTenantClusterStatus(
  tenantCluster: KubeObject | { readonly status?: unknown } | undefined,
): TenantClusterStatus {
  const status = isRecord(tenantCluster?.status) ? tenantCluster.status : {};
  const read: TenantClusterStatus = {
    syncedKinds: listOf(status.syncedKinds, syncedKind),
    hostNamespaces: listOf(status.hostNamespaces, (n) => (isString(n) ? n : undefined)),
    resume: resumePoints(status.resume),
    retries: readRetryEntries(status.retries),
    retryOverflow: readRetryGroups(status.retryOverflow),
    conditions: listOf(status.conditions, condition),
  };
  if (isString(status.tenantClusterId)) read.tenantClusterId = status.tenantClusterId;
  const fromHostKinds = listOf(status.fromHostKinds, (k) => (isString(k) ? k : undefined));
  if (fromHostKinds.length > 0) read.fromHostKinds = fromHostKinds;
  if (isRecord(status.cleanup) && isCount(status.cleanup.copiesLeft)) {
    read.cleanup = { copiesLeft: status.cleanup.copiesLeft };
  }
  if (isCount(status.observedGeneration)) read.observedGeneration = status.observedGeneration;
  const lastPass = readLastPass(status.lastPass);
  if (lastPass) read.lastPass = lastPass;
  return read;
}

/**
 * The one patch builder: the parts that the fields' owners want written, as one merge patch (a
 * later part wins a field two parts set). `undefined` when no part sets anything, so a steady
 * state makes no write.
 */
export function statusPatch(
  ...parts: ReadonlyArray<TenantClusterStatusPatch | undefined>
): TenantClusterStatusPatch | undefined {
  const patch: Record<string, unknown> = {};
  for (const part of parts) {
    if (!part) continue;
    for (const [field, value] of Object.entries(part))
      if (value !== undefined) patch[field] = value;
  }
  return Object.keys(patch).length === 0 ? undefined : (patch as TenantClusterStatusPatch);
}

/**
 * Writes {@link statusPatch} of `parts` to the status subresource of TenantCluster `tenant`
 * (one merge patch); nothing when it is empty.
 * @returns whether a patch was sent. A failed write throws, as the client reports it.
 */
export async function patchTenantClusterStatus(
  hostApi: Pick<ClusterApi, 'patchStatus'>,
  tenant: string,
  ...parts: ReadonlyArray<TenantClusterStatusPatch | undefined>
): Promise<boolean> {
  const patch = statusPatch(...parts);
  if (!patch) return false;
  await hostApi.patchStatus(TENANT_CLUSTER, undefined, tenant, patch);
  return true;
}
