/**
 * Retry with back-off, remembered between passes: an object whose write failed for a reason that
 * will not go away by itself (an admission policy, a quota, an invalid object) is not attempted
 * again on every pass, where it would spend the write budget on the same failure forever. It is
 * retried after a delay that doubles with each failure for the same reason (at most once per
 * {@link DEFAULT_BACKOFF}.maxMs), and at once when what the engine wants of it changes (the
 * tenant edited the source, or a copy to delete changed).
 *
 * The function is stateless, so the memory lives in `TenantCluster.status.retries`: a bounded
 * list written only when it changes (a failing attempt, a success, a forgotten source), never by
 * a pass that merely skipped the objects that are backing off.
 */
import { isRecord, jsonEqual } from '../../common/index.js';
import { ClusterError, type KindRef, type ObjectRef } from '../../ports/index.js';
import { resourceKey, sameKind } from '../names/resource-key.js';
import type { RetryEntry } from './retry-entry.js';
import { FoldedRetries, type RetryGroup } from './retry-overflow.js';

export type { RetryEntry } from './retry-entry.js';

/** Back-off delays: `baseMs` after the first failure, doubling up to `maxMs`. */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/** Ten minutes after the first failure (two passes on a five-minute schedule), at most an hour. */
export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({
  baseMs: 10 * 60_000,
  maxMs: 60 * 60_000,
});

/**
 * At most this many objects are remembered in detail; beyond it the soonest retries are folded
 * into digest groups (`retry-overflow.ts`), so they keep backing off.
 */
export const MAX_RETRIES_REMEMBERED = 200;

/** 4xx answers that pass by themselves: the next pass retries them as usual. */
const TRANSIENT: ReadonlySet<string> = new Set([
  'Conflict',
  'AlreadyExists',
  'NotFound',
  'TooManyRequests',
  'Expired',
]);

/**
 * Whether a failure will not go away by itself: the host refused the object (Invalid, Forbidden:
 * an admission policy, a quota, a size limit; any other 4xx answer but a conflict, a missing
 * object, 410 or 429). Server trouble (a 5xx: the server, not the object), no answer and errors of
 * the engine's own are retried at the next pass as usual.
 */
export function persistentFailure(error: unknown): boolean {
  if (!(error instanceof ClusterError)) return false;
  const { status } = error;
  if (status !== undefined && status >= 500) return false;
  if (error.reason === 'Invalid' || error.reason === 'Forbidden') return true;
  return status !== undefined && status >= 400 && !TRANSIENT.has(error.reason);
}

/** Which object a retry entry is about. */
export interface RetryKey {
  kind: KindRef;
  op: RetryEntry['op'];
  object: ObjectRef;
}

/** One object's key in the memory: its kind by resource key, so two groups' Kinds never mix. */
function keyOf({ kind, op, object }: RetryKey): string {
  return `${resourceKey(kind)}|${op}|${object.namespace}/${object.name}`;
}

function entryKey(e: RetryEntry): string {
  return `${resourceKey(e)}|${e.op}|${e.object}`;
}

function isEntry(value: unknown): value is RetryEntry {
  return (
    isRecord(value) &&
    typeof value.apiVersion === 'string' &&
    typeof value.kind === 'string' &&
    (value.op === 'apply' || value.op === 'delete') &&
    typeof value.object === 'string' &&
    typeof value.version === 'string' &&
    typeof value.reason === 'string' &&
    typeof value.failures === 'number' &&
    typeof value.retryAfter === 'string'
  );
}

/**
 * The well-formed entries of a recorded `status.retries` list (anything else is dropped): the
 * retry memory's part of reading `TenantCluster.status` (`tenant/status.ts`).
 */
export function readRetryEntries(list: unknown): RetryEntry[] {
  return Array.isArray(list) ? list.filter(isEntry) : [];
}

/** Whether an attempt is due, and what the memory says about the object. */
export type RetryCheck = { due: true; replace?: string[] } | { due: false; entry: RetryEntry };

/** The retry memory of one pass: read from the recorded status, written back when it changed. */
export class RetryMemory {
  private readonly entries = new Map<string, RetryEntry>();
  private readonly recorded: RetryEntry[];
  /** The memory past {@link MAX_RETRIES_REMEMBERED} entries, folded (`retry-overflow.ts`). */
  private readonly folded: FoldedRetries;

  private nowMs: number | undefined;

  /**
   * `recordedStatus` is the TenantCluster's status (read or raw; only its `retries` are read).
   * `clock` is read once, when the memory first needs the time: the pass's "now".
   */
  constructor(
    recordedStatus: unknown,
    private readonly clock: () => number,
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF,
  ) {
    const status = isRecord(recordedStatus) ? recordedStatus : {};
    this.recorded = readRetryEntries(status.retries);
    for (const entry of this.recorded) this.entries.set(entryKey(entry), entry);
    this.folded = new FoldedRetries(status.retryOverflow);
  }

