/** Physical names of a tenant's resources: predictable, so operators can find them. */
import { createHash } from 'node:crypto';

const hash = (tenant: string, n: number) =>
  createHash('sha256').update(tenant, 'utf8').digest('hex').slice(0, n);

/** What every sync function's name starts with (before `-<tenant>`). */
export const FUNCTION_NAME_STEM = 'tenantplane-sync';

/** The fleet dashboard of the app (one per account and region). */
export const FLEET_DASHBOARD_NAME = 'tenantplane-fleet';

/**
 * `tenantplane-sync-<tenant>`; Lambda names allow 64 characters of `[A-Za-z0-9_-]`, so a tenant
 * name that is longer or has a `.` gets a shortened form with a hash of the full name.
 */
export function functionNameFor(tenant: string): string {
  const prefix = `${FUNCTION_NAME_STEM}-`;
  const plain = `${prefix}${tenant}`;
  if (plain.length <= 64 && !tenant.includes('.')) return plain;
  const stem = tenant.replace(/\./g, '-').slice(0, 64 - prefix.length - 11);
  return `${prefix}${stem.replace(/-+$/, '')}-${hash(tenant, 10)}`;
}

export function logGroupNameFor(tenant: string): string {
  return `/tenantplane/sync/${tenant}`;
}

export function alarmNameFor(tenant: string, what: string): string {
  return `tenantplane-${tenant}-${what}`;
}

export function queryNameFor(tenant: string, what: string): string {
  return `tenantplane/${tenant}/${what}`;
}
