/**
 * What the wake function and its infrastructure agree on (docs/wake.md): environment variable
 * names, the shape of the tenant table, the secret names. Imported by the handler and by infra/.
 */
export const WakeEnv = {
  /**
   * The woken tenants: JSON `{"<tenant>": [quietSeconds, timeoutSeconds]}`, a third element the
   * sync function's name when it is not `<WAKE_FUNCTION_STEM>-<tenant>` (a shortened name).
   * Compact on purpose: a function's environment holds at most 4 KB.
   */
  Tenants: 'WAKE_TENANTS',
  /** What every sync function's name starts with (`tenantplane-sync`, `prod-tenantplane-sync`). */
  FunctionStem: 'WAKE_FUNCTION_STEM',
  /** What every wake token secret's name starts with (before the tenant name). */
  SecretPrefix: 'WAKE_SECRET_PREFIX',
  /** Largest audit batch accepted, in bytes (default 1 MiB). */
  MaxBodyBytes: 'WAKE_MAX_BODY_BYTES',
  /** How long a token read from Secrets Manager is reused (default 60 s). */
  SecretsMaxAgeSeconds: 'SECRETS_MAX_AGE_SECONDS',
} as const;

export const WAKE_SERVICE_NAME = 'tenantplane-wake';

/** The wake token secret of a tenant is `[<stage>/]tenantplane/wake/<tenant>`. */
export { wakeSecretPrefix } from '../../lib/wake/index.js';

/** One woken tenant as the wake function knows it. */
export interface WokenTenant {
  quietSeconds: number;
  timeoutSeconds: number;
  /** Set when the sync function's name is not `<stem>-<tenant>`. */
  functionName?: string;
}

/** The JSON of {@link WakeEnv.Tenants}. */
export function encodeWokenTenants(tenants: ReadonlyMap<string, WokenTenant>): string {
  const table: Record<string, Array<number | string>> = {};
  for (const [name, t] of tenants)
    table[name] = [
      t.quietSeconds,
      t.timeoutSeconds,
      ...(t.functionName === undefined ? [] : [t.functionName]),
    ];
  return JSON.stringify(table);
}

/** The sync function's wake event: `{"tenant": "<name>", "wake": true}` (functions/sync/event.ts). */
export function wakeEvent(tenant: string): { tenant: string; wake: true } {
  return { tenant, wake: true };
}
