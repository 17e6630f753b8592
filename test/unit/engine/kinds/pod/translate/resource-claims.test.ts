/**
 * Resource claims: ResourceClaims are not synced, so a Pod naming one (or a template) would take
 * whatever host claim has that raw name; it is refused, naming the field.
 */
import { describe, expect, it } from '@jest/globals';
import { resourceClaimRefusal } from '../../../../../../lib/engine/kinds/pod/translate/resource-claims.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

const reason = (at: string) =>
  `the Pod names a resource claim (${at}), and ResourceClaims are not synced to the host, where the name would reach another tenant's or the operator's claim; remove spec.resourceClaims`;

describe('resourceClaimRefusal', () => {
  const cases: Array<{ name: string; spec: unknown; expected: string | undefined }> = [
    { name: 'no spec', spec: undefined, expected: undefined },
    { name: 'no resource claims', spec: { containers: [] }, expected: undefined },
    { name: 'an empty list', spec: { resourceClaims: [] }, expected: undefined },
    {
      name: 'a claim by name',
      spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'shared-gpu' }] },
      expected: reason('spec.resourceClaims[gpu].resourceClaimName'),
    },
    {
      name: 'a claim template by name',
      spec: { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }] },
      expected: reason('spec.resourceClaims[gpu].resourceClaimTemplateName'),
    },
    {
      name: 'the pre-1.31 form (source)',
      spec: { resourceClaims: [{ name: 'gpu', source: { resourceClaimName: 'x' } }] },
      expected: reason('spec.resourceClaims[gpu].source.resourceClaimName'),
    },
    {
      name: 'an entry naming nothing: still refused, at the entry',
      spec: { resourceClaims: [{ name: 'gpu' }] },
      expected: reason('spec.resourceClaims[gpu]'),
    },
    {
      name: 'the first of several',
      spec: {
        resourceClaims: [
          'not a record',
          { name: 'a', resourceClaimTemplateName: 't' },
          { name: 'b', resourceClaimName: 'c' },
        ],
      },
      expected: reason('spec.resourceClaims[a].resourceClaimTemplateName'),
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(resourceClaimRefusal(spec)).toBe(expected);
  });

  it('refuses the Pod through its translator, even with host access allowed', () => {
    const pod = tenantObject('v1', 'Pod', {
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'web', image: 'nginx:1', resources: { claims: [{ name: 'gpu' }] } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: 'shared-gpu' }],
      },
    });
    const workloads = { allowHostAccess: true };
    expect(translate(pod, { tenant: TENANT, hostNamespace: HOST_NAMESPACE, workloads })).toEqual({
      refused: reason('spec.resourceClaims[gpu].resourceClaimName'),
    });
  });
});
