/** The one selector of a tenant's host copies: the labels every copy carries, of one kind or all. */
import { describe, expect, it } from '@jest/globals';
import {
  tenantCopyLabels,
  tenantCopySelector,
} from '../../../../lib/engine/names/copy-selector.js';
import { reverseMappingLabels } from '../../../../lib/engine/names/reverse-mapping.js';

describe('tenantCopySelector', () => {
  it.each([
    [
      'every copy of a tenant',
      'dev',
      undefined,
      'app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=dev',
    ],
    [
      'the copies of one kind',
      'dev',
      'Pod',
      'app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=dev,tenantplane.io/kind=Pod',
    ],
  ])('%s', (_name, tenant, kind, expected) => {
    expect(tenantCopySelector(tenant, kind)).toBe(expected);
  });

  it('selects every copy the reverse mapping stamps, and none of another tenant', () => {
    const stamped = reverseMappingLabels('dev', 'Pod', 'shop');
    const selects = (labels: Record<string, string>, wanted: Record<string, string>) =>
      Object.entries(wanted).every(([key, value]) => labels[key] === value);
    expect(selects(stamped, tenantCopyLabels('dev', 'Pod'))).toBe(true);
    expect(selects(stamped, tenantCopyLabels('dev'))).toBe(true);
    expect(selects(stamped, tenantCopyLabels('prod'))).toBe(false);
    expect(selects(stamped, tenantCopyLabels('dev', 'Secret'))).toBe(false);
  });
});
