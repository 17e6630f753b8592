/**
 * `spec.workloads.tenantDns`: a literal nameserver or the tenant DNS Service, exactly one; a
 * Service the engine could never sync is refused by the parser, in words.
 */
import { describe, expect, it } from '@jest/globals';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const spec = (tenantDns: unknown, toHost: unknown[] = [POD, SERVICE]) => ({
  hostNamespace: 'tenant-dev',
  toHost,
  workloads: { tenantDns },
});

describe('spec.workloads.tenantDns', () => {
  it.each([
    {
      name: 'a nameserver, the default cluster domain',
      tenantDns: { nameserver: '10.96.0.10' },
      expected: { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' },
    },
    {
      name: 'an IPv6 nameserver',
      tenantDns: { nameserver: 'fd00::a' },
      expected: { nameserver: 'fd00::a', clusterDomain: 'cluster.local' },
    },
    {
      name: 'the tenant DNS Service and a cluster domain',
      tenantDns: { service: 'tenant-dns/tenant-dns', clusterDomain: 'corp.local' },
      expected: {
        service: { namespace: 'tenant-dns', name: 'tenant-dns' },
        clusterDomain: 'corp.local',
      },
    },
  ])('$name', ({ tenantDns, expected }) => {
    expect(parseSyncPolicy('dev', spec(tenantDns)).workloads?.tenantDns).toEqual(expected);
  });

  it.each([
    {
      name: 'both a nameserver and a Service',
      tenantDns: { nameserver: '10.96.0.10', service: 'tenant-dns/tenant-dns' },
      says: 'spec.workloads.tenantDns takes either nameserver (an IP address) or service (the tenant DNS Service), not both',
    },
    {
      name: 'neither',
      tenantDns: { clusterDomain: 'cluster.local' },
      says: 'spec.workloads.tenantDns needs nameserver (an IP address) or service (<namespace>/<name> of the tenant DNS Service)',
    },
    {
      name: 'not an object',
      tenantDns: 'tenant-dns/tenant-dns',
      says: 'spec.workloads.tenantDns must be an object',
    },
    {
      name: 'a nameserver that is a name',
      tenantDns: { nameserver: 'dns' },
      says: 'spec.workloads.tenantDns.nameserver must be an IP address',
    },
    {
      name: 'a Service without a namespace',
      tenantDns: { service: 'tenant-dns' },
      says: 'spec.workloads.tenantDns.service must be <namespace>/<name> of a tenant Service, got "tenant-dns"',
    },
    {
      name: 'a Service with one slash too many',
      tenantDns: { service: 'a/b/c' },
      says: 'must be <namespace>/<name> of a tenant Service, got "a/b/c"',
    },
    {
      name: 'a namespace that is no DNS label',
      tenantDns: { service: 'Tenant_DNS/dns' },
      says: 'must be <namespace>/<name> of a tenant Service, got "Tenant_DNS/dns"',
    },
    {
      name: 'a Service name starting with a digit (no DNS-1035 label)',
      tenantDns: { service: 'dns/1dns' },
      says: 'must be <namespace>/<name> of a tenant Service, got "dns/1dns"',
    },
    {
      name: 'a Service that is not a string',
      tenantDns: { service: { namespace: 'dns', name: 'dns' } },
      says: 'must be <namespace>/<name> of a tenant Service, got object',
    },
    {
      name: 'a Service in a tenant system namespace',
      tenantDns: { service: 'kube-system/kube-dns' },
      says: 'spec.workloads.tenantDns.service names a Service in kube-system, a tenant system namespace the engine never syncs',
    },
    {
      name: 'the tenant apiserver’s own Service',
      tenantDns: { service: 'default/kubernetes' },
      says: "names default/kubernetes, the tenant apiserver's own Service",
    },
    {
      name: 'a bad cluster domain',
      tenantDns: { service: 'dns/dns', clusterDomain: 'Not A Domain' },
      says: 'spec.workloads.tenantDns.clusterDomain must be a DNS domain',
    },
  ])('refuses $name, saying so', ({ tenantDns, says }) => {
    expect(() => parseSyncPolicy('dev', spec(tenantDns))).toThrow(says);
  });

  it('refuses a Service when Services are not synced: its copy would never exist', () => {
    expect(() => parseSyncPolicy('dev', spec({ service: 'dns/dns' }, [POD]))).toThrow(
      'spec.workloads.tenantDns.service names the tenant Service dns/dns, but Service (v1) is not in spec.toHost',
    );
    // A literal nameserver needs no Service.
    expect(() => parseSyncPolicy('dev', spec({ nameserver: '10.96.0.10' }, [POD]))).not.toThrow();
  });
});
