/**
 * The one key of a kind: group, version and Kind as one string, `apps/v1/Deployment` (the core
 * group has no group part: `v1/ConfigMap`). Every per-kind map and set of the engine is keyed by
 * it, so two rules of the same Kind in different API groups (a `ConfigMap` in `v1` and one of a
 * CRD in `example.com/v1`) never share state: not their budget turn, their retry memory, their
 * resume point, their page sizes or their watches. It is also the form `status.resume` stores.
 *
 * Output meant for people (`PassResult.objectsSeen`, messages) stays keyed by the Kind alone.
 */
import type { KindRef } from '../../ports/index.js';

/** `<group>/<version>/<Kind>`, or `<version>/<Kind>` for the core group; made by {@link resourceKey}. */
export type ResourceKey = string & { readonly __resourceKey: unique symbol };

/**
 * The key of a kind. The apiVersion is `<group>/<version>` or, for the core group, `<version>`;
 * neither a group, a version nor a Kind contains `/`, so the key is unambiguous.
 */
export function resourceKey(kind: KindRef): ResourceKey {
  return `${kind.apiVersion}/${kind.kind}` as ResourceKey;
}

/** Whether two kinds are the same kind: same group, version and Kind. */
export function sameKind(a: KindRef, b: KindRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind;
}

/**
 * The group and Kind of a kind without its version, `autoscaling/HorizontalPodAutoscaler` (the
 * core group: `/ConfigMap`). One resource served under two versions (`autoscaling/v1` and
 * `autoscaling/v2`, a CRD with two served versions) is one set of objects and one set of host
 * copies, so two rules of it would each collect the copies the other writes: the policy allows
 * one rule per group and Kind.
 */
export function groupKind(kind: KindRef): string {
  const slash = kind.apiVersion.lastIndexOf('/');
  return `${slash < 0 ? '' : kind.apiVersion.slice(0, slash)}/${kind.kind}`;
}
