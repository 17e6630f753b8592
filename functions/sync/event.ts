/**
 * The events the sync function accepts, validated: the schedule's input `{"tenant": "dev"}`, a
 * direct invoke `{"tenant": "dev", "dryRun": true, "full": true}`, the wake endpoint's
 * `{"tenant": "dev", "wake": true}` (docs/wake.md), or an EventBridge
 * `SyncRequested` event with `detail.tenant` (and optional `detail.dryRun`, `detail.full`: manual
 * trigger). Anything else is rejected with a message saying what is wrong.
 */
import { isRecord, tenantNameProblem } from '../../lib/common/index.js';
import { SYNC_REQUESTED } from './contract.js';

export interface SyncRequest {
  tenant: string;
  dryRun: boolean;
  /** List every kind in full on both sides instead of resuming (false unless asked for). */
  full: boolean;
  /** Sent by the wake endpoint (`{"wake": true}`): the tenant changed, follow it (docs/wake.md). */
  wake: boolean;
  /** Where the request came from, for the log. */
  trigger: 'schedule-or-invoke' | 'event';
}

export class InvalidSyncEventError extends Error {
  constructor(problem: string) {
    super(
      `invalid sync event: ${problem}. Expected {"tenant": "<name>", "dryRun"?: boolean, "full"?: boolean, "wake"?: boolean} or an EventBridge event with detail-type "${SYNC_REQUESTED}" and detail {"tenant": "<name>", "dryRun"?: boolean, "full"?: boolean}`,
    );
    this.name = 'InvalidSyncEventError';
  }
}

export class TenantMismatchError extends Error {
  constructor(configured: string, requested: string) {
    super(
      `this function syncs tenant ${JSON.stringify(configured)} and refuses an event for tenant ${JSON.stringify(requested)}`,
    );
    this.name = 'TenantMismatchError';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The fields of a request, at the top of a direct invoke or in an EventBridge `detail`. */
const FIELDS = ['tenant', 'dryRun', 'full', 'wake'];

function request(
  payload: Record<string, unknown>,
  where: string,
  allowed: string[],
): Omit<SyncRequest, 'trigger'> {
  for (const key of Object.keys(payload))
    if (!allowed.includes(key)) throw new InvalidSyncEventError(`unexpected field ${where}${key}`);
  const { tenant, dryRun, full, wake } = payload;
  if (tenant === undefined) throw new InvalidSyncEventError(`${where}tenant is missing`);
  if (typeof tenant !== 'string' || tenant.length === 0)
    throw new InvalidSyncEventError(
      `${where}tenant must be a non-empty string, got ${describe(tenant)}`,
    );
  // Refused here, with the reason, rather than later as a mismatch with the configured tenant.
  const problem = tenantNameProblem(tenant);
  if (problem !== undefined)
    throw new InvalidSyncEventError(`${where}tenant ${JSON.stringify(tenant)} ${problem}`);
  if (dryRun !== undefined && typeof dryRun !== 'boolean')
    throw new InvalidSyncEventError(`${where}dryRun must be a boolean, got ${describe(dryRun)}`);
  if (full !== undefined && typeof full !== 'boolean')
    throw new InvalidSyncEventError(`${where}full must be a boolean, got ${describe(full)}`);
  if (wake !== undefined && typeof wake !== 'boolean')
    throw new InvalidSyncEventError(`${where}wake must be a boolean, got ${describe(wake)}`);
  return { tenant, dryRun: dryRun ?? false, full: full ?? false, wake: wake ?? false };
}

/**
 * Validates what the sync function was invoked with.
 * @throws InvalidSyncEventError saying what is wrong and what is expected.
 */
export function parseSyncEvent(event: unknown): SyncRequest {
  if (!isRecord(event))
    throw new InvalidSyncEventError(`the event is ${describe(event)}, not an object`);
  if ('detail-type' in event || 'detail' in event) {
    const detailType = event['detail-type'];
    if (detailType !== SYNC_REQUESTED)
      throw new InvalidSyncEventError(
        `EventBridge detail-type ${JSON.stringify(detailType)} is not "${SYNC_REQUESTED}"`,
      );
    if (!isRecord(event.detail))
      throw new InvalidSyncEventError('EventBridge detail is not an object');
    return { ...request(event.detail, 'detail.', FIELDS), trigger: 'event' };
  }
  return { ...request(event, '', FIELDS), trigger: 'schedule-or-invoke' };
}
