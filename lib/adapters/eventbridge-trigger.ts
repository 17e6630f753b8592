/**
 * Manual invoke: puts a `SyncRequested` event for one tenant on the tenantplane event bus. The
 * tenant's EventBridge rule (see infra/) routes it to that tenant's sync function, which runs one
 * pass exactly as a scheduled invocation would.
 */
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { tenantNameProblem } from '../common/index.js';

export const SYNC_REQUESTED_SOURCE = 'tenantplane.cli';
export const SYNC_REQUESTED_DETAIL_TYPE = 'SyncRequested';
export const DEFAULT_EVENT_BUS_NAME = 'tenantplane';

export interface SyncRequestedDetail {
  tenant: string;
  dryRun?: boolean;
  /** List every kind in full on both sides instead of resuming. */
  full?: boolean;
}

export interface TriggerSyncOptions {
  /** The custom bus the tenant rules listen on (`tenantplane` unless configured otherwise). */
  eventBusName?: string;
  /** Ask for a dry run: decisions are recorded, nothing is written. */
  dryRun?: boolean;
  /** Ask for a full pass: every kind listed in full on both sides, no resume (`{"full": true}`). */
  full?: boolean;
  /** An EventBridge client; one from the default credential chain when omitted. */
  client?: EventBridgeClient;
}

export interface TriggerSyncResult {
  eventId: string;
  eventBusName: string;
  tenant: string;
}

/** The bus refused the event (or returned no id). The message says which tenant and why. */
export class TriggerSyncError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TriggerSyncError';
  }
}

/**
 * Puts a `SyncRequested` event for `tenant` on the bus and returns its event id.
 * @throws TriggerSyncError when the tenant name is invalid or the bus refuses the event. The name
 * is checked before calling AWS: no tenant's rule could match it, so the event would vanish.
 */
export async function triggerSync(
  tenant: string,
  options: TriggerSyncOptions = {},
): Promise<TriggerSyncResult> {
  const problem = tenantNameProblem(tenant);
  if (problem !== undefined)
    throw new TriggerSyncError(`invalid tenant name ${JSON.stringify(tenant)}: ${problem}`);
  const eventBusName = options.eventBusName ?? DEFAULT_EVENT_BUS_NAME;
  const client = options.client ?? new EventBridgeClient({});
  const detail: SyncRequestedDetail = { tenant };
  if (options.dryRun !== undefined) detail.dryRun = options.dryRun;
  if (options.full !== undefined) detail.full = options.full;

  let output: PutEventsCommandOutput;
  try {
    output = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: eventBusName,
            Source: SYNC_REQUESTED_SOURCE,
            DetailType: SYNC_REQUESTED_DETAIL_TYPE,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TriggerSyncError(
      `could not put SyncRequested for tenant ${tenant} on event bus ${eventBusName}: ${reason}`,
      { cause: error },
    );
  }

  const entry = output.Entries?.[0];
  if ((output.FailedEntryCount ?? 0) > 0 || entry === undefined || entry.EventId === undefined) {
    const code = entry?.ErrorCode ?? 'NoEventId';
    const message = entry?.ErrorMessage ?? 'the bus returned no event id';
    throw new TriggerSyncError(
      `event bus ${eventBusName} rejected SyncRequested for tenant ${tenant}: ${code}: ${message}`,
    );
  }
  return { eventId: entry.EventId, eventBusName, tenant };
}
