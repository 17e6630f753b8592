/**
 * Missing references: a Pod whose required reference (a ConfigMap volume, a Secret in `envFrom`,
 * a claim) has no host copy would be created on the host only to fail there (or, worse, to pick
 * up a host object of that name). So it is not created: its Decision is a Skip naming the missing
 * reference and why, and it is created in the pass where the reference exists. Referenced kinds
 * are applied first in a pass ({@link applyOrder}), so a reference synced in the same pass counts.
 *
 * Only creates are checked: a Pod's references cannot change once it exists, so an existing copy
 * costs no request here. A referenced copy this pass wrote, deleted or listed is known without a
 * request (`context/known-copies.ts`); only one it knows nothing of (its kind resumed) is read.
 */
import type { KindRef, KubeObject } from '../../ports/index.js';
import type { PassContext } from '../context/pass-context.js';
import { readKey } from '../context/read-ahead.js';
import { type ObjectReference, referencedKinds } from '../kinds/registry.js';
import { hostName } from '../names/naming.js';
import { resourceKey, sameKind } from '../names/resource-key.js';
import { reverseLookup } from '../names/reverse-mapping.js';
import type { KindRule } from '../policy/policy.js';
import type { ApplyItem } from './tenant-view.js';

/** Whether a referenced object has a live host copy, by kind and host name: read once a pass. */
const COPIES_SEEN = readKey<Map<string, Promise<boolean>>>('referenced-copies');

function settleSeen(seen: Map<string, Promise<boolean>>): Promise<unknown> {
  return Promise.allSettled(seen.values());
}

function hasCopy(ctx: PassContext, ref: ObjectReference, vns: string): Promise<boolean> {
  let seen = ctx.readAhead.peek(COPIES_SEEN);
  if (!seen) {
    seen = new Map();
    ctx.readAhead.start(COPIES_SEEN, seen, settleSeen);
  }
  const { tenant, hostNamespace, hostApi } = ctx.scope;
  const name = hostName(ref.name, vns, tenant);
  // Written, deleted or listed by this pass: known without a request (`known-copies.ts`).
  const known = ctx.ledger.copies.lookup(ref, name);
  if (known.state === 'written') return Promise.resolve(true);
  if (known.state === 'deleted') return Promise.resolve(false);
  if (known.state === 'listed') return Promise.resolve(isCopyOf(known.copy, ref, vns, tenant));
  const key = `${resourceKey(ref)}/${name}`;
  let read = seen.get(key);
  if (!read) {
    read = hostApi.get(ref, hostNamespace, name).then((copy) => isCopyOf(copy, ref, vns, tenant));
    seen.set(key, read);
    // A failed read is retried by the next object, not remembered.
    read.catch(() => seen.delete(key));
  }
  return read;
}

/** Whether `copy` is this tenant's live copy of that very object, never a foreign one. */
function isCopyOf(
  copy: KubeObject | undefined,
  ref: ObjectReference,
  vns: string,
  tenant: string,
): boolean {
  if (!copy || copy.metadata.deletionTimestamp) return false;
  const source = reverseLookup(copy);
  return (
    source?.tenant === tenant &&
    source.kind === ref.kind &&
    source.virtualNamespace === vns &&
    source.virtualName === ref.name
  );
}

/** Why a required reference is not on the host, in words. */
function missingReason(ref: ObjectReference, rules: readonly KindRule[]): string {
  const what = `${ref.path} refers to ${ref.kind} "${ref.name}"`;
  const rule = rules.find((r) => sameKind(r, ref));
  if (!rule) {
    return `${what}, and ${ref.kind} is not in the policy's toHost kinds, so it is never synced; the Pod was not created`;
  }
  if (rule.exclude?.names?.includes(ref.name)) {
    return `${what}, which the policy excludes by name, so it is never synced; the Pod was not created`;
  }
  return `${what}, which has no host copy yet (it does not exist in the tenant, is excluded, or was not synced); the Pod is created in the pass where it exists`;
}

/**
 * Why `item` must not be created yet (its first required reference without a host copy), or
 * `undefined` when every required reference has one. Reads each referenced copy at most once a
 * pass.
 * @throws ClusterError when a read fails (the object's error; the next pass retries).
 */
export async function missingReference(
  ctx: PassContext,
  item: ApplyItem,
): Promise<string | undefined> {
  const vns = item.source.virtualNamespace;
  for (const ref of item.requires ?? []) {
    const rules = ctx.scope.policy.toHost;
    if (!rules.some((r) => sameKind(r, ref))) return missingReason(ref, rules);
    if (!(await hasCopy(ctx, ref, vns))) return missingReason(ref, rules);
  }
  return undefined;
}

/**
 * Why `item`, which has no host copy, must not be created now, or `undefined`: a tenant Pod whose
 * copy the host ended is not made anew (`kinds/pod/endings.ts`), and a create waits for its references.
 * @throws ClusterError when a read fails (the object's error; the next pass retries).
 */
export async function createRefusal(
  ctx: PassContext,
  item: ApplyItem,
): Promise<string | undefined> {
  return item.noRecreate ?? (item.requires ? await missingReference(ctx, item) : undefined);
}

/**
 * The order a pass applies the policy's kinds in: the policy's order, except that a kind comes
 * after every kind of the policy it refers to (ConfigMaps, Secrets and claims before Pods), so a
 * reference made in the same pass is found. Stable; a cycle keeps the policy order.
 */
export function applyOrder<R extends KindRef>(rules: readonly R[]): R[] {
  const left = [...rules];
  const ordered: R[] = [];
  const needs = (rule: R) =>
    referencedKinds(rule).filter(
      (k) => !sameKind(k, rule) && left.some((r) => r !== rule && sameKind(r, k)),
    );
  while (left.length > 0) {
    const ready = left.findIndex((rule) => needs(rule).length === 0);
    const [next] = left.splice(ready === -1 ? 0 : ready, 1);
    if (next) ordered.push(next);
  }
  return ordered;
}
