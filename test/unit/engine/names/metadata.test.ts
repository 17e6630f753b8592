/** The keys tenantplane reads and writes, and which keys only the engine may set. */
import { describe, expect, it } from '@jest/globals';
import { Labels, MANAGED_BY_VALUE } from '../../../../lib/engine/index.js';
import {
  Annotations,
  DROPPED_TENANT_ANNOTATIONS,
  EventAnnotations,
  EventBackKeys,
  HostClassKeys,
  isReservedKey,
  RESERVED_DOMAIN,
  TOKEN_SECRET_KIND,
} from '../../../../lib/engine/names/metadata.js';

describe('isReservedKey', () => {
  const cases: Array<{ name: string; key: string; expected: boolean }> = [
    { name: 'the reserved domain', key: 'tenantplane.io/tenant', expected: true },
    { name: 'any name under it', key: 'tenantplane.io/anything', expected: true },
    { name: 'an empty name under it', key: 'tenantplane.io/', expected: true },
    { name: 'a subdomain', key: 'sub.tenantplane.io/x', expected: true },
    { name: 'a deeper subdomain', key: 'a.b.tenantplane.io/x', expected: true },
    { name: 'the domain in upper case', key: 'TenantPlane.IO/x', expected: true },
    { name: 'the managed-by label', key: 'app.kubernetes.io/managed-by', expected: true },
    { name: 'another app.kubernetes.io label', key: 'app.kubernetes.io/name', expected: false },
    { name: 'a domain that only ends alike', key: 'nottenantplane.io/x', expected: false },
    { name: 'a domain that only starts alike', key: 'tenantplane.io.evil.com/x', expected: false },
    {
      name: 'the domain as a name, not a prefix',
      key: 'example.com/tenantplane.io',
      expected: false,
    },
    { name: 'the bare domain without a slash', key: 'tenantplane.io', expected: false },
    { name: 'an unprefixed key', key: 'app', expected: false },
    { name: 'an empty key', key: '', expected: false },
    { name: 'another domain', key: 'example.com/x', expected: false },
  ];
  it.each(cases)('$name: $key -> $expected', ({ key, expected }) => {
    expect(isReservedKey(key)).toBe(expected);
  });

  it('answers the same when asked again, past the number of keys it remembers', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) =>
      i % 2 === 0 ? `k${i}.tenantplane.io/x` : `example.com/k${i}`,
    );
    for (let round = 0; round < 2; round++) {
      expect(keys.filter((key) => isReservedKey(key))).toHaveLength(5_000);
      for (const { key, expected } of cases) expect(isReservedKey(key)).toBe(expected);
    }
  });

  it('reserves every key the engine writes, so a tenant can spoof none of them', () => {
    const written = [
      ...Object.values(Labels),
      ...Object.values(Annotations),
      ...Object.values(EventAnnotations),
      ...Object.values(HostClassKeys),
      ...Object.values(EventBackKeys),
    ];
    expect(written.filter((key) => !isReservedKey(key))).toEqual([]);
  });
});

describe('metadata constants', () => {
  it('spells the reverse-mapping keys under the reserved domain', () => {
    expect(RESERVED_DOMAIN).toBe('tenantplane.io');
    expect(MANAGED_BY_VALUE).toBe('tenantplane');
    expect(Labels).toEqual({
      ManagedBy: 'app.kubernetes.io/managed-by',
      Tenant: 'tenantplane.io/tenant',
      VirtualNamespace: 'tenantplane.io/virtual-namespace',
      Kind: 'tenantplane.io/kind',
    });
    expect(Annotations).toEqual({
      VirtualNamespace: 'tenantplane.io/virtual-namespace',
      VirtualName: 'tenantplane.io/virtual-name',
      VirtualUid: 'tenantplane.io/virtual-uid',
      OwnedKeys: 'tenantplane.io/owned-keys',
      SpecHash: 'tenantplane.io/spec-hash',
      AppliedHash: 'tenantplane.io/applied-hash',
      BoundHostPod: 'tenantplane.io/bound-host-pod',
      StoredHash: 'tenantplane.io/stored-hash',
      ImmutableHash: 'tenantplane.io/immutable-hash',
      ServiceAccountName: 'tenantplane.io/service-account-name',
      TenantLabels: 'tenantplane.io/tenant-labels',
      TenantAnnotations: 'tenantplane.io/tenant-annotations',
      TokenRequests: 'tenantplane.io/token-requests',
      TokenIssuedAt: 'tenantplane.io/token-issued-at',
      TokenExpiresAt: 'tenantplane.io/token-expires-at',
      TokenRequestHash: 'tenantplane.io/token-request-hash',
      TenantContainers: 'tenantplane.io/tenant-containers',
    });
    expect(TOKEN_SECRET_KIND).toBe('ServiceAccountToken');
  });

  it('drops kubectl’s last-applied record, which is not a reserved key', () => {
    expect(DROPPED_TENANT_ANNOTATIONS).toEqual([
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
    expect(isReservedKey('kubectl.kubernetes.io/last-applied-configuration')).toBe(false);
  });
});
