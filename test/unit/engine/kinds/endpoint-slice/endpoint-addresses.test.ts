/**
 * Where a tenant EndpointSlice may send traffic (CVE-2021-25740): its own Pod IPs or the
 * policy's blocks, Pods only as targets; everything else is a Skip naming the address.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addressesBeyond,
  endpointsRefusal,
} from '../../../../../lib/engine/kinds/endpoint-slice/endpoint-addresses.js';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import { KubernetesKeys } from '../../../../../lib/engine/names/metadata.js';
import { canonicalAddress, parseCidr } from '../../../../../lib/engine/policy/cidr.js';
import { parseWorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

const slice = (endpoints: unknown[], addressType = 'IPv4') =>
  tenantObject(
    'discovery.k8s.io/v1',
    'EndpointSlice',
    { addressType, ports: [{ port: 80 }], endpoints },
    { name: 'db-1', labels: { [KubernetesKeys.ServiceName]: 'db' } },
  );
const at = (...addresses: string[]) => ({ addresses });
/** The tenant's own Pod IPs, as the turn hands them (spelt one way). */
const OWN = new Set(
  ['10.244.1.7', '10.244.2.9', 'fd00:10:244::7'].map((ip) => canonicalAddress(ip) as string),
);
const POLICY = parseWorkloadPolicy({ endpoints: { cidrs: ['192.0.2.0/24', '2001:db8::/32'] } }, []);

function under(source: KubeObject, ownPodIps: ReadonlySet<string> | undefined) {
  const result = translate(source, {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: POLICY,
    ...(ownPodIps ? { ownPodIps } : {}),
  });
  return 'refused' in result ? result.refused : undefined;
}

describe('EndpointSlice addresses and targets', () => {
  const refused: Array<{ name: string; endpoints: unknown[]; says: RegExp; own?: Set<string> }> = [
    {
      name: 'another tenant’s Pod IP',
      endpoints: [at('10.244.1.7'), at('10.244.3.3')],
      says: /endpoints\[1\]\.addresses "10\.244\.3\.3" is neither one of this tenant's Pod IPs/,
    },
    {
      name: 'a node IP',
      endpoints: [at('172.18.0.2')],
      says: /"172\.18\.0\.2" is neither.*spec\.workloads\.endpoints\.cidrs/,
    },
    {
      name: 'the metadata endpoint',
      endpoints: [at('169.254.169.254')],
      says: /"169\.254\.169\.254"/,
    },
    {
      name: 'an FQDN endpoint',
      endpoints: [at('db.example.com')],
      says: /"db\.example\.com" is not an IP address/,
    },
    {
      name: 'an address with a zone',
      endpoints: [at('fe80::1%eth0')],
      says: /"fe80::1%eth0" is not an IP address/,
    },
    {
      name: 'an own-looking address when the host Pods could not be listed',
      endpoints: [at('10.244.1.7')],
      own: undefined,
      says: /could not be checked \(its host Pods could not be listed\)/,
    },
    {
      name: 'a target that is not a Pod',
      endpoints: [{ addresses: ['10.244.1.7'], targetRef: { kind: 'Node', name: 'node-1' } }],
      says: /endpoints\[0\]\.targetRef names a "Node".*only this tenant's Pods/,
    },
    {
      name: 'a Pod of another API',
      endpoints: [
        { addresses: ['10.244.1.7'], targetRef: { apiVersion: 'x/v1', kind: 'Pod', name: 'a' } },
      ],
      says: /names a "Pod" \("x\/v1"\)/,
    },
    {
      name: 'a target without a name',
      endpoints: [
        { addresses: ['10.244.1.7'], targetRef: { kind: 'Pod', namespace: 'kube-system' } },
      ],
      says: /endpoints\[0\]\.targetRef names no Pod/,
    },
  ];
  it.each(refused)('refused: $name', ({ endpoints, says, ...rest }) => {
    const own = 'own' in rest ? rest.own : OWN;
    const text = under(slice(endpoints), own);
    expect(text).toMatch(/^the EndpointSlice is not copied: /);
    expect(text).toMatch(says);
  });

  const allowed: Array<{ name: string; endpoints: unknown[]; addressType?: string }> = [
    { name: 'no endpoints', endpoints: [] },
    { name: 'the tenant’s own Pod IPs', endpoints: [at('10.244.1.7', '10.244.2.9')] },
    {
      name: 'an own IPv6 Pod IP spelt otherwise',
      endpoints: [at('fd00:10:244:0:0:0:0:7')],
      addressType: 'IPv6',
    },
    { name: 'addresses inside the policy’s blocks', endpoints: [at('192.0.2.10', '192.0.2.11')] },
    { name: 'an IPv6 block', endpoints: [at('2001:db8::5')], addressType: 'IPv6' },
    {
      name: 'a Pod of another namespace of the tenant',
      endpoints: [
        { addresses: ['10.244.1.7'], targetRef: { kind: 'Pod', name: 'db-0', namespace: 'other' } },
      ],
    },
  ];
  it.each(allowed)('copied: $name', ({ endpoints, addressType }) => {
    expect(under(slice(endpoints, addressType), OWN)).toBeUndefined();
  });

  it('addresses inside the blocks need no listing, even without the own Pod IPs', () => {
    expect(under(slice([at('192.0.2.10')]), undefined)).toBeUndefined();
  });

  it('names three problems and counts the rest', () => {
    const text = under(slice([at('1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5')]), OWN);
    expect(text).toMatch(/"1\.1\.1\.3" is neither[^;]*; and 2 more$/);
  });
});

describe('addressesBeyond', () => {
  const cidrs = [parseCidr('10.0.0.0/8')].filter((c) => c !== undefined);

  it('is exactly the addresses the own Pod IPs must allow', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const address = fc.tuple(octet, octet, octet, octet).map((p) => p.join('.'));
    fc.assert(
      fc.property(fc.array(fc.array(address, { maxLength: 3 }), { maxLength: 4 }), (lists) => {
        const source = slice(lists.map((addresses) => ({ addresses })));
        const beyond = addressesBeyond(source, cidrs);
        expect(beyond).toEqual(lists.flat().filter((a) => !a.startsWith('10.')));
        // Nothing beyond: copied without the own Pod IPs; otherwise only with them all.
        expect(endpointsRefusal(source, cidrs, undefined) === undefined).toBe(beyond.length === 0);
        const own = new Set(beyond.map((a) => canonicalAddress(a as string) as string));
        expect(endpointsRefusal(source, cidrs, own)).toBeUndefined();
      }),
    );
  });
});
