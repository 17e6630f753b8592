/**
 * Reverse mapping: from a host object back to its tenant source, read from the metadata the
 * engine wrote (never re-derived from the host name, which may be hashed), and the metadata that
 * makes it possible.
 */
import type { KubeObject } from '../../ports/index.js';
import { Annotations, Labels, MANAGED_BY_VALUE } from './metadata.js';

/**
 * A tenant source: the tenant object a host copy is made from. The apply step knows it from the
 * tenant listing; the reverse mapping reads it back from a copy's own metadata.
 */
export interface TenantSource {
  /** The tenant cluster (its TenantCluster's name). */
  tenant: string;
  /** The Kind, as the `tenantplane.io/kind` label records it (no group: see {@link ourCopySource}). */
  kind: string;
  virtualNamespace: string;
  virtualName: string;
  /** The tenant object's uid, when known (it tells a recreated source from the one copied). */
  virtualUid?: string;
}

/** Whose copies a caller is after: one tenant's, of one Kind. */
export interface CopyOwner {
  tenant: string;
  kind: string;
}

/**
 * Reads the reverse-mapping metadata of a host object. `undefined` when the object is not
 * tenantplane-managed or its metadata is incomplete (then nothing may be concluded about it).
 */
export function reverseLookup(hostObject: KubeObject): TenantSource | undefined {
  const labels = hostObject.metadata.labels ?? {};
  const annotations = hostObject.metadata.annotations ?? {};
  if (labels[Labels.ManagedBy] !== MANAGED_BY_VALUE) return undefined;
  const tenant = labels[Labels.Tenant];
  const kind = labels[Labels.Kind];
  const virtualNamespace = annotations[Annotations.VirtualNamespace];
  const virtualName = annotations[Annotations.VirtualName];
  if (!tenant || !kind || !virtualNamespace || !virtualName) return undefined;
  const ref: TenantSource = { tenant, kind, virtualNamespace, virtualName };
  const uid = annotations[Annotations.VirtualUid];
  if (uid) ref.virtualUid = uid;
  return ref;
}

/**
 * "Is this our copy", decided here only: the tenant source of `hostObject` when it is a copy that
 * tenant `owner.tenant` made of Kind `owner.kind`, read from its own metadata (never from its
 * name); `undefined` for a foreign object, another tenant's copy, a copy of another Kind, or
 * incomplete metadata (nothing may be concluded about those). The labels name the Kind without
 * its group; the group is the one the caller read the object from (a listing or GET of the rule's
 * own resource), so copies of two rules of one Kind in different groups are never confused.
 */
export function ourCopySource(hostObject: KubeObject, owner: CopyOwner): TenantSource | undefined {
  const source = reverseLookup(hostObject);
  return source?.tenant === owner.tenant && source.kind === owner.kind ? source : undefined;
}

/** Whether `hostObject` is a copy of `owner` (see {@link ourCopySource}). */
export function isOurCopy(hostObject: KubeObject, owner: CopyOwner): boolean {
  return ourCopySource(hostObject, owner) !== undefined;
}

/** The reverse-mapping labels of a host object for the given source. */
export function reverseMappingLabels(
  tenant: string,
  kind: string,
  virtualNamespace: string,
): Record<string, string> {
  return {
    [Labels.ManagedBy]: MANAGED_BY_VALUE,
    [Labels.Tenant]: tenant,
    [Labels.VirtualNamespace]: virtualNamespace,
    [Labels.Kind]: kind,
  };
}

/** The reverse-mapping annotations of a host object for the given source. */
export function reverseMappingAnnotations(
  virtualNamespace: string,
  virtualName: string,
  virtualUid: string | undefined,
): Record<string, string> {
  const annotations: Record<string, string> = {
    [Annotations.VirtualNamespace]: virtualNamespace,
    [Annotations.VirtualName]: virtualName,
  };
  if (virtualUid) annotations[Annotations.VirtualUid] = virtualUid;
  return annotations;
}
