import { describe, expect, it } from '@jest/globals';
import {
  isDnsLabel,
  isTenantName,
  MAX_TENANT_NAME_LENGTH,
  tenantNameProblem,
} from '../../../lib/common/index.js';

describe('tenantNameProblem', () => {
  const cases: Array<{ name: string; tenant: string; expected: RegExp | undefined }> = [
    { name: 'a simple name', tenant: 'dev', expected: undefined },
    { name: 'digits and dashes', tenant: 'team-1-prod', expected: undefined },
    { name: 'a single character', tenant: 'a', expected: undefined },
    { name: 'starts with a digit', tenant: '1team', expected: undefined },
    { name: '63 characters', tenant: 'a'.repeat(63), expected: undefined },
    { name: 'empty', tenant: '', expected: /must not be empty/ },
    {
      name: '64 characters',
      tenant: 'a'.repeat(64),
      expected: /must be at most 63 characters .*got 64/,
    },
    { name: 'a dot (a subdomain, not a label)', tenant: 'team.dev', expected: /DNS-1123 label/ },
    { name: 'uppercase', tenant: 'Dev', expected: /DNS-1123 label/ },
    { name: 'an underscore', tenant: 'my_dev', expected: /DNS-1123 label/ },
    { name: 'a leading dash', tenant: '-dev', expected: /DNS-1123 label/ },
    { name: 'a trailing dash', tenant: 'dev-', expected: /DNS-1123 label/ },
    { name: 'a space', tenant: 'dev ', expected: /DNS-1123 label/ },
    { name: 'a slash', tenant: 'a/b', expected: /DNS-1123 label/ },
  ];
  it.each(cases)('$name', ({ tenant, expected }) => {
    const problem = tenantNameProblem(tenant);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
    expect(isTenantName(tenant)).toBe(expected === undefined);
  });

  it('the limit is a label value’s 63 characters', () => {
    expect(MAX_TENANT_NAME_LENGTH).toBe(63);
  });
});

describe('isDnsLabel', () => {
  const cases: Array<{ name: string; value: string; expected: boolean }> = [
    { name: 'a namespace name', value: 'tenant-dev', expected: true },
    { name: '63 characters', value: 'n'.repeat(63), expected: true },
    { name: '64 characters', value: 'n'.repeat(64), expected: false },
    { name: 'empty', value: '', expected: false },
    { name: 'uppercase', value: 'Tenant', expected: false },
    { name: 'a dot', value: 'a.b', expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ value, expected }) => {
    expect(isDnsLabel(value)).toBe(expected);
  });
});
