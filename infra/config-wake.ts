/**
 * Wake in the tenants config (docs/wake.md): `wake: {}` on a tenant, or `global.wake` for every
 * tenant (a tenant opts out with `wake: false`), makes the deployment's wake function, the
 * tenant's token secret and the invoke grant. Resolved once after parsing, so every construct and
 * rule reads one answer: a woken tenant has `wake` set (the global defaults merged in), any other
 * has none, and `wake.scheduleMinutes` has become the tenant's schedule.
 */
import { z } from 'zod';
import { encodeWokenTenants, type WokenTenant } from '../functions/wake/contract.js';
import { DEFAULT_WAKE_QUIET_SECONDS } from '../lib/wake/index.js';
import { int, mapping } from './config-fields.js';
import {
  DEFAULT_FOLLOW_TIMEOUT_SECONDS,
  FOLLOW_SPARE_SECONDS,
  type Problem,
} from './config-rules.js';
import { functionNameFor, functionStem } from './names.js';

/** The safety-net schedule of woken tenants may be this slow at most (a day). */
export const MAX_WAKE_SCHEDULE_MINUTES = 1440;

/** Room the wake function's tenant table may take of the 4 KB a function's environment holds. */
export const MAX_WAKE_TABLE_BYTES = 3500;

const scheduleMinutes = int(1, MAX_WAKE_SCHEDULE_MINUTES).optional();

/** `tenants[].wake`: `{}` (or `{scheduleMinutes: 5}`) to wake the tenant, `false` to opt out. */
export const tenantWakeSchema = z.union(
  [z.literal(false), mapping({ scheduleMinutes }, 'must be a mapping')],
  { error: 'must be false or a mapping (e.g. {} or {scheduleMinutes: 5})' },
);

/** `global.wake`: wake every tenant (but those with `wake: false`), with these defaults. */
export const globalWakeSchema = mapping(
  {
    /** Replaces the schedule of every woken tenant with `rate(<n> minutes)`: the safety net. */
    scheduleMinutes,
    /** Largest audit batch the wake function accepts, in bytes (default 1 MiB). */
    maxBodyBytes: int(1024, 6 * 1024 * 1024).optional(),
  },
  'must be a mapping (e.g. {} or {scheduleMinutes: 5})',
);

export type TenantWakeConfig = z.output<typeof tenantWakeSchema>;
export type GlobalWakeConfig = z.output<typeof globalWakeSchema>;

interface WakeTenant {
  name: string;
  schedule: string;
  wake?: TenantWakeConfig | undefined;
  follow?: { quietSeconds: number } | undefined;
  budget?: { timeoutSeconds?: number | undefined } | undefined;
}

/** Whether a resolved tenant is woken. */
export const isWoken = (tenant: { wake?: TenantWakeConfig | undefined }): boolean =>
  tenant.wake !== undefined && tenant.wake !== false;

/** `rate(1 minute)`, `rate(5 minutes)`. */
export const rateOfMinutes = (n: number): string => `rate(${n} ${n === 1 ? 'minute' : 'minutes'})`;

/**
 * Resolves wake on every tenant (see the module doc): the tenant's own `wake`, else
 * `global.wake`'s; `scheduleMinutes` replaces the schedule.
 */
export function resolveWake<
  T extends WakeTenant,
  G extends { wake?: GlobalWakeConfig | undefined },
>(config: { global: G; tenants: T[] }): { global: G; tenants: T[] } {
  const defaults = config.global.wake;
  const tenants = config.tenants.map((tenant) => {
    const own = tenant.wake;
    if (own === false || (own === undefined && defaults === undefined)) {
      const { wake: _off, ...rest } = tenant;
      return rest as T;
    }
    const minutes = own?.scheduleMinutes ?? defaults?.scheduleMinutes;
    const wake = minutes === undefined ? {} : { scheduleMinutes: minutes };
    return {
      ...tenant,
      wake,
      ...(minutes === undefined ? {} : { schedule: rateOfMinutes(minutes) }),
    };
  });
  return { ...config, tenants };
}

/** The quiet a woken tenant's function follows with: its `follow.quietSeconds`, else the default. */
export const wakeQuietSeconds = (tenant: WakeTenant): number =>
  tenant.follow?.quietSeconds ?? DEFAULT_WAKE_QUIET_SECONDS;

/** The function timeout of a woken tenant (as a followed one's). */
export const wakeTimeoutSeconds = (tenant: WakeTenant): number =>
  tenant.budget?.timeoutSeconds ?? DEFAULT_FOLLOW_TIMEOUT_SECONDS;

/** The wake function's tenant table (functions/wake/contract.ts) of a resolved config. */
export function wokenTenantTable(tenants: WakeTenant[], stage?: string): Map<string, WokenTenant> {
  const table = new Map<string, WokenTenant>();
  const stem = functionStem(stage);
  for (const tenant of tenants.filter(isWoken)) {
    const name = functionNameFor(tenant.name, stage);
    table.set(tenant.name, {
      quietSeconds: wakeQuietSeconds(tenant),
      timeoutSeconds: wakeTimeoutSeconds(tenant),
      ...(name === `${stem}-${tenant.name}` ? {} : { functionName: name }),
    });
  }
  return table;
}

/**
 * A woken tenant's quiet must fit its timeout as a followed tenant's does; the tenant table must
 * fit the wake function's environment.
 */
export function wakeProblems(config: {
  global: { stage?: string | undefined };
  tenants: WakeTenant[];
}): Problem[] {
  const found: Problem[] = [];
  config.tenants.forEach((tenant, index) => {
    if (!isWoken(tenant) || tenant.follow) return; // a follow's quiet is checked as such
    const timeout = wakeTimeoutSeconds(tenant);
    if (DEFAULT_WAKE_QUIET_SECONDS + FOLLOW_SPARE_SECONDS > timeout)
      found.push({
        path: ['tenants', index, 'budget', 'timeoutSeconds'],
        message: `a woken tenant follows for ${DEFAULT_WAKE_QUIET_SECONDS} s after its last change (set follow.quietSeconds to change it): the timeout must leave ${FOLLOW_SPARE_SECONDS} s more, got ${timeout}`,
      });
  });
  const table = encodeWokenTenants(wokenTenantTable(config.tenants, config.global.stage));
  if (table.length > MAX_WAKE_TABLE_BYTES)
    found.push({
      path: ['global', 'wake'],
      message: `too many woken tenants for one wake function (its tenant table takes ${table.length} bytes of the ${MAX_WAKE_TABLE_BYTES} its environment leaves): deploy some tenants as another stage`,
    });
  return found;
}
