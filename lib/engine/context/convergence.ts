/**
 * What a pass carries so that every pass makes progress: the retry memory (objects backing off
 * after failures, `retry-backoff.ts`) and how many kinds share the write budget
 * (`PassBounds.beginKind`). Plus the garbage-collection side of it: orphans are deleted oldest
 * first, and a delete the host keeps refusing backs off like a failing apply.
 */
import type { Clock, KindRef, KubeObject, ObjectRef } from '../../ports/index.js';
import type { RetryEntry, RetryKey } from '../bounds/retry-backoff.js';
import { RetryMemory } from '../bounds/retry-backoff.js';
import { sourceKey } from '../names/provenance.js';
import { ourCopySource } from '../names/reverse-mapping.js';
import type { TenantClusterStatusPatch } from '../tenant/status.js';
import type { ObjectErrors } from './object-errors.js';

/** What the convergence helpers read and record into: the pass's part they use. */
export interface ConvergenceScope {
  readonly scope: { readonly dryRun: boolean };
  readonly memory: { readonly convergence: Convergence };
  readonly ledger: { readonly errors: ObjectErrors };
}

/** The convergence state of one pass. */
export interface Convergence {
  retries: RetryMemory;
  /**
   * Kinds of the policy, among which the write budget is shared, plus one when copies wait to be
   * retired: the retirement runs after the kinds, with a share of its own.
   */
  kindCount: number;
}

/** The convergence state of a new pass, from the TenantCluster's recorded status. */
export function newConvergence(
  recordedStatus: unknown,
  kinds: readonly KindRef[],
  clock: Clock,
  retiring = false,
): Convergence {
  const retries = new RetryMemory(recordedStatus, () => clock.now());
  retries.retainKinds(kinds);
  return { retries, kindCount: kinds.length + (retiring ? 1 : 0) };
}

/** Whether the retry memory holds `key`; an empty memory (the steady state) is asked nothing. */
export function remembers(convergence: Convergence, key: RetryKey): boolean {
  const { retries } = convergence;
  return retries.size > 0 && retries.has(key);
}

/** The status fields the convergence state wants written (`retries`), when they changed. */
export function convergenceStatus(
  ctx: ConvergenceScope,
): Pick<TenantClusterStatusPatch, 'retries' | 'retryOverflow'> | undefined {
  return ctx.scope.dryRun ? undefined : ctx.memory.convergence.retries.statusPatch();
}

/** The `ObjectError` of an object left alone this pass because it is backing off. */
export function backingOffMessage(entry: RetryEntry): string {
  const times = entry.failures === 1 ? 'once' : `${entry.failures} times`;
  return `not retried before ${entry.retryAfter}: it failed ${times} (${entry.reason}) and nothing changed since; a change of the tenant object retries it at once`;
}

/**
 * Reports an object left alone because it is backing off: an error of the pass (the object has not
 * converged), worded the same on every pass until the next attempt, so it rewrites no status.
 */
export function recordBackingOff(
  ctx: ConvergenceScope,
  kind: KindRef,
  refs: { tenantRef: ObjectRef; hostRef: ObjectRef },
  entry: RetryEntry,
): void {
  ctx.ledger.errors.errors.push({
    kind: kind.kind,
    tenantRef: refs.tenantRef,
    hostRef: refs.hostRef,
    message: backingOffMessage(entry),
    reason: entry.reason,
  });
}

function created(object: KubeObject): string {
  const stamp = object.metadata.creationTimestamp;
  return typeof stamp === 'string' ? stamp : '';
}

/**
 * Orphans in the order GC deletes them: oldest copy first (then by name). A copy's age bounds its
 * wait: under a write budget, newer orphans can never keep an older one waiting.
 */
export function oldestFirst<T extends { object: KubeObject }>(candidates: readonly T[]): T[] {
  return [...candidates].sort(
    (a, b) =>
      created(a.object).localeCompare(created(b.object)) ||
      a.object.metadata.name.localeCompare(b.object.metadata.name),
  );
}

/** One attempted delete, to be told how it went. */
export interface DeleteAttempt {
  done(error: unknown): void;
}

/**
 * Whether GC attempts to delete `copy` (of the tenant object `tenantRef`) in this pass: not while
 * a refused delete of the very same copy version backs off (then the object is reported as
 * backing off and `undefined` returned).
 */
export function deleteAttempt(
  ctx: ConvergenceScope,
  kind: KindRef,
  copy: KubeObject,
  refs: { tenantRef: ObjectRef; hostRef: ObjectRef },
): DeleteAttempt | undefined {
  const retries = ctx.memory.convergence.retries;
  const key: RetryKey = { kind, op: 'delete', object: refs.tenantRef };
  const version = copy.metadata.resourceVersion ?? copy.metadata.uid ?? '';
  const check = retries.check(key, version);
  if (!check.due) {
    recordBackingOff(ctx, kind, refs, check.entry);
    return undefined;
  }
  return {
    done: (error) => {
      if (error === undefined) retries.succeeded(key);
      else retries.failed(key, version, error);
    },
  };
}

/**
 * Forgets, after a complete listing of `kind`, the retry memory of sources and copies that are
 * gone: `desired` holds the sources still wanted, `hostObjects` the listed host side.
 */
export function forgetGone(
  ctx: { scope: { tenant: string }; memory: { convergence: Convergence } },
  kind: KindRef,
  desired: ReadonlySet<string>,
  hostObjects: readonly KubeObject[],
): void {
  const { retries } = ctx.memory.convergence;
  // An empty memory has nothing to forget: no need to look every host copy up.
  if (retries.size === 0) return;
  const owner = { tenant: ctx.scope.tenant, kind: kind.kind };
  const copies = new Set<string>();
  for (const object of hostObjects) {
    const source = ourCopySource(object, owner);
    if (source) copies.add(sourceKey(source.virtualNamespace, source.virtualName));
  }
  retries.retain(kind, (entry: RetryEntry) =>
    entry.op === 'apply' ? desired.has(entry.object) : copies.has(entry.object),
  );
}
