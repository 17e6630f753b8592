/** `tenantplane status` of a TenantCluster being deleted says how many host copies are left. */
import { describe, expect, it } from '@jest/globals';
import { statusText, type TenantStatusReport } from '../../../lib/cli/commands/status.js';

const base: TenantStatusReport = {
  tenant: 'dev',
  spec: {},
  policy: { hostNamespace: 'tenant-dev', paused: false, toHost: [] },
  events: [],
};

describe('status of a TenantCluster being deleted', () => {
  it.each([
    { name: 'copies left', deleting: { copiesLeft: 3 }, expected: /Deleting:\s+3 copies left/ },
    { name: 'one copy left', deleting: { copiesLeft: 1 }, expected: /Deleting:\s+1 copy left/ },
    {
      name: 'no pass yet',
      deleting: { copiesLeft: undefined },
      expected: /Deleting:\s+yes; waiting for a pass/,
    },
  ])('$name', ({ deleting, expected }) => {
    expect(statusText({ ...base, deleting }, 0)).toMatch(expected);
  });

  it('says nothing about deletion otherwise', () => {
    expect(statusText(base, 0)).not.toMatch(/Deleting/);
  });
});
