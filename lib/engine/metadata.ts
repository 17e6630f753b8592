/**
 * Every label and annotation key the engine reads or writes lives here, so the reverse mapping,
 * the anti-spoofing filter and GC selectors can never disagree about a key's spelling.
 */

/** Labels on every host object; they make host objects selectable (GC lists by them). */
export const Labels = {
  ManagedBy: 'app.kubernetes.io/managed-by',
  Tenant: 'tenantplane.io/tenant',
  VirtualNamespace: 'tenantplane.io/virtual-namespace',
  Kind: 'tenantplane.io/kind',
} as const;

/** Annotations on every host object; they hold verbatim values that labels cannot (or hashing lost). */
export const Annotations = {
  VirtualNamespace: 'tenantplane.io/virtual-namespace',
  VirtualName: 'tenantplane.io/virtual-name',
  VirtualUid: 'tenantplane.io/virtual-uid',
  /** JSON `{"labels":[...],"annotations":[...]}`: the tenant-derived keys the engine owns. */
  OwnedKeys: 'tenantplane.io/owned-keys',
  /** Digest of the tenant `spec`, so a field the tenant removed is noticed despite host defaults. */
  SpecHash: 'tenantplane.io/spec-hash',
} as const;

/** Value of the managed-by label on every host object the engine writes. */
export const MANAGED_BY_VALUE = 'tenantplane';

/** The engine's own key domain; tenants may not write under it. */
export const RESERVED_DOMAIN = 'tenantplane.io';

/**
 * Annotations copied from tenants that are dropped anyway: kubectl's client-side apply record
 * duplicates the whole tenant object (for Secrets, its data) and means nothing on the host.
 */
export const DROPPED_TENANT_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
];

/**
 * True for keys only the engine may set: anything under `tenantplane.io/` (or a subdomain of it)
 * and `app.kubernetes.io/managed-by`. Tenant-supplied keys like these are dropped (anti-spoofing).
 */
export function isReservedKey(key: string): boolean {
  if (key === Labels.ManagedBy) return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash).toLowerCase();
  return prefix === RESERVED_DOMAIN || prefix.endsWith(`.${RESERVED_DOMAIN}`);
}
