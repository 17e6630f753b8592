/**
 * Aligned cluster IPs, pure: which tenant Services are aligned, what a host copy's create asks
 * for (never an address outside the host's ranges or in their static band, KEP-3070), the host's
 * refusal of an ask, and the tenant Service as it is recreated with its copy's address.
 */
import { describe, expect, it } from '@jest/globals';
import {
  alignable,
  askRefusal,
  clusterIpAsk,
  clusterIpsOf,
  misaligned,
  placeIn,
  realignedService,
  staticBandSize,
} from '../../../../../lib/engine/kinds/service/cluster-ip.js';
import { notGivenBecause } from '../../../../../lib/engine/kinds/service/realign.js';
import { parseCidr } from '../../../../../lib/engine/policy/cidr.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';

const RANGES = { cidrs: ['10.96.0.0/16', 'fd00:10:96::/112'] };

function service(spec: Record<string, unknown>, ns = 'shop', name = 'web'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec };
}

describe('the static band of a service range (KEP-3070)', () => {
  it.each([
    { name: '/16: 256 addresses', cidr: '10.96.0.0/16', band: 256n },
    { name: '/12: capped at 256', cidr: '10.96.0.0/12', band: 256n },
    { name: '/24: a sixteenth, at least 16', cidr: '10.0.0.0/24', band: 16n },
    { name: '/22: a sixteenth', cidr: '10.0.0.0/22', band: 64n },
    { name: '/28: none (16 addresses or fewer)', cidr: '10.0.0.0/28', band: 0n },
    { name: 'IPv6 /112: 256', cidr: 'fd00::/112', band: 256n },
  ])('$name', ({ cidr, band }) => {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new Error(cidr);
    expect(staticBandSize(parsed)).toBe(band);
  });

  it.each([
    { ip: '10.96.0.10', place: { range: '10.96.0.0/16', staticBand: true } },
    { ip: '10.96.1.0', place: { range: '10.96.0.0/16', staticBand: true } },
    { ip: '10.96.1.1', place: { range: '10.96.0.0/16', staticBand: false } },
    { ip: '10.96.200.7', place: { range: '10.96.0.0/16', staticBand: false } },
    { ip: 'fd00:10:96::a', place: { range: 'fd00:10:96::/112', staticBand: true } },
    { ip: 'fd00:10:96::505', place: { range: 'fd00:10:96::/112', staticBand: false } },
    { ip: '10.200.0.5', place: undefined },
  ])('$ip', ({ ip, place }) => {
    expect(placeIn(ip, RANGES.cidrs)).toEqual(place);
  });
});

