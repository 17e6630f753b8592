/**
 * Reverse mapping: from a host object back to its tenant source, read from the metadata the
 * engine wrote (never re-derived from the host name, which may be hashed), and the metadata that
 * makes it possible.
 */
import type { KubeObject } from '../../ports/index.js';
import { Annotations, Labels, MANAGED_BY_VALUE } from './metadata.js';

/** The tenant source a host object was made from. */
export interface ReverseRef {
  tenant: string;
  kind: string;
  virtualNamespace: string;
  virtualName: string;
  virtualUid?: string;
}

/**
 * Reads the reverse-mapping metadata of a host object. `undefined` when the object is not
 * tenantplane-managed or its metadata is incomplete (then nothing may be concluded about it).
 */
export function reverseLookup(hostObject: KubeObject): ReverseRef | undefined {
  const labels = hostObject.metadata.labels ?? {};
  const annotations = hostObject.metadata.annotations ?? {};
  if (labels[Labels.ManagedBy] !== MANAGED_BY_VALUE) return undefined;
  const tenant = labels[Labels.Tenant];
  const kind = labels[Labels.Kind];
  const virtualNamespace = annotations[Annotations.VirtualNamespace];
  const virtualName = annotations[Annotations.VirtualName];
  if (!tenant || !kind || !virtualNamespace || !virtualName) return undefined;
  const ref: ReverseRef = { tenant, kind, virtualNamespace, virtualName };
  const uid = annotations[Annotations.VirtualUid];
  if (uid) ref.virtualUid = uid;
  return ref;
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
