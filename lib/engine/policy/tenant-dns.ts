/**
 * `spec.workloads.tenantDns`: the DNS server host Pods get, so tenant Service names resolve as in
 * the tenant. Either a literal `nameserver` (an IP address the operator runs something at), or the
 * `service` of the tenant DNS (`<namespace>/<name>` of a tenant Service, such as the stock CoreDNS
 * of `deploy/tenant-dns/`): host Pods then get the cluster IP of that Service's host copy, read by
 * the Pod kind's turn each pass (`kinds/pod/tenant-dns.ts`). Exactly one of the two.
 *
 * A named Service must be one the engine can sync: Services in `toHost`, not in a tenant system
 * namespace, not the tenant apiserver's own `default/kubernetes`. Otherwise its copy would never
 * exist and every Pod would wait for it, pass after pass; the parser says so instead.
 */
import { isDnsLabel, isRecord } from '../../common/index.js';
import { type KindRef, SERVICE } from '../../ports/index.js';
import { sameKind } from '../names/resource-key.js';
import { isIpAddress } from './kubelet-gateway.js';
import { TENANT_SYSTEM_NAMESPACES } from './system-namespaces.js';
import { isDnsSubdomain } from './workload-scheduling.js';

/** A tenant Service by namespace and name. */
export interface TenantServiceRef {
  namespace: string;
  name: string;
}

/**
 * The tenant's DNS for host Pods: a literal nameserver, or the tenant Service whose host copy's
 * cluster IP is the nameserver; and the tenant's cluster domain (default `cluster.local`).
 */
export type TenantDns =
  | { nameserver: string; clusterDomain: string }
  | { service: TenantServiceRef; clusterDomain: string };

const FIELD = 'spec.workloads.tenantDns';

/** A Service name is a DNS-1035 label: a letter first. */
function isServiceName(name: string): boolean {
  return isDnsLabel(name) && /^[a-z]/.test(name);
}

/** The tenant Service `<namespace>/<name>` names, or why it names none. */
function parseService(value: unknown): TenantServiceRef | string {
  const got = typeof value === 'string' ? `"${value}"` : typeof value;
  const shape = `${FIELD}.service must be <namespace>/<name> of a tenant Service, got ${got}`;
  if (typeof value !== 'string') return shape;
  const [namespace = '', name = '', ...rest] = value.split('/');
  if (rest.length > 0 || !isDnsLabel(namespace) || !isServiceName(name)) return shape;
  if (TENANT_SYSTEM_NAMESPACES.includes(namespace)) {
    return `${FIELD}.service names a Service in ${namespace}, a tenant system namespace the engine never syncs: run the tenant DNS in a namespace of its own (such as tenant-dns)`;
  }
  if (namespace === 'default' && name === 'kubernetes') {
    return `${FIELD}.service names default/kubernetes, the tenant apiserver's own Service, which is never synced and is no DNS server`;
  }
  return { namespace, name };
}

/** Parses `spec.workloads.tenantDns`; every problem goes to `problems`. */
export function parseTenantDns(value: unknown, problems: string[]): TenantDns | undefined {
  if (!isRecord(value)) {
    problems.push(`${FIELD} must be an object`);
    return undefined;
  }
  const { nameserver, service, clusterDomain = 'cluster.local' } = value;
  const domain = typeof clusterDomain === 'string' && isDnsSubdomain(clusterDomain);
  if (!domain) problems.push(`${FIELD}.clusterDomain must be a DNS domain`);
  if (nameserver !== undefined && service !== undefined) {
    problems.push(
      `${FIELD} takes either nameserver (an IP address) or service (the tenant DNS Service), not both`,
    );
    return undefined;
  }
  if (service !== undefined) {
    const ref = parseService(service);
    if (typeof ref === 'string') problems.push(ref);
    return domain && typeof ref !== 'string' ? { service: ref, clusterDomain } : undefined;
  }
  if (nameserver === undefined) {
    problems.push(
      `${FIELD} needs nameserver (an IP address) or service (<namespace>/<name> of the tenant DNS Service)`,
    );
    return undefined;
  }
  const ip = typeof nameserver === 'string' && isIpAddress(nameserver);
  if (!ip) problems.push(`${FIELD}.nameserver must be an IP address`);
  return ip && domain ? { nameserver, clusterDomain } : undefined;
}

/**
 * Why a `tenantDns.service` can never get a host copy under `rules` (the policy's `toHost`), or
 * `undefined`: Services are not synced at all.
 */
export function tenantDnsRuleProblem(
  dns: TenantDns | undefined,
  rules: readonly KindRef[],
): string | undefined {
  if (dns === undefined || !('service' in dns)) return undefined;
  if (rules.some((rule) => sameKind(rule, SERVICE))) return undefined;
  const { namespace, name } = dns.service;
  return `${FIELD}.service names the tenant Service ${namespace}/${name}, but Service (v1) is not in spec.toHost: its host copy, whose address host Pods get as their nameserver, would never exist`;
}

/** The `<namespace>/<name>` of a tenant Service, as the policy spells it. */
export function serviceRefText(ref: TenantServiceRef): string {
  return `${ref.namespace}/${ref.name}`;
}
