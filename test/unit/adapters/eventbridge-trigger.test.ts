import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TriggerSyncError, triggerSync } from '../../../lib/adapters/eventbridge-trigger.js';
import { MAX_TENANT_NAME_LENGTH, tenantNameProblem } from '../../../lib/common/index.js';

const eventBridge = mockClient(EventBridgeClient);

describe('triggerSync', () => {
  beforeEach(() => {
    eventBridge.reset();
  });

  it('puts one SyncRequested event for the tenant on the bus', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    const result = await triggerSync('dev', { eventBusName: 'tenantplane', client });

    expect(result).toEqual({ eventId: 'e-1', eventBusName: 'tenantplane', tenant: 'dev' });
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      Entries: [
        {
          EventBusName: 'tenantplane',
          Source: 'tenantplane.cli',
          DetailType: 'SyncRequested',
          Detail: '{"tenant":"dev"}',
        },
      ],
    });
  });

  it('defaults to the tenantplane bus and carries dryRun when asked', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-2' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    await triggerSync('team-a', { client, dryRun: true });

    const entry = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry.EventBusName).toBe('tenantplane');
    expect(JSON.parse(entry.Detail!)).toEqual({ tenant: 'team-a', dryRun: true });
  });

  it('carries full when a full pass is asked for', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-3' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    await triggerSync('dev', { client, full: true });

    const entry = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(JSON.parse(entry.Detail!)).toEqual({ tenant: 'dev', full: true });
  });

  it('fails clearly when the bus reports a failed entry', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'AccessDeniedException', ErrorMessage: 'not authorized' }],
    });
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    const attempt = triggerSync('dev', { eventBusName: 'tenantplane', client });

    await expect(attempt).rejects.toThrow(TriggerSyncError);
    await expect(attempt).rejects.toThrow(
      'event bus tenantplane rejected SyncRequested for tenant dev: AccessDeniedException: not authorized',
    );
  });

  it('wraps a transport or API failure with the tenant and bus', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('ResourceNotFoundException: no such bus'));
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    await expect(triggerSync('dev', { eventBusName: 'nope', client })).rejects.toThrow(
      'could not put SyncRequested for tenant dev on event bus nope: ResourceNotFoundException: no such bus',
    );
  });

  it('refuses an invalid tenant name without calling AWS', async () => {
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    await expect(triggerSync('Dev Team', { client })).rejects.toThrow('invalid tenant name');
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it.each([
    ['a 64-character name', 'a'.repeat(MAX_TENANT_NAME_LENGTH + 1)],
    ["a subdomain with '.', which no tenant's rule could match", 'team.dev'],
    ['uppercase', 'Dev'],
  ])('refuses %s, with the reason, before calling AWS', async (_, tenant) => {
    const client = new EventBridgeClient({ region: 'eu-west-1' });

    await expect(triggerSync(tenant, { client })).rejects.toThrow(
      `invalid tenant name ${JSON.stringify(tenant)}: ${tenantNameProblem(tenant)}`,
    );
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('accepts a 63-character name', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-3' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    const tenant = 'a'.repeat(MAX_TENANT_NAME_LENGTH);

    await expect(triggerSync(tenant, { client })).resolves.toMatchObject({ tenant });
  });
});
