/** The wake function's configuration, from its environment (set by infra/), validated. */
import { isRecord } from '../../lib/common/index.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../lib/wake/index.js';
import { WakeEnv, type WokenTenant } from './contract.js';

export interface WakeSettings {
  tenants: ReadonlyMap<string, WokenTenant>;
  functionStem: string;
  secretPrefix: string;
  maxBodyBytes: number;
  secretsMaxAgeSeconds: number;
}

/** Default lifetime of a cached token: a rotated token is honoured within a minute. */
export const DEFAULT_WAKE_SECRETS_MAX_AGE_SECONDS = 60;

export class WakeSettingsError extends Error {
  constructor(problem: string) {
    super(`wake function misconfigured: ${problem}`);
    this.name = 'WakeSettingsError';
  }
}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new WakeSettingsError(`environment variable ${name} is not set`);
  return value;
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new WakeSettingsError(
      `environment variable ${name} must be an integer >= 0, got ${JSON.stringify(raw)}`,
    );
  return value;
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;

function tenants(raw: string): Map<string, WokenTenant> {
  let table: unknown;
  try {
    table = JSON.parse(raw);
  } catch {
    throw new WakeSettingsError(`${WakeEnv.Tenants} is not JSON`);
  }
  if (!isRecord(table)) throw new WakeSettingsError(`${WakeEnv.Tenants} is not a JSON object`);
  const out = new Map<string, WokenTenant>();
  for (const [name, entry] of Object.entries(table)) {
    const [quietSeconds, timeoutSeconds, functionName] = Array.isArray(entry) ? entry : [];
    if (!positive(quietSeconds) || !positive(timeoutSeconds))
      throw new WakeSettingsError(
        `${WakeEnv.Tenants}.${name} must be [quietSeconds, timeoutSeconds, functionName?]`,
      );
    out.set(name, {
      quietSeconds,
      timeoutSeconds,
      ...(typeof functionName === 'string' ? { functionName } : {}),
    });
  }
  return out;
}

/** Reads and checks the settings. @throws WakeSettingsError saying which variable is wrong. */
export function readWakeSettings(env: Env): WakeSettings {
  return {
    tenants: tenants(required(env, WakeEnv.Tenants)),
    functionStem: required(env, WakeEnv.FunctionStem),
    secretPrefix: required(env, WakeEnv.SecretPrefix),
    maxBodyBytes: integer(env, WakeEnv.MaxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    secretsMaxAgeSeconds: integer(
      env,
      WakeEnv.SecretsMaxAgeSeconds,
      DEFAULT_WAKE_SECRETS_MAX_AGE_SECONDS,
    ),
  };
}

/** The sync function of a woken tenant. */
export function syncFunctionOf(settings: WakeSettings, tenant: string): string | undefined {
  const woken = settings.tenants.get(tenant);
  if (!woken) return undefined;
  return woken.functionName ?? `${settings.functionStem}-${tenant}`;
}
