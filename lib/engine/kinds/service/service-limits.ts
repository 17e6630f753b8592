/**
 * What a tenant Service may make the host do beyond its tenant, by `spec.workloads.services`
 * (`../../policy/isolation.ts`). The engine writes the host Service with its own identity, so a
 * field that reaches beyond the namespace reaches there for the tenant:
 *
 * - `spec.type`: a NodePort opens a port on every host node, a LoadBalancer asks the host's cloud
 *   for an address; only the policy's `types` (default `ClusterIP`, headless included) are copied.
 * - `spec.externalIPs` (CVE-2020-8554) and `spec.loadBalancerIP`: kube-proxy on every host node
 *   captures traffic to an external IP, other tenants' included; a load-balancer controller takes
 *   the address asked for. Each must lie inside the policy's `externalIPs` blocks.
 * - `spec.loadBalancerClass`: which controller serves the Service; one of `loadBalancerClasses`.
 * - `spec.externalName`: `external-name.ts`.
 * - Annotations of load-balancer, cloud and DNS controllers ({@link LOAD_BALANCER_ANNOTATION_PREFIXES}):
 *   they pick addresses, subnets, shared IPs and public DNS records; each key must be allowed by
 *   `annotations` (or kept off the host by the rule's `exclude.annotationKeys`).
 *
 * A Service asking for any of it is refused whole (a Skip naming each field), never copied
 * without the field: a Service the host serves otherwise than the tenant wrote it would be a
 * silent change.
 */
import { isRecord } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import { addressWithin } from '../../policy/cidr.js';
import { allowedKey, type ServiceLimits } from '../../policy/isolation.js';
import { isolationOf } from '../../policy/workloads.js';
import type { TranslateTarget } from '../frame/translator.js';
import { externalNameProblem } from './external-name.js';
import type { ServiceFacts } from './facts.js';

/** Where the Service knobs live, for the Skips. */
const KNOBS = 'spec.workloads.services';

/** The type of a Service that names none. */
const DEFAULT_TYPE = 'ClusterIP';

/**
 * Annotation key prefixes that load-balancer, cloud and DNS controllers read on a Service: the
 * in-tree and external cloud providers (`service.beta.kubernetes.io/` covers AWS, Azure, OCI,
 * DigitalOcean, Linode and most others; `service.kubernetes.io/` IBM and kube-proxy's own), GKE,
 * the AWS Load Balancer Controller, ExternalDNS (public DNS records in a shared zone), MetalLB,
 * kube-vip, Cilium LB IPAM, PureLB, OpenStack, Hetzner, DigitalOcean and Tailscale. A key under
 * one of them reaches the host Service only when `spec.workloads.services.annotations` allows it.
 * A controller not listed here is not refused: add its prefix when the host runs one.
 */
export const LOAD_BALANCER_ANNOTATION_PREFIXES: readonly string[] = Object.freeze([
  'service.beta.kubernetes.io/',
  'service.kubernetes.io/',
  'networking.gke.io/',
  'cloud.google.com/',
  'alb.ingress.kubernetes.io/',
  'external-dns.alpha.kubernetes.io/',
  'metallb.universe.tf/',
  'metallb.io/',
  'kube-vip.io/',
  'io.cilium/',
  'lbipam.cilium.io/',
  'service.cilium.io/',
  'purelb.io/',
  'loadbalancer.openstack.org/',
  'load-balancer.hetzner.cloud/',
  'kubernetes.digitalocean.com/',
  'oci.oraclecloud.com/',
  'tailscale.com/',
]);

/**
 * Keys under {@link LOAD_BALANCER_ANNOTATION_PREFIXES} that steer only the Service's own traffic
 * among its own endpoints (topology-aware routing, read by the EndpointSlice controller and
 * kube-proxy): copied without an allowance.
 */
export const IN_SERVICE_ANNOTATIONS: readonly string[] = Object.freeze([
  'service.kubernetes.io/topology-mode',
  'service.kubernetes.io/topology-aware-hints',
]);

/** Whether annotation `key` is one a load-balancer, cloud or DNS controller reads. */
export function isLoadBalancerAnnotation(key: string): boolean {
  if (IN_SERVICE_ANNOTATIONS.includes(key)) return false;
  return LOAD_BALANCER_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix));
}

function typeProblem(spec: Record<string, unknown>, limits: ServiceLimits): string | undefined {
  const type = typeof spec.type === 'string' && spec.type !== '' ? spec.type : DEFAULT_TYPE;
  if (limits.types.includes(type)) return undefined;
  return `spec.type ${type} is not allowed on the host (add it to ${KNOBS}.types, now ${limits.types.join(', ') || 'empty'})`;
}

function classProblem(spec: Record<string, unknown>, limits: ServiceLimits): string | undefined {
  const value = spec.loadBalancerClass;
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string' && limits.loadBalancerClasses.includes(value)) return undefined;
  return `spec.loadBalancerClass ${JSON.stringify(value)} is not allowed (add it to ${KNOBS}.loadBalancerClasses)`;
}

/** Every address the Service asks the host nodes or a load balancer to take. */
function addressProblems(spec: Record<string, unknown>, limits: ServiceLimits): string[] {
  const asked: Array<{ field: string; address: unknown }> = [];
  if (Array.isArray(spec.externalIPs)) {
    for (const address of spec.externalIPs) asked.push({ field: 'spec.externalIPs', address });
  }
  if (spec.loadBalancerIP !== undefined && spec.loadBalancerIP !== '') {
    asked.push({ field: 'spec.loadBalancerIP', address: spec.loadBalancerIP });
  }
  return asked
    .filter(
      ({ address }) => typeof address !== 'string' || !addressWithin(address, limits.externalIPs),
    )
    .map(
      ({ field, address }) =>
        `${field} ${JSON.stringify(address)} is outside the blocks the policy allows (${KNOBS}.externalIPs)`,
    );
}

function annotationProblems(
  source: KubeObject,
  target: TranslateTarget<ServiceFacts>,
  limits: ServiceLimits,
) {
  const excluded = target.excludeKeys?.annotations;
  return Object.keys(source.metadata.annotations ?? {})
    .filter((key) => isLoadBalancerAnnotation(key) && !excluded?.(key))
    .filter((key) => !allowedKey(key, limits.annotations))
    .map(
      (key) =>
        `annotation ${key} is read by a load-balancer or cloud controller (allow it in ${KNOBS}.annotations, or keep it off the host with the rule's exclude.annotationKeys)`,
    );
}

/**
 * Why the Service must not reach the host: every field beyond what `spec.workloads.services`
 * allows, joined; `undefined` when it asks for nothing beyond its tenant.
 */
export function serviceRefusal(
  source: KubeObject,
  target: TranslateTarget<ServiceFacts>,
): string | undefined {
  const limits = isolationOf(target.workloads).services;
  const spec = isRecord(source.spec) ? source.spec : {};
  const problems = [
    typeProblem(spec, limits),
    classProblem(spec, limits),
    ...addressProblems(spec, limits),
    externalNameProblem(spec, limits),
    ...annotationProblems(source, target, limits),
  ].filter((problem): problem is string => problem !== undefined);
  return problems.length === 0 ? undefined : `the Service is not copied: ${problems.join('; ')}`;
}
