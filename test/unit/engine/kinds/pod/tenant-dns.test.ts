/**
 * The tenant DNS named by its Service: the address a copy gives (only this tenant's live copy of
 * that very Service, with a cluster IP), and the Pod translation with that fact (the address
 * first in the nameservers; without it, the Pod's error, never a refusal).
 */
import { describe, expect, it } from '@jest/globals';
import { dnsAddressOf } from '../../../../../lib/engine/kinds/pod/tenant-dns.js';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import type { WorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { hostCopyOf } from '../../support.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

const ref = { namespace: 'dns', name: 'dns' };
const service = (name: string, spec: Record<string, unknown>) =>
  tenantObject('v1', 'Service', { spec }, { namespace: 'dns', name });
/** The host copy of tenant Service `source` of `tenant`, with the address the host gave it. */
const copy = (source: KubeObject, tenant = TENANT, more: Partial<KubeObject['metadata']> = {}) => {
  const host = hostCopyOf(source, tenant);
  return { ...host, spec: source.spec, metadata: { ...host.metadata, ...more } };
};

describe('dnsAddressOf', () => {
  const dns = service('dns', { clusterIP: '10.96.200.1', selector: { app: 'dns' } });
  it.each([
    { name: 'this tenant’s copy with a cluster IP', copy: copy(dns), expected: '10.96.200.1' },
    { name: 'no copy', copy: undefined, expected: /has no host copy yet/ },
    { name: 'another tenant’s copy', copy: copy(dns, 'other'), expected: /has no host copy yet/ },
    {
      name: 'the copy of another Service of the tenant',
      copy: copy(service('other', { clusterIP: '10.96.200.2' })),
      expected: /has no host copy yet/,
    },
    {
      name: 'a copy being deleted',
      copy: copy(dns, TENANT, { deletionTimestamp: '2030-01-01T00:00:00Z' }),
      expected: /has no host copy yet/,
    },
    {
      name: 'a headless copy',
      copy: copy(service('dns', { clusterIP: 'None' })),
      expected: /has no cluster IP on the host/,
    },
    {
      name: 'an ExternalName copy',
      copy: copy(service('dns', { type: 'ExternalName', externalName: 'dns.example.com' })),
      expected: /has no cluster IP on the host/,
    },
  ])('$name', ({ copy, expected }) => {
    const found = dnsAddressOf(copy, ref, TENANT);
    if (typeof expected === 'string') expect(found).toEqual({ address: expected });
    else expect('missing' in found && found.missing).toMatch(expected);
  });
});

const byService: WorkloadPolicy = {
  tenantDns: { service: ref, clusterDomain: 'cluster.local' },
};
const searches = ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
const web = { name: 'web', image: 'nginx:1' };

function translated(spec: Record<string, unknown>, tenantDnsAddress?: string) {
  return translate(tenantObject('v1', 'Pod', { spec }), {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: byService,
    ...(tenantDnsAddress === undefined ? {} : { tenantDnsAddress }),
  });
}

describe('Pod translator: the tenant DNS Service’s host address', () => {
  it.each([
    {
      name: 'cluster DNS gets the address read by the turn',
      spec: { automountServiceAccountToken: false, containers: [web] },
      address: '10.96.200.1',
      expected: {
        dnsPolicy: 'None',
        dnsConfig: {
          nameservers: ['10.96.200.1'],
          searches,
          options: [{ name: 'ndots', value: '5' }],
        },
      },
    },
    {
      name: 'the Pod’s own nameservers follow it, without repeating it',
      spec: {
        automountServiceAccountToken: false,
        containers: [web],
        dnsConfig: { nameservers: ['10.96.200.1', '1.1.1.1'] },
      },
      address: '10.96.200.1',
      expected: {
        dnsPolicy: 'None',
        dnsConfig: {
          nameservers: ['10.96.200.1', '1.1.1.1'],
          searches,
          options: [{ name: 'ndots', value: '5' }],
        },
      },
    },
    {
      name: 'dnsPolicy Default needs no address and keeps the node’s DNS',
      spec: { automountServiceAccountToken: false, containers: [web], dnsPolicy: 'Default' },
      address: undefined,
      expected: { dnsPolicy: 'Default' },
    },
  ])('$name', ({ spec, address, expected }) => {
    const result = translated(spec, address);
    if (!('host' in result)) throw new Error(result.refused);
    const { dnsPolicy, dnsConfig } = result.host.spec as Record<string, unknown>;
    expect({ dnsPolicy, ...(dnsConfig === undefined ? {} : { dnsConfig }) }).toEqual(expected);
  });

  it('without the address a cluster-DNS Pod is an error, never a refusal (a refusal collects its copy)', () => {
    expect(() => translated({ automountServiceAccountToken: false, containers: [web] })).toThrow(
      'the host address of the tenant DNS Service (spec.workloads.tenantDns.service) was not read',
    );
  });
});
