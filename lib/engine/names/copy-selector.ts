/**
 * The one way to select a tenant's host copies: the labels every copy carries (`reverse-mapping.ts`
 * stamps them), managed by the engine and owned by the tenant, of one kind when a kind is named.
 * Every LIST of copies, every hint that tells a person how to find them, selects by these.
 */
import { Labels, MANAGED_BY_VALUE } from './metadata.js';

/** The labels every host copy `tenant` has carries; of `kind` alone when it is given. */
export function tenantCopyLabels(tenant: string, kind?: string): Record<string, string> {
  const labels: Record<string, string> = {
    [Labels.ManagedBy]: MANAGED_BY_VALUE,
    [Labels.Tenant]: tenant,
  };
  if (kind !== undefined) labels[Labels.Kind] = kind;
  return labels;
}

/** The label selector of {@link tenantCopyLabels}: `tenant`'s host copies (of `kind`). */
export function tenantCopySelector(tenant: string, kind?: string): string {
  return Object.entries(tenantCopyLabels(tenant, kind))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}
