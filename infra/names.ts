/**
 * Physical names of the app's resources: predictable, so operators can find them. A `stage`
 * (global.stage) prefixes every one, so two stages share an account and region; without a stage
 * the names are those of a single-stage app.
 */
import { createHash } from 'node:crypto';
import { METRICS_NAMESPACE } from '../functions/sync/contract.js';

const hash = (tenant: string, n: number) =>
  createHash('sha256').update(tenant, 'utf8').digest('hex').slice(0, n);

/** What every sync function's name starts with (before `-<tenant>`), without a stage. */
export const FUNCTION_NAME_STEM = 'tenantplane-sync';

/** The fleet dashboard of the app (one per account and region), without a stage. */
export const FLEET_DASHBOARD_NAME = 'tenantplane-fleet';

/** The topic created for `alarms.emails` when the config names none. */
export const DEFAULT_ALARM_TOPIC_NAME = 'tenantplane-alarms';

/** `<stage>-<name>`, or `name` without a stage. */
export const staged = (name: string, stage?: string): string => (stage ? `${stage}-${name}` : name);

/** What every sync function's name starts with: `tenantplane-sync`, `prod-tenantplane-sync`. */
export const functionStem = (stage?: string): string => staged(FUNCTION_NAME_STEM, stage);

/**
 * `[<stage>-]tenantplane-sync-<tenant>`; Lambda names allow 64 characters of `[A-Za-z0-9_-]`, so
 * a tenant name that is longer or has a `.` gets a shortened form with a hash of the full name.
 */
export function functionNameFor(tenant: string, stage?: string): string {
  const prefix = `${functionStem(stage)}-`;
  const plain = `${prefix}${tenant}`;
  if (plain.length <= 64 && !tenant.includes('.')) return plain;
  const stem = tenant.replace(/\./g, '-').slice(0, 64 - prefix.length - 11);
  return `${prefix}${stem.replace(/-+$/, '')}-${hash(tenant, 10)}`;
}

export function logGroupNameFor(tenant: string, stage?: string): string {
  return `${stage ? `/${stage}` : ''}/tenantplane/sync/${tenant}`;
}

export function alarmNameFor(tenant: string, what: string, stage?: string): string {
  return staged(`tenantplane-${tenant}-${what}`, stage);
}

/** An alarm of the whole app (the dead-letter queue): `[<stage>-]tenantplane-<what>`. */
export function appAlarmNameFor(what: string, stage?: string): string {
  return staged(`tenantplane-${what}`, stage);
}

export function queryNameFor(tenant: string, what: string, stage?: string): string {
  return `${stage ? `${stage}/` : ''}tenantplane/${tenant}/${what}`;
}

/** The dead-letter queue of the app's schedules, triggers and asynchronous invocations. */
export function deadLetterQueueNameFor(stage?: string): string {
  return staged('tenantplane-dead-letters', stage);
}

/**
 * The handler's EMF namespace: `Tenantplane`, or `<stage>/Tenantplane`, so the per-tenant
 * metrics (and alarms) of two stages with a tenant of the same name stay apart.
 */
export function metricsNamespaceFor(stage?: string): string {
  return stage ? `${stage}/${METRICS_NAMESPACE}` : METRICS_NAMESPACE;
}

/** Stack names: `TenantplaneShared`, `prod-TenantplaneShared`. */
export const stackNameFor = (name: string, stage?: string): string => staged(name, stage);
