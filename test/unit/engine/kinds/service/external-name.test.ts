/**
 * ExternalName targets: only the policy's names reach the host, and an address or a name the
 * host network answers itself only when an entry names it exactly.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  externalNameProblem,
  isHostInternalName,
} from '../../../../../lib/engine/kinds/service/external-name.js';
import { DEFAULT_ISOLATION } from '../../../../../lib/engine/policy/isolation.js';

const limits = (externalNames: string[]) => ({ ...DEFAULT_ISOLATION.services, externalNames });

describe('isHostInternalName', () => {
  it.each([
    ['169.254.169.254', true],
    ['2852039166', true], // inet_aton reads it as 169.254.169.254
    ['0xa9fea9fe', true],
    ['0251.0376.0251.0376', true],
    ['fd00::1', true],
    ['kubernetes', true],
    ['kubernetes.default', true],
    ['kubernetes.default.svc.cluster.local.', true],
    ['db.other-tenant.svc', true],
    ['db.other-tenant.svc.corp.example', true],
    ['web.ns.svc.cluster.local', true],
    ['LOCALHOST', true],
    ['metadata', true],
    ['metadata.google.internal', true],
    ['ip-10-0-0-1.ec2.internal', true],
    ['db.example.com', false],
    ['kubernetes.example.com', false],
    ['svc-db.example.com', false],
    ['a1.example.com', false],
  ])('%s: %s', (name, expected) => {
    expect(isHostInternalName(name)).toBe(expected);
  });
});

describe('externalNameProblem', () => {
  it.each([
    { target: 'db.example.com', allowed: [], says: /is not allowed \(add it/ },
    { target: 'db.example.com', allowed: ['db.example.com'], says: undefined },
    { target: 'DB.Example.com.', allowed: ['db.example.com'], says: undefined },
    { target: 'db.prod.example.com', allowed: ['.example.com'], says: undefined },
    { target: 'example.com', allowed: ['.example.com'], says: /is not allowed/ },
    { target: 'evil-example.com', allowed: ['.example.com'], says: /is not allowed/ },
    { target: '169.254.169.254', allowed: [], says: /an address or a name the host network/ },
    { target: '169.254.169.254', allowed: ['.254'], says: /names it exactly/ },
    { target: '169.254.169.254', allowed: ['169.254.169.254'], says: undefined },
    { target: 'kubernetes.default.svc', allowed: ['.svc'], says: /names it exactly/ },
    { target: 'x.cluster.local', allowed: ['.local'], says: /names it exactly/ },
    { target: 'node-1.c.proj.internal', allowed: ['.internal'], says: /names it exactly/ },
  ])('$target under $allowed', ({ target, allowed, says }) => {
    const problem = externalNameProblem(
      { type: 'ExternalName', externalName: target },
      limits(allowed),
    );
    if (says === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(says);
  });

  it('no target, no problem; a target on a Service of another type is still checked', () => {
    expect(externalNameProblem({}, limits([]))).toBeUndefined();
    expect(externalNameProblem({ externalName: '' }, limits([]))).toBeUndefined();
    expect(
      externalNameProblem({ type: 'ClusterIP', externalName: '10.0.0.1' }, limits([])),
    ).toMatch(/spec\.externalName "10\.0\.0\.1"/);
  });

  it('an address-like name is never allowed by a suffix, only by itself', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (parts) => {
        const address = parts.join('.');
        const suffix = `.${parts.slice(1).join('.')}`;
        expect(externalNameProblem({ externalName: address }, limits([suffix]))).toBeDefined();
        expect(externalNameProblem({ externalName: address }, limits([address]))).toBeUndefined();
      }),
    );
  });
});
