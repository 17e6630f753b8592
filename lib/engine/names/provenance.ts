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

/**
 * Plain words for who occupies a host name, for the Skip reasons of `source`. A copy of another
 * tenant is "an object of another tenant": the reason lands in this tenant's Events, status and
 * logs, and must not tell it another tenant's name, namespaces or object names (in a shared host
 * namespace the collision is visible, whose it is is not this tenant's business).
 */
export function describeOccupant(p: Provenance, source: Pick<TenantSource, 'tenant'>): string {
  switch (p.holder) {
    case 'same-source':
      return 'this same tenant source';
    case 'other-source':
      return p.ref.tenant === source.tenant
        ? `${p.ref.kind} ${p.ref.virtualNamespace}/${p.ref.virtualName} of tenant cluster "${p.ref.tenant}" (a name collision)`
        : 'an object of another tenant (a name collision)';
    case 'foreign':
      return 'an object tenantplane does not manage (a foreign object)';
  }
}