  /** Whether the object failed before at this very `version`: an attempt now is a retry. */
  failedBefore(key: RetryKey, version: string): boolean {
    return (this.entries.get(keyOf(key)) ?? this.folded.entry(key, version))?.version === version;
  }

  private now(): number {
    this.nowMs ??= this.clock();
    return this.nowMs;
  }

  /** Objects currently remembered (in detail, or folded). */
  get size(): number {
    return this.entries.size + this.folded.size;
  }

  /** Whether anything may be remembered about the object: an entry, or a group of its kind. */
  has(key: RetryKey): boolean {
    return this.entries.has(keyOf(key)) || this.folded.has(key);
  }

  /**
   * Whether to attempt the object now: yes when nothing is remembered, when `version` differs from
   * the failed one (its source changed: retry at once), or once `retryAfter` has passed.
   */
  check(key: RetryKey, version: string): RetryCheck {
    const entry = this.entries.get(keyOf(key)) ?? this.folded.entry(key, version);
    if (!entry || entry.version !== version) return { due: true };
    if (Date.parse(entry.retryAfter) <= this.now()) {
      return entry.replace ? { due: true, replace: entry.replace } : { due: true };
    }
    return { due: false, entry };
  }

  /** The object converged (or needs nothing any more): forget it. */
  succeeded(key: RetryKey): void {
    this.entries.delete(keyOf(key));
  }

  /**
   * An attempt failed. Transient failures are forgotten (the next pass retries); any other failure
   * for the same version and reason doubles the delay, a new one starts it afresh. `replace`
   * asks for a replacement at the next pass, without delay.
   */
  failed(key: RetryKey, version: string, error: unknown, replace?: string[]): void {
    if (!persistentFailure(error) && !replace) {
      this.succeeded(key);
      return;
    }
    const reason = error instanceof ClusterError ? error.reason : 'Unknown';
    const previous = this.entries.get(keyOf(key)) ?? this.folded.entry(key, version);
    const again = previous?.version === version && previous.reason === reason;
    const failures = again ? previous.failures + 1 : 1;
    const delay = replace
      ? 0
      : Math.min(this.policy.maxMs, this.policy.baseMs * 2 ** Math.min(failures - 1, 30));
    const entry: RetryEntry = {
      apiVersion: key.kind.apiVersion,
      kind: key.kind.kind,
      op: key.op,
      object: `${key.object.namespace}/${key.object.name}`,
      version,
      reason,
      failures,
      retryAfter: new Date(this.now() + delay).toISOString(),
    };
    if (replace) entry.replace = replace;
    this.entries.set(keyOf(key), entry);
  }

  /**
   * After a complete listing of `kind`: forgets the entries whose object `keep` rejects (the
   * source is gone, or the copy to delete is).
   */
  retain(kind: KindRef, keep: (entry: RetryEntry) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (!sameKind(entry, kind)) continue;
      if (!keep(entry)) this.entries.delete(key);
    }
  }

  /** Forgets every entry of a kind not in `kinds` (it left the policy). */
  retainKinds(kinds: readonly KindRef[]): void {
    const wanted = new Set(kinds.map(resourceKey));
    for (const [key, entry] of this.entries) {
      if (!wanted.has(resourceKey(entry))) this.entries.delete(key);
    }
    this.folded.retainKinds(wanted);
  }

  /** The detailed entries, latest retries first. */
  private byRetry(): RetryEntry[] {
    return [...this.entries.values()].sort(
      (a, b) => b.retryAfter.localeCompare(a.retryAfter) || entryKey(a).localeCompare(entryKey(b)),
    );
  }

  /** The list to record: the latest retries kept when there are too many, in a stable order. */
  list(): RetryEntry[] {
    return this.byRetry()
      .slice(0, MAX_RETRIES_REMEMBERED)
      .sort((a, b) => entryKey(a).localeCompare(entryKey(b)));
  }

  /** The folded groups to record: the entries {@link list} leaves out, and the groups waiting. */
  overflow(): RetryGroup[] {
    return this.folded.fold(this.byRetry().slice(MAX_RETRIES_REMEMBERED), this.now());
  }

  /**
   * `{retries, retryOverflow}` for the status patch when the memory changed; `undefined` when it
   * did not. An empty overflow that was never recorded is not written.
   */
  statusPatch(): { retries: RetryEntry[]; retryOverflow?: RetryGroup[] } | undefined {
    const next = this.list();
    const before = [...this.recorded].sort((a, b) => entryKey(a).localeCompare(entryKey(b)));
    const overflow = this.folded.size > 0 || this.entries.size > MAX_RETRIES_REMEMBERED;
    const groups = overflow ? this.overflow() : [];
    const { recorded } = this.folded;
    if (jsonEqual(next, before) && jsonEqual(groups, recorded)) return undefined;
    return groups.length > 0 || recorded.length > 0
      ? { retries: next, retryOverflow: groups }
      : { retries: next };
  }
}
