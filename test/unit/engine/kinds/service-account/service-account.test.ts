/** The ServiceAccount translator: a copy without the tenant's token Secrets. */
import { describe, expect, it } from '@jest/globals';
import { hostOf, tenantObject } from '../support.js';

describe('ServiceAccount translator', () => {
  const cases = [
    {
      name: 'token Secrets dropped, pull Secrets renamed',
      fields: {
        secrets: [{ name: 'web-token-abcde' }],
        imagePullSecrets: [{ name: 'registry' }],
        automountServiceAccountToken: false,
      },
      expected: {
        imagePullSecrets: [{ name: 'registry-x-shop-x-dev' }],
        automountServiceAccountToken: false,
      },
    },
    { name: 'a plain service account is a plain copy', fields: {}, expected: {} },
  ];
  it.each(cases)('$name', ({ fields, expected }) => {
    const { apiVersion, kind, metadata, ...content } = hostOf(
      tenantObject('v1', 'ServiceAccount', fields),
    );
    expect({ apiVersion, kind, name: metadata.name }).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      name: 'web-x-shop-x-dev',
    });
    expect(content).toEqual(expected);
  });
});
