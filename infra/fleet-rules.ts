/**
 * Rules of a fleet in one account and region, checked on the parsed config at synth time: the
 * concurrency the tenants reserve, and a heartbeat each tenant's schedule lets CloudWatch watch.
 * Also what a tenant's settings resolve to (its timeout, VPC, key, schedule window, heartbeat),
 * so the checks and the constructs agree.
 */
import { DEFAULT_FOLLOW_TIMEOUT_SECONDS, type Problem } from './config-rules.js';
import {
  heartbeatPeriodMinutes,
  maxAlarmWindowMinutes,
  scheduleWindowMinutes,
} from './schedule.js';

/** The function timeout of a tenant that sets none and is not followed. */
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** Reserved concurrency of each sync function: passes of one tenant never overlap. */
export const RESERVED_CONCURRENCY_PER_TENANT = 1;

interface Vpc {
  subnetIds: string[];
  securityGroupIds: string[];
}

/** The parts of a parsed tenant these rules read (structural, so config.ts may call them). */
export interface FleetTenant {
  name: string;
  schedule: string;
  budget?: { timeoutSeconds?: number | undefined } | undefined;
  follow?: unknown;
  /** Set on a woken tenant (resolved, infra/config-wake.ts): it follows when woken. */
  wake?: unknown;
  vpc?: Vpc | undefined;
  kmsKeyArn?: string | undefined;
  heartbeatMinutes?: number | undefined;
}

export interface FleetGlobal {
  vpc?: Vpc | undefined;
  kmsKeyArn?: string | undefined;
  scheduleWindowMinutes?: number | undefined;
  maxReservedConcurrency: number;
  alarms: { periodMinutes: number; heartbeatPeriods: number };
}

export function functionTimeoutSeconds(tenant: FleetTenant): number {
  return (
    tenant.budget?.timeoutSeconds ??
    (tenant.follow || tenant.wake ? DEFAULT_FOLLOW_TIMEOUT_SECONDS : DEFAULT_TIMEOUT_SECONDS)
  );
}

/** The tenant's own VPC, else the global one; undefined: the function runs outside any VPC. */
export const vpcOf = (tenant: FleetTenant, global: FleetGlobal): Vpc | undefined =>
  tenant.vpc ?? global.vpc;

export const kmsKeyOf = (tenant: FleetTenant, global: FleetGlobal): string | undefined =>
  tenant.kmsKeyArn ?? global.kmsKeyArn;

export const windowOf = (tenant: FleetTenant, global: FleetGlobal): number =>
  scheduleWindowMinutes(tenant.schedule, global.scheduleWindowMinutes);

/** The heartbeat alarm of a tenant: periods of `periodMinutes`, `periods` of them. */
export function heartbeatOf(
  tenant: FleetTenant,
  global: FleetGlobal,
): { periodMinutes: number; periods: number } | undefined {
  const periodMinutes = heartbeatPeriodMinutes({
    schedule: tenant.schedule,
    heartbeatMinutes: tenant.heartbeatMinutes,
    windowMinutes: windowOf(tenant, global),
    timeoutSeconds: functionTimeoutSeconds(tenant),
    alarmPeriodMinutes: global.alarms.periodMinutes,
  });
  return periodMinutes === undefined
    ? undefined
    : { periodMinutes, periods: global.alarms.heartbeatPeriods };
}

/**
 * The account's reserved concurrency must hold every tenant's (a function is refused at deploy
 * time otherwise, after the stacks before it were deployed), and each tenant's heartbeat must
 * fit CloudWatch's evaluation window.
 */
export function fleetProblems(config: { global: FleetGlobal; tenants: FleetTenant[] }): Problem[] {
  const found: Problem[] = [];
  const { global, tenants } = config;
  const reserved = tenants.length * RESERVED_CONCURRENCY_PER_TENANT;
  if (reserved > global.maxReservedConcurrency)
    found.push({
      path: ['global', 'maxReservedConcurrency'],
      message: `${tenants.length} tenants reserve ${reserved} concurrent executions (${RESERVED_CONCURRENCY_PER_TENANT} each), more than the ${global.maxReservedConcurrency} this account may reserve: Lambda keeps 100 of the account's concurrency quota unreserved (a 1,000 quota leaves 900). Ask for a higher Lambda concurrency quota and set maxReservedConcurrency to it minus 100, or deploy some tenants in another account or region`,
    });
  tenants.forEach((tenant, index) => {
    const heartbeat = heartbeatOf(tenant, global);
    if (!heartbeat) {
      found.push({
        path: ['tenants', index, 'heartbeatMinutes'],
        message: `is required for ${tenant.schedule}: the heartbeat alarm cannot tell how long this schedule may go without a tick (it runs on some days only); set its period in minutes, so that global.alarms.heartbeatPeriods of them cover the longest gap (e.g. 1320 for a weekday schedule: 3 x 22 h cover a weekend)`,
      });
      return;
    }
    const window = heartbeat.periodMinutes * heartbeat.periods;
    const max = maxAlarmWindowMinutes(heartbeat.periodMinutes);
    if (window > max)
      found.push({
        path: ['tenants', index, 'schedule'],
        message: `its heartbeat would watch ${heartbeat.periods} periods of ${heartbeat.periodMinutes} minutes (${window} minutes), longer than the ${max} minutes a CloudWatch alarm can look back: run it more often, or lower global.alarms.heartbeatPeriods`,
      });
  });
  return found;
}
