/**
 * The retry memory past its {@link MAX_RETRIES_REMEMBERED} detailed entries. Forgetting the rest
 * made them look new at the next pass: N objects the host keeps refusing cost N - 200 writes on
 * every pass, however long their back-off. So the entries that do not fit are folded, per kind and
 * operation, into one group that lists only a short digest of each object and the version that
 * failed (12 hex characters), with the latest retry time and the most failures among them: a
 * folded object still backs off (a little longer than it alone would, never shorter), and retries
 * at once when what the engine wants of it changes. The groups live in
 * `TenantCluster.status.retryOverflow`, at most {@link MAX_OVERFLOW_OBJECTS} digests in all
 * (about 15 bytes each); beyond that the soonest retries are forgotten.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../../common/index.js';
import type { KindRef, ObjectRef } from '../../ports/index.js';
import { resourceKey } from '../names/resource-key.js';
import type { RetryEntry } from './retry-entry.js';

/** Objects folded into groups, at most (about 150 KB of status). */
export const MAX_OVERFLOW_OBJECTS = 10_000;

/** One folded group, as `status.retryOverflow` holds it. */
export interface RetryGroup {
  apiVersion: string;
  kind: string;
  op: 'apply' | 'delete';
  reason: string;
  /** The most failures of any object in the group. */
  failures: number;
  /** RFC 3339: no object of the group is attempted before this, unless its version changes. */
  retryAfter: string;
  /** Digests of `<namespace>/<name>|<version>`, sorted. */
  objects: string[];
}

/** The digest a group lists for an object and the version that failed. */
export function overflowDigest(object: string, version: string): string {
  return createHash('sha256').update(`${object}|${version}`, 'utf8').digest('hex').slice(0, 12);
}

/** A group's key: its kind by resource key, and the operation. */
export function groupKey(kind: KindRef, op: string): string {
  return `${resourceKey(kind)}|${op}`;
}

function isGroup(value: unknown): value is RetryGroup {
  return (
    isRecord(value) &&
    typeof value.apiVersion === 'string' &&
    typeof value.kind === 'string' &&
    (value.op === 'apply' || value.op === 'delete') &&
    typeof value.reason === 'string' &&
    typeof value.failures === 'number' &&
    typeof value.retryAfter === 'string' &&
    Array.isArray(value.objects)
  );
}

/** The well-formed groups of a recorded `status.retryOverflow` (anything else is dropped). */
export function readRetryGroups(list: unknown): RetryGroup[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isGroup).map((g) => ({
    ...g,
    objects: g.objects.filter((o): o is string => typeof o === 'string'),
  }));
}

/**
 * The groups to record: `spilled` (the detailed entries that did not fit) folded into the groups
 * still waiting at `nowMs` (a group whose time has come is dropped: its objects were due this
 * pass, and those that failed again are among the entries). Sorted, and bounded.
 */
export function foldOverflow(
  waiting: ReadonlyMap<string, RetryGroup>,
  spilled: readonly RetryEntry[],
  nowMs: number,
): RetryGroup[] {
  const groups = new Map<string, RetryGroup & { set: Set<string> }>();
  for (const [key, group] of waiting) {
    if (Date.parse(group.retryAfter) <= nowMs) continue;
    groups.set(key, { ...group, set: new Set(group.objects) });
  }
  // Latest retries first, so the bound forgets the soonest.
  const ordered = [...spilled].sort((a, b) => b.retryAfter.localeCompare(a.retryAfter));
  let total = [...groups.values()].reduce((n, g) => n + g.set.size, 0);
  for (const entry of ordered) {
    if (total >= MAX_OVERFLOW_OBJECTS) break;
    const key = groupKey(entry, entry.op);
    const group = groups.get(key) ?? {
      apiVersion: entry.apiVersion,
      kind: entry.kind,
      op: entry.op,
      reason: entry.reason,
      failures: entry.failures,
      retryAfter: entry.retryAfter,
      objects: [],
      set: new Set<string>(),
    };
    const digest = overflowDigest(entry.object, entry.version);
    if (!group.set.has(digest)) total += 1;
    group.set.add(digest);
    group.failures = Math.max(group.failures, entry.failures);
    if (entry.retryAfter > group.retryAfter) {
      group.retryAfter = entry.retryAfter;
      group.reason = entry.reason;
    }
    groups.set(key, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { set, ...group }]) => ({ ...group, objects: [...set].sort() }));
}

/** What the retry memory asks of the folded groups (see the module doc). */
export class FoldedRetries {
  /** The groups as recorded. */
  readonly recorded: RetryGroup[];
  private readonly groups = new Map<string, RetryGroup>();
  private readonly digests = new Map<string, ReadonlySet<string>>();
  private count = 0;

  /** `list` is the recorded `status.retryOverflow`. */
  constructor(list: unknown) {
    this.recorded = readRetryGroups(list);
    for (const group of this.recorded) {
      this.groups.set(groupKey(group, group.op), group);
      this.digests.set(groupKey(group, group.op), new Set(group.objects));
    }
    this.recount();
  }

  private recount(): void {
    this.count = 0;
    for (const set of this.digests.values()) this.count += set.size;
  }

  /** Objects folded. */
  get size(): number {
    return this.count;
  }

  /** Whether a group of the object's kind and operation exists (it may list the object). */
  has(key: { kind: KindRef; op: string }): boolean {
    return this.groups.has(groupKey(key.kind, key.op));
  }

  /** The object at `version` as the entry its group stands for; undefined when not folded. */
  entry(
    key: { kind: KindRef; op: 'apply' | 'delete'; object: ObjectRef },
    version: string,
  ): RetryEntry | undefined {
    const gk = groupKey(key.kind, key.op);
    const group = this.groups.get(gk);
    const object = `${key.object.namespace}/${key.object.name}`;
    if (!group || !this.digests.get(gk)?.has(overflowDigest(object, version))) return undefined;
    const { apiVersion, kind, op, reason, failures, retryAfter } = group;
    return { apiVersion, kind, op, object, version, reason, failures, retryAfter };
  }

  /** Forgets the groups of kinds not in `wanted` (resource keys). */
  retainKinds(wanted: ReadonlySet<string>): void {
    for (const [key, group] of this.groups) {
      if (wanted.has(resourceKey(group))) continue;
      this.groups.delete(key);
      this.digests.delete(key);
    }
    this.recount();
  }

  /** {@link foldOverflow} of the groups held. */
  fold(spilled: readonly RetryEntry[], nowMs: number): RetryGroup[] {
    return foldOverflow(this.groups, spilled, nowMs);
  }
}
