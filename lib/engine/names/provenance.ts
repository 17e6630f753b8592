/**
 * Provenance: who holds a host name, relative to the tenant source that wants it. This is the
 * check that makes "never clobber" true: only a copy of the very same source may ever be written.
 */
import type { KubeObject } from '../../ports/index.js';
import { type ReverseRef, reverseLookup } from './reverse-mapping.js';

/** A tenant source, as the apply step knows it. */
export interface SourceIdentity {
  tenant: string;
  kind: string;
  virtualNamespace: string;
  virtualName: string;
}

/** The key of a tenant source within one kind: `<virtual namespace>/<name>`. */
export function sourceKey(virtualNamespace: string, virtualName: string): string {
  return `${virtualNamespace}/${virtualName}`;
}

/** Who holds a host name: this source's copy, another source's copy, or a foreign object. */
export type Provenance =
  | { holder: 'same-source' }
  | { holder: 'other-source'; ref: ReverseRef }
  | { holder: 'foreign' };

/**
 * Classifies an existing host object against the tenant source that maps to its name: the same
 * source (the engine may update it), another tenantplane source (a collision), or no tenantplane
 * source at all (a foreign object).
 */
export function provenance(hostObject: KubeObject, source: SourceIdentity): Provenance {
  const ref = reverseLookup(hostObject);
  if (!ref) return { holder: 'foreign' };
  if (
    ref.tenant === source.tenant &&
    ref.kind === source.kind &&
    ref.virtualNamespace === source.virtualNamespace &&
    ref.virtualName === source.virtualName
  ) {
    return { holder: 'same-source' };
  }
  return { holder: 'other-source', ref };
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
