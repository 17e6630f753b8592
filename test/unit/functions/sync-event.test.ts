/** The sync function's event parsing: the tenant name follows the one rule of lib/common. */
import { describe, expect, it } from '@jest/globals';
import { InvalidSyncEventError, parseSyncEvent } from '../../../functions/sync/event.js';
import { MAX_TENANT_NAME_LENGTH, tenantNameProblem } from '../../../lib/common/index.js';

const longest = 'a'.repeat(MAX_TENANT_NAME_LENGTH);

describe('parseSyncEvent: tenant names', () => {
  it.each([
    ['a 64-character name', `${longest}a`],
    ["a subdomain with '.'", 'team.dev'],
    ['uppercase', 'Dev'],
  ])('refuses %s in a direct invoke and in a SyncRequested event', (_, tenant) => {
    const reason = `tenant ${JSON.stringify(tenant)} ${tenantNameProblem(tenant)}`;
    expect(() => parseSyncEvent({ tenant })).toThrow(InvalidSyncEventError);
    expect(() => parseSyncEvent({ tenant })).toThrow(reason);
    expect(() => parseSyncEvent({ 'detail-type': 'SyncRequested', detail: { tenant } })).toThrow(
      `detail.${reason}`,
    );
  });

  it('accepts a 63-character label', () => {
    expect(parseSyncEvent({ tenant: longest })).toEqual({
      tenant: longest,
      dryRun: false,
      full: false,
      wake: false,
      trigger: 'schedule-or-invoke',
    });
  });
});

describe('parseSyncEvent: full', () => {
  it('is false unless asked for (the schedule input never asks)', () => {
    expect(parseSyncEvent({ tenant: 'dev' }).full).toBe(false);
    expect(parseSyncEvent({ 'detail-type': 'SyncRequested', detail: { tenant: 'dev' } }).full).toBe(
      false,
    );
  });

  it('takes full: true in a direct invoke and in a SyncRequested detail', () => {
    expect(parseSyncEvent({ tenant: 'dev', full: true })).toEqual({
      tenant: 'dev',
      dryRun: false,
      full: true,
      wake: false,
      trigger: 'schedule-or-invoke',
    });
    expect(
      parseSyncEvent({
        'detail-type': 'SyncRequested',
        detail: { tenant: 'dev', dryRun: true, full: true },
      }),
    ).toEqual({ tenant: 'dev', dryRun: true, full: true, wake: false, trigger: 'event' });
    expect(parseSyncEvent({ tenant: 'dev', full: false }).full).toBe(false);
  });

  it.each([
    ['a string', 'true', 'a string'],
    ['a number', 1, 'a number'],
    ['null', null, 'null'],
    ['an object', { now: true }, 'an object'],
    ['an array', [true], 'an array'],
  ])('refuses full as %s, saying it must be a boolean', (_, full, got) => {
    expect(() => parseSyncEvent({ tenant: 'dev', full })).toThrow(InvalidSyncEventError);
    expect(() => parseSyncEvent({ tenant: 'dev', full })).toThrow(
      `full must be a boolean, got ${got}`,
    );
    expect(() =>
      parseSyncEvent({ 'detail-type': 'SyncRequested', detail: { tenant: 'dev', full } }),
    ).toThrow(`detail.full must be a boolean, got ${got}`);
  });

  it('names full in what it expects', () => {
    expect(() => parseSyncEvent({})).toThrow('"full"?: boolean');
  });
});

describe('parseSyncEvent: wake', () => {
  it("takes the wake endpoint's event, and is false unless sent", () => {
    expect(parseSyncEvent({ tenant: 'dev', wake: true })).toEqual({
      tenant: 'dev',
      dryRun: false,
      full: false,
      wake: true,
      trigger: 'schedule-or-invoke',
    });
    expect(parseSyncEvent({ tenant: 'dev' }).wake).toBe(false);
  });

  it.each([
    ['a string', 'true'],
    ['a number', 1],
    ['null', null],
  ])('refuses wake as %s', (_, wake) => {
    expect(() => parseSyncEvent({ tenant: 'dev', wake })).toThrow('wake must be a boolean');
  });
});
