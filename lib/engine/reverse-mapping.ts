/**
 * Reverse mapping: from a host object back to its tenant source, read from the metadata the
 * engine wrote (never re-derived from the host name, which may be hashed), plus provenance checks
 * that decide whether the engine may touch a host object.
 */
import type { KubeObject } from '../ports/index.js';
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

/** The label selector (string) of the host objects managed for one tenant and kind: GC's scope. */
export function managedSelector(tenant: string, kind: string): string {
  return `${Labels.ManagedBy}=${MANAGED_BY_VALUE},${Labels.Tenant}=${tenant},${Labels.Kind}=${kind}`;
}

/** Who holds a host name, relative to the tenant source that wants it. */
export type Provenance =
  | { kind: 'same-source' }
  | { kind: 'other-source'; ref: ReverseRef }
  | { kind: 'foreign' };

/**
 * Classifies an existing host object against the tenant source that maps to its name: the same
 * source (the engine may update it), another tenantplane source (a collision), or no tenantplane
 * source at all (a foreign object). Only `same-source` may ever be written.
 */
export function provenance(
  hostObject: KubeObject,
  source: { tenant: string; kind: string; virtualNamespace: string; virtualName: string },
): Provenance {
  const ref = reverseLookup(hostObject);
  if (!ref) return { kind: 'foreign' };
  if (
    ref.tenant === source.tenant &&
    ref.kind === source.kind &&
    ref.virtualNamespace === source.virtualNamespace &&
    ref.virtualName === source.virtualName
  ) {
    return { kind: 'same-source' };
  }
  return { kind: 'other-source', ref };
}

/** Plain words for who occupies a host name, for Skip reasons. */
export function describeOccupant(p: Provenance): string {
  switch (p.kind) {
    case 'same-source':
      return 'this same tenant source';
    case 'other-source':
      return `${p.ref.kind} ${p.ref.virtualNamespace}/${p.ref.virtualName} of tenant cluster "${p.ref.tenant}" (a name collision)`;
    case 'foreign':
      return 'an object tenantplane does not manage (a foreign object)';
  }
}
