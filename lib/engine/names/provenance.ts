/**
 * Provenance: who holds a host name, relative to the tenant source that wants it. This is the
 * check that makes "never clobber" true: only a copy of the very same source may ever be written.
 */
import type { KubeObject } from '../../ports/index.js';
import { ourCopySource, reverseLookup, type TenantSource } from './reverse-mapping.js';

/** The key of a tenant source within one kind: `<virtual namespace>/<name>`. */
export function sourceKey(virtualNamespace: string, virtualName: string): string {
  return `${virtualNamespace}/${virtualName}`;
}

/** Who holds a host name: this source's copy, another source's copy, or a foreign object. */
export type Provenance =
  | { holder: 'same-source' }
  | { holder: 'other-source'; ref: TenantSource }
  | { holder: 'foreign' };

/**
 * Classifies an existing host object against the tenant source that maps to its name: the same
 * source (the engine may update it), another tenantplane source (a collision), or no tenantplane
 * source at all (a foreign object).
 */
export function provenance(hostObject: KubeObject, source: TenantSource): Provenance {
  const ours = ourCopySource(hostObject, source);
  if (
    ours?.virtualNamespace === source.virtualNamespace &&
    ours.virtualName === source.virtualName
  ) {
    return { holder: 'same-source' };
  }
  const ref = ours ?? reverseLookup(hostObject);
  return ref ? { holder: 'other-source', ref } : { holder: 'foreign' };
}

/** Plain words for who occupies a host name, for Skip reasons. */
export function describeOccupant(p: Provenance): string {
  switch (p.holder) {
    case 'same-source':
      return 'this same tenant source';
    case 'other-source':
      return `${p.ref.kind} ${p.ref.virtualNamespace}/${p.ref.virtualName} of tenant cluster "${p.ref.tenant}" (a name collision)`;
    case 'foreign':
      return 'an object tenantplane does not manage (a foreign object)';
  }
}
