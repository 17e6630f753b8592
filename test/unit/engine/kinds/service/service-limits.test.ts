/**
 * What a tenant Service may make the host do (`spec.workloads.services`): types, load-balancer
 * classes, external and load-balancer IPs, ExternalName targets and load-balancer annotations,
 * each refused with a Skip that names it unless the policy allows it.
 */
import { describe, expect, it } from '@jest/globals';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import {
  IN_SERVICE_ANNOTATIONS,
  isLoadBalancerAnnotation,
  LOAD_BALANCER_ANNOTATION_PREFIXES,
} from '../../../../../lib/engine/kinds/service/service-limits.js';
import { compileKeyExclusions } from '../../../../../lib/engine/policy/key-exclusions.js';
import { parseWorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

const port = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' };
const service = (spec: Record<string, unknown>, annotations?: Record<string, string>) =>
  tenantObject('v1', 'Service', { spec }, annotations ? { annotations } : {});

/** The translation of `source` under `spec.workloads.services: services`. */
function under(source: KubeObject, services?: Record<string, unknown>, exclude?: unknown) {
  const problems: string[] = [];
  const workloads =
    services === undefined ? undefined : parseWorkloadPolicy({ services }, problems);
  expect(problems).toEqual([]);
  return translate(source, {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    ...(workloads ? { workloads } : {}),
    ...(exclude ? { excludeKeys: compileKeyExclusions(exclude) } : {}),
  });
}

const refusedText = (result: ReturnType<typeof under>) =>
  'refused' in result ? result.refused : undefined;

describe('Service limits: refused by default, each naming the field and the knob', () => {
  const cases: Array<{ name: string; source: KubeObject; says: RegExp[] }> = [
    {
      name: 'a NodePort Service',
      source: service({ type: 'NodePort', selector: { app: 'web' }, ports: [port] }),
      says: [/spec\.type NodePort is not allowed/, /spec\.workloads\.services\.types/],
    },
    {
      name: 'a LoadBalancer Service',
      source: service({ type: 'LoadBalancer', ports: [port] }),
      says: [/spec\.type LoadBalancer/, /services\.types, now ClusterIP\)/],
    },
    {
      name: 'an ExternalName Service (the type first)',
      source: service({ type: 'ExternalName', externalName: 'db.example.com' }),
      says: [/spec\.type ExternalName/, /spec\.externalName "db\.example\.com" is not allowed/],
    },
    {
      name: 'external IPs (CVE-2020-8554), each address named',
      source: service({ externalIPs: ['203.0.113.9', '10.0.0.1'], ports: [port] }),
      says: [/spec\.externalIPs "203\.0\.113\.9" is outside/, /spec\.externalIPs "10\.0\.0\.1"/],
    },
    {
      name: 'a load-balancer IP',
      source: service({ loadBalancerIP: '198.51.100.4', ports: [port] }),
      says: [/spec\.loadBalancerIP "198\.51\.100\.4".*services\.externalIPs/],
    },
    {
      name: 'a load-balancer class',
      source: service({ loadBalancerClass: 'example.com/lb', ports: [port] }),
      says: [/spec\.loadBalancerClass "example\.com\/lb".*services\.loadBalancerClasses/],
    },
    {
      name: 'a cloud load-balancer annotation',
      source: service(
        { ports: [port] },
        {
          'service.beta.kubernetes.io/aws-load-balancer-internal': 'false',
        },
      ),
      says: [
        /annotation service\.beta\.kubernetes\.io\/aws-load-balancer-internal is read by a load-balancer/,
        /exclude\.annotationKeys/,
      ],
    },
    {
      name: 'an ExternalDNS annotation (a record in a shared zone)',
      source: service(
        { ports: [port] },
        {
          'external-dns.alpha.kubernetes.io/hostname': 'www.victim.example',
        },
      ),
      says: [/annotation external-dns\.alpha\.kubernetes\.io\/hostname/],
    },
    {
      name: 'a MetalLB shared IP',
      source: service({ ports: [port] }, { 'metallb.universe.tf/allow-shared-ip': 'victim' }),
      says: [/metallb\.universe\.tf\/allow-shared-ip/],
    },
  ];
  it.each(cases)('$name', ({ source, says }) => {
    const text = refusedText(under(source));
    expect(text).toMatch(/^the Service is not copied: /);
    for (const pattern of says) expect(text).toMatch(pattern);
  });
});

