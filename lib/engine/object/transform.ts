/**
 * Transform: a tenant object into the host object the engine wants (the *desired* object). Pure
 * and non-mutating: the input is deep-copied, never touched.
 */
import { cloneJson, jsonDigest } from '../../common/index.js';
import type { KubeObject } from '../../ports/index.js';
import { Annotations, DROPPED_TENANT_ANNOTATIONS, isReservedKey } from '../names/metadata.js';
import { hostName } from '../names/naming.js';
import { reverseMappingAnnotations, reverseMappingLabels } from '../names/reverse-mapping.js';
import type { KeyExclusions } from '../policy/key-exclusions.js';
import type { WorkloadPolicy } from '../policy/workloads.js';
import type { HostOwnedFields } from './kind-traits.js';
import { dropNestedReservedKeys } from './nested-metadata.js';
import { fitAnnotations, type OwnedKeys, ownedKeysText } from './owned-keys.js';

/**
 * Top-level fields that are identity or host state, not content the engine owns: identity is
 * rewritten, `status` belongs to the host.
 */
export const NON_CONTENT_FIELDS: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'status',
]);

export { type OwnedKeys, ownedKeysOf } from './owned-keys.js';

function tenantKeys(
  map: Record<string, string> | undefined,
  dropped: readonly string[] = [],
  excluded?: (key: string) => boolean,
) {
  const kept: Record<string, string> = {};
  const from = map ?? {};
  for (const key of Object.keys(from)) {
    if (isReservedKey(key) || dropped.includes(key) || excluded?.(key)) continue;
    kept[key] = from[key] as string;
  }
  return kept;
}

/** Where a tenant object goes. */
export interface TransformTarget {
  tenant: string;
  hostNamespace: string;
  /** Tenant label and annotation keys the policy keeps off the host (`key-exclusions.ts`). */
  excludeKeys?: KeyExclusions;
  /** What tenant Pods may have on the host; read by the Pod translator (`kinds/pod/translate/pod.ts`). */
  workloads?: WorkloadPolicy;
}

/**
 * The desired host object for a tenant object: deep copy; host name from {@link hostName};
 * re-namespaced into the host namespace; server-populated and host-owned fields stripped (the
 * metadata is built from scratch, so resourceVersion, uid, ownerReferences, finalizers and every
 * other server or host field never reach it);
 * tenant-supplied reserved keys dropped (anti-spoofing), at every level of metadata the copy
 * embeds too (`nested-metadata.ts`), before the reverse-mapping labels and annotations are
 * merged in; the owned-keys annotation records the tenant keys carried over, so a
 * later update can remove the ones the tenant removed while keeping keys host controllers add
 * (bounded, so the engine's annotations fit the host's limit: `owned-keys.ts`).
 * Never mutates `source`. `specHash: false` leaves out the spec-hash annotation (a kind updated
 * field by field compares no hash); `hostOwned` are the kind's fields the host allocates.
 */
export function toHostObject(
  source: KubeObject,
  target: TransformTarget,
  specHash = true,
  hostOwned?: HostOwnedFields,
): KubeObject {
  const vns = source.metadata.namespace ?? '';
  const name = source.metadata.name;
  const { excludeKeys } = target;
  const labels = tenantKeys(source.metadata.labels, [], excludeKeys?.labels);
  const annotations = tenantKeys(
    source.metadata.annotations,
    DROPPED_TENANT_ANNOTATIONS,
    excludeKeys?.annotations,
  );
  const owned: OwnedKeys = {
    labels: Object.keys(labels).sort(),
    annotations: Object.keys(annotations).sort(),
  };
  // The kept maps hold no reserved key, so the engine's keys go on after them (no copies).
  Object.assign(labels, reverseMappingLabels(target.tenant, source.kind, vns));
  Object.assign(annotations, reverseMappingAnnotations(vns, name, source.metadata.uid));
  annotations[Annotations.OwnedKeys] = ownedKeysText(owned);
  const desired: KubeObject = {
    apiVersion: source.apiVersion,
    kind: source.kind,
    metadata: {
      name: hostName(name, vns, target.tenant),
      namespace: target.hostNamespace,
      labels,
      annotations,
    },
  };
  for (const field of Object.keys(source)) {
    const value = source[field];
    if (NON_CONTENT_FIELDS.has(field) || value === undefined) continue;
    desired[field] = cloneJson(value);
    // Embedded metadata (a template a host controller stamps) loses reserved keys too.
    dropNestedReservedKeys(desired[field]);
  }
  hostOwned?.strip(desired as Record<string, unknown>);
  if (specHash) withSpecHash(desired);
  // Never the engine's own annotations push a valid tenant object over the host's limit.
  fitAnnotations(desired, owned);
  return desired;
}

/**
 * Sets the spec-hash annotation from `desired.spec` (in place). A per-kind translator changes the
 * spec after {@link toHostObject}, so the registry sets it again over the translated spec.
 */
export function withSpecHash(desired: KubeObject): KubeObject {
  if (desired.spec !== undefined) {
    desired.metadata.annotations = {
      ...desired.metadata.annotations,
      [Annotations.SpecHash]: jsonDigest(desired.spec),
    };
  }
  return desired;
}
