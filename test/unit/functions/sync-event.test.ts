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
      trigger: 'schedule-or-invoke',
    });
  });
});