describe('Service limits: what the policy allows is copied as written', () => {
  const cases: Array<{ name: string; source: KubeObject; services?: Record<string, unknown> }> = [
    { name: 'a ClusterIP Service', source: service({ selector: { app: 'web' }, ports: [port] }) },
    {
      name: 'a headless Service',
      source: service({ clusterIP: 'None', selector: { app: 'db' }, ports: [port] }),
    },
    {
      name: 'an explicit ClusterIP type',
      source: service({ type: 'ClusterIP', ports: [port] }),
    },
    {
      name: 'plain and topology annotations',
      source: service(
        { ports: [port] },
        {
          'prometheus.io/scrape': 'true',
          'service.kubernetes.io/topology-mode': 'Auto',
        },
      ),
    },
    {
      name: 'a NodePort when the policy allows the type',
      source: service({ type: 'NodePort', ports: [port] }),
      services: { types: ['ClusterIP', 'NodePort'] },
    },
    {
      name: 'a LoadBalancer of an allowed class with an allowed address',
      source: service({
        type: 'LoadBalancer',
        loadBalancerClass: 'example.com/lb',
        loadBalancerIP: '198.51.100.4',
        ports: [port],
      }),
      services: {
        types: ['LoadBalancer'],
        loadBalancerClasses: ['example.com/lb'],
        externalIPs: ['198.51.100.0/24'],
      },
    },
    {
      name: 'a LoadBalancer without a class',
      source: service({ type: 'LoadBalancer', ports: [port] }),
      services: { types: ['LoadBalancer'] },
    },
    {
      name: 'external IPs inside the allowed blocks, IPv6 included',
      source: service({ externalIPs: ['203.0.113.9', '2001:db8::9'], ports: [port] }),
      services: { externalIPs: ['203.0.113.0/24', '2001:db8::/32'] },
    },
    {
      name: 'an ExternalName under an allowed suffix',
      source: service({ type: 'ExternalName', externalName: 'db.prod.example.com' }),
      services: { types: ['ExternalName'], externalNames: ['.example.com'] },
    },
    {
      name: 'a load-balancer annotation the policy allows by prefix',
      source: service(
        { ports: [port] },
        {
          'service.beta.kubernetes.io/aws-load-balancer-internal': 'true',
        },
      ),
      services: { annotations: ['service.beta.kubernetes.io/aws-load-balancer-*'] },
    },
  ];
  it.each(cases)('$name', ({ source, services }) => {
    const result = under(source, services);
    expect(refusedText(result)).toBeUndefined();
    const host = 'host' in result ? result.host : undefined;
    const { type, externalIPs, loadBalancerIP, loadBalancerClass, externalName } =
      source.spec as Record<string, unknown>;
    expect(host?.spec).toMatchObject({
      ...(type ? { type } : {}),
      ...(externalIPs ? { externalIPs } : {}),
      ...(loadBalancerIP ? { loadBalancerIP } : {}),
      ...(loadBalancerClass ? { loadBalancerClass } : {}),
      ...(externalName ? { externalName } : {}),
    });
    for (const [key, value] of Object.entries(source.metadata.annotations ?? {})) {
      expect(host?.metadata.annotations?.[key]).toBe(value);
    }
  });

  it('a load-balancer annotation the rule keeps off the host does not refuse the Service', () => {
    const source = service({ ports: [port] }, { 'cloud.google.com/neg': '{"ingress":true}' });
    expect(refusedText(under(source))).toMatch(/cloud\.google\.com\/neg/);
    const result = under(source, undefined, { annotationKeys: ['cloud.google.com/*'] });
    expect(refusedText(result)).toBeUndefined();
    const host = 'host' in result ? result.host : undefined;
    expect(host?.metadata.annotations).not.toHaveProperty(['cloud.google.com/neg']);
  });

  it('every problem is named at once', () => {
    const text = refusedText(
      under(
        service(
          { type: 'NodePort', externalIPs: ['192.0.2.1'], ports: [port] },
          { 'kube-vip.io/loadbalancerIPs': '192.0.2.2' },
        ),
      ),
    );
    expect(text?.split('; ')).toHaveLength(3);
  });
});

describe('the load-balancer annotation prefixes', () => {
  it.each([
    ['service.beta.kubernetes.io/azure-load-balancer-internal', true],
    ['networking.gke.io/load-balancer-type', true],
    ['alb.ingress.kubernetes.io/group.name', true],
    ['lbipam.cilium.io/ips', true],
    ['service.kubernetes.io/topology-mode', false],
    ['prometheus.io/scrape', false],
    ['example.com/service.beta.kubernetes.io/x', false],
  ])('%s: %s', (key, expected) => {
    expect(isLoadBalancerAnnotation(key)).toBe(expected);
  });

  it('each prefix ends with a slash, and the in-Service keys lie under one', () => {
    expect(LOAD_BALANCER_ANNOTATION_PREFIXES.every((p) => p.endsWith('/'))).toBe(true);
    for (const key of IN_SERVICE_ANNOTATIONS) {
      expect(LOAD_BALANCER_ANNOTATION_PREFIXES.some((p) => key.startsWith(p))).toBe(true);
    }
  });
});
