/**
 * The one rule for a tenant cluster's name. It is the TenantCluster's name and the value of the
 * `tenantplane.io/tenant` label on every host object, so it must be a DNS-1123 label (a label
 * value allows at most 63 characters), not merely a valid object name (a 253-character subdomain).
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The longest tenant name: a Kubernetes label value. */
export const MAX_TENANT_NAME_LENGTH = 63;

/** Why `name` is not a valid tenant name, in plain words; `undefined` when it is valid. */
export function tenantNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_TENANT_NAME_LENGTH)
    return `must be at most ${MAX_TENANT_NAME_LENGTH} characters (a label value allows no more), got ${name.length}`;
  if (!DNS_LABEL.test(name))
    return "must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit";
  return undefined;
}

/** True when `name` is a valid tenant name. */
export function isTenantName(name: string): boolean {
  return tenantNameProblem(name) === undefined;
}

/** True for a DNS-1123 label (namespace names, tenant names). */
export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && DNS_LABEL.test(value);
}