describe('which tenant Services are aligned', () => {
  it.each([
    { name: 'a ClusterIP Service', svc: service({ clusterIP: '10.96.5.5' }), yes: true },
    {
      name: 'a NodePort Service',
      svc: service({ type: 'NodePort', clusterIP: '10.96.5.5' }),
      yes: true,
    },
    { name: 'headless', svc: service({ clusterIP: 'None', clusterIPs: ['None'] }), yes: false },
    {
      name: 'ExternalName',
      svc: service({ type: 'ExternalName', externalName: 'a.example' }),
      yes: false,
    },
    {
      name: 'the tenant apiserver’s own',
      svc: service({ clusterIP: '10.96.0.1' }, 'default', 'kubernetes'),
      yes: false,
    },
    { name: 'no address yet', svc: service({}), yes: false },
  ])('$name', ({ svc, yes }) => {
    expect(alignable(svc)).toBe(yes);
  });

  it('dual-stack addresses are clusterIPs, in order', () => {
    const svc = service({ clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.5', 'fd00:10:96::505'] });
    expect(clusterIpsOf(svc)).toEqual(['10.96.5.5', 'fd00:10:96::505']);
  });
});

describe('what a host copy’s create asks for', () => {
  it.each([
    {
      name: 'the tenant’s address, inside the host’s range and its dynamic band',
      svc: service({
        clusterIP: '10.96.5.5',
        clusterIPs: ['10.96.5.5'],
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
      }),
      ranges: RANGES,
      want: {
        ask: {
          clusterIP: '10.96.5.5',
          clusterIPs: ['10.96.5.5'],
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
        },
      },
    },
    {
      name: 'dual-stack: both, with their families',
      svc: service({
        clusterIPs: ['10.96.5.5', 'fd00:10:96::505'],
        ipFamilies: ['IPv4', 'IPv6'],
        ipFamilyPolicy: 'RequireDualStack',
      }),
      ranges: RANGES,
      want: {
        ask: {
          clusterIP: '10.96.5.5',
          clusterIPs: ['10.96.5.5', 'fd00:10:96::505'],
          ipFamilies: ['IPv4', 'IPv6'],
          ipFamilyPolicy: 'RequireDualStack',
        },
      },
    },
    {
      name: 'nothing in the static band: the host allocates, the tenant is realigned',
      svc: service({ clusterIP: '10.96.0.50' }),
      ranges: RANGES,
      want: {
        why: "the tenant's cluster IP 10.96.0.50 is in the band of 10.96.0.0/16 the host keeps for static assignment",
      },
    },
    {
      name: 'nothing outside the host’s ranges (a tenant range that is not the host’s)',
      svc: service({ clusterIP: '10.200.0.5' }),
      ranges: RANGES,
      want: {
        why: "the tenant's cluster IP 10.200.0.5 is outside the host's service range (10.96.0.0/16, fd00:10:96::/112)",
      },
    },
    {
      name: 'nothing when the ranges could not be read',
      svc: service({ clusterIP: '10.96.5.5' }),
      ranges: { unreadable: 'forbidden' },
      want: { why: "the host's service ranges could not be read (forbidden)" },
    },
    {
      name: 'nothing without the ranges (the copy exists)',
      svc: service({ clusterIP: '10.96.5.5' }),
      ranges: undefined,
      want: { why: undefined },
    },
    {
      name: 'nothing for headless',
      svc: service({ clusterIP: 'None' }),
      ranges: RANGES,
      want: { why: undefined },
    },
  ])('$name', ({ svc, ranges, want }) => {
    expect(clusterIpAsk(svc, ranges)).toEqual(want);
  });

  it.each([
    {
      name: 'taken on the host',
      message:
        'Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.96.5.5"]: failed to allocate IP 10.96.5.5: provided IP is already allocated',
      refused: true,
    },
    {
      name: 'outside the host’s range',
      message:
        'Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.200.0.5"]: failed to allocate IP 10.200.0.5: the provided network does not match the current range',
      refused: true,
    },
    {
      name: 'another invalid field stands',
      message: 'Service "a" is invalid: spec.ports: Required value',
      refused: false,
    },
  ])('the host’s answer: $name', ({ message, refused }) => {
    const error = new ClusterError('Invalid', message, { status: 422 });
    expect(askRefusal(error)).toBe(refused ? message : undefined);
  });

  it('a conflict is not a refusal of the ask', () => {
    expect(
      askRefusal(new ClusterError('AlreadyExists', 'spec.clusterIP', { status: 409 })),
    ).toBeUndefined();
  });
});

describe('realignment', () => {
  const host = service({
    clusterIP: '10.96.200.7',
    clusterIPs: ['10.96.200.7'],
    ipFamilies: ['IPv4'],
  });

  it.each([
    { name: 'another address', tenant: service({ clusterIP: '10.96.5.5' }), yes: true },
    {
      name: 'the same address',
      tenant: service({ clusterIP: '10.96.200.7', clusterIPs: ['10.96.200.7'] }),
      yes: false,
    },
    {
      name: 'a copy with no address yet',
      tenant: service({ clusterIP: '10.96.5.5' }),
      hostSvc: service({}),
      yes: false,
    },
  ])('misaligned: $name', ({ tenant, hostSvc, yes }) => {
    expect(misaligned(hostSvc ?? host, tenant)).toBe(yes);
  });

  it('the recreated Service: same metadata and spec, the copy’s addresses, no server fields or status', () => {
    const tenant: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        namespace: 'shop',
        name: 'web',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2025-01-01T00:00:00Z',
        managedFields: [],
        labels: { app: 'web' },
        annotations: { team: 'shop' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o1' }],
      },
      spec: {
        clusterIP: '10.96.0.50',
        clusterIPs: ['10.96.0.50'],
        ports: [{ port: 80 }],
        selector: { app: 'web' },
        ipFamilyPolicy: 'SingleStack',
      },
      status: { loadBalancer: {} },
    };
    expect(realignedService(tenant, host)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        namespace: 'shop',
        name: 'web',
        labels: { app: 'web' },
        annotations: { team: 'shop' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o1' }],
      },
      spec: {
        clusterIP: '10.96.200.7',
        clusterIPs: ['10.96.200.7'],
        ipFamilies: ['IPv4'],
        ports: [{ port: 80 }],
        selector: { app: 'web' },
        ipFamilyPolicy: 'SingleStack',
      },
    });
  });

  it.each([
    {
      name: 'static band',
      ips: ['10.96.0.50'],
      ranges: RANGES,
      why: 'in the band of 10.96.0.0/16',
    },
    {
      name: 'taken',
      ips: ['10.96.5.5'],
      ranges: RANGES,
      why: 'the host holds that address for another Service',
    },
    {
      name: 'outside',
      ips: ['10.200.0.5'],
      ranges: RANGES,
      why: "outside the host's service range",
    },
    {
      name: 'unknown',
      ips: ['10.96.5.5'],
      ranges: { unreadable: 'forbidden' },
      why: 'the host allocated its own',
    },
  ])('why the copy got another address: $name', ({ ips, ranges, why }) => {
    expect(notGivenBecause(ips, ranges)).toContain(why);
  });
});
