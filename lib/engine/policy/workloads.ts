/**
 * The workload part of a SyncPolicy (`spec.workloads`): what a tenant's Pods may have on the host
 * beyond the hardened default.
 */
import { isRecord } from '../../common/index.js';
import {
  DEFAULT_ISOLATION,
  HOST_ACCESS_ISOLATION,
  ISOLATION_KEYS,
  type IsolationPolicy,
  parseIsolation,
} from './isolation.js';
import { type KubeletGateway, withKubeletGateway } from './kubelet-gateway.js';
import { NO_POD_LIMITS, type PodLimits, parsePodLimits } from './pod-limits.js';
import { parseTenantDns, type TenantDns } from './tenant-dns.js';
import {
  isDnsSubdomain,
  parseClassMap,
  parseNodeSelector,
  parseTolerations,
  type Toleration,
} from './workload-scheduling.js';

export type { PodLimits } from './pod-limits.js';
export type { TenantDns, TenantServiceRef } from './tenant-dns.js';
export type { Toleration } from './workload-scheduling.js';

/** What tenant Pods may have on the host. Absent fields mean the hardened default. */
export interface WorkloadPolicy {
  /**
   * Host network, PID or IPC namespaces, host ports, `hostPath` volumes and privileged
   * containers. Default false: a Pod asking for any of them is a Skip that says so.
   */
  allowHostAccess?: boolean;
  /** The host service account host Pods run as; default: the host namespace's `default`. */
  hostServiceAccountName?: string;
  /**
   * Where tenant Pods reach the tenant apiserver (`host:port`, or an `https://` URL): their
   * `KUBERNETES_SERVICE_HOST`/`PORT`. Default: the server of the tenant kubeconfig.
   */
  tenantApiEndpoint?: string;
  /**
   * The tenant's DNS for host Pods (`tenant-dns.ts`): a nameserver, or the tenant DNS Service whose
   * host copy's cluster IP host Pods get; absent: host Pods use the host's DNS.
   */
  tenantDns?: TenantDns;
  /**
   * The host priority class of every host Pod that {@link priorityClasses} does not map. Absent
   * (and unmapped): the host Pod has no priority class, priority or preemption policy (the
   * tenant's would spend host priority the tenant was never given).
   */
  priorityClassName?: string;
  /** Tenant priority class -> the host priority class its Pods get on the host. */
  priorityClasses?: Readonly<Record<string, string>>;
  /**
   * Which host Events about copies come back to the tenant (`events/`): `Warning` (the default:
   * FailedScheduling, BackOff, FailedMount, what explains a stuck Pod), `All` (Normal ones too:
   * every Pod's Scheduled, Pulled, Started, a copy per Event), or `None`.
   */
  eventsBack?: EventsBack;
  /**
   * Node labels every host Pod must run on: merged into its `nodeSelector`, the policy's value
   * winning over the tenant's for the same key.
   */
  nodeSelector?: Readonly<Record<string, string>>;
  /** Tolerations every host Pod gets beside the tenant's (one the tenant has is not repeated). */
  tolerations?: readonly Toleration[];
  /**
   * Tenant storage class -> the host storage class its claims get (those the tenant's controller
   * makes for ephemeral volumes included); a class not in the map is kept as it is.
   */
  storageClasses?: Readonly<Record<string, string>>;
  /** What a copy may reach beyond its tenant (`isolation.ts`); absent: the narrowest default. */
  isolation?: IsolationPolicy;
  /** Where the tenant's Nodes say their kubelet is (`kubelet-gateway.ts`); absent: nowhere. */
  kubeletGateway?: KubeletGateway;
  /** Unknown Pod fields, trust bundles and signers a Pod may have (`pod-limits.ts`). */
  pods?: PodLimits;
}

/** The Pod limits of `policy`: its own, or none beyond the engine's tables. */
export function podLimitsOf(policy: WorkloadPolicy | undefined): PodLimits {
  return policy?.pods ?? NO_POD_LIMITS;
}

/** The isolation of `policy`: its own, or the narrowest default when it names none. */
export function isolationOf(policy: WorkloadPolicy | undefined): IsolationPolicy {
  if (policy?.isolation) return policy.isolation;
  return policy?.allowHostAccess ? HOST_ACCESS_ISOLATION : DEFAULT_ISOLATION;
}

/** The values of {@link WorkloadPolicy.eventsBack}. */
export const EventsBack = { Warning: 'Warning', All: 'All', None: 'None' } as const;
export type EventsBack = (typeof EventsBack)[keyof typeof EventsBack];

/** Where a Pod reaches an apiserver: `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`. */
export interface ApiEndpoint {
  host: string;
  port: string;
}

/**
 * The endpoint of `host:port`, `[v6]:port`, `host` (port 443) or an `https://` URL; `undefined`
 * when it is none of these.
 */
export function parseApiEndpoint(text: string): ApiEndpoint | undefined {
  // Every Pod of a pass asks with the same text: the URL is parsed once.
  if (lastEndpoint?.text === text) return lastEndpoint.endpoint;
  const parsed = parseEndpointText(text);
  // Shared by every caller since: frozen, so none can change it for the others.
  const endpoint = parsed && Object.freeze(parsed);
  lastEndpoint = { text, endpoint };
  return endpoint;
}

let lastEndpoint: { text: string; endpoint: ApiEndpoint | undefined } | undefined;

function parseEndpointText(text: string): ApiEndpoint | undefined {
  const url = /^[a-z]+:\/\//i.test(text) ? text : `https://${text}`;
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' || parsed.hostname === '') return undefined;
  // A URL keeps IPv6 brackets; the variable takes the bare address, as a kubelet writes it.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: parsed.port === '' ? '443' : parsed.port };
}

/** Parses `spec.workloads`; every problem goes to `problems`. */
export function parseWorkloadPolicy(value: unknown, problems: string[]): WorkloadPolicy {
  const policy: WorkloadPolicy = {};
  if (!isRecord(value)) {
    problems.push('spec.workloads must be an object');
    return policy;
  }
  const { allowHostAccess, hostServiceAccountName, tenantApiEndpoint, tenantDns } = value;
  const { priorityClassName, priorityClasses, eventsBack } = value;
  const { nodeSelector, tolerations, storageClasses } = value;
  if (allowHostAccess !== undefined) {
    if (typeof allowHostAccess === 'boolean') policy.allowHostAccess = allowHostAccess;
    else problems.push('spec.workloads.allowHostAccess must be true or false');
  }
  if (hostServiceAccountName !== undefined) {
    if (typeof hostServiceAccountName === 'string' && isDnsSubdomain(hostServiceAccountName)) {
      policy.hostServiceAccountName = hostServiceAccountName;
    } else problems.push('spec.workloads.hostServiceAccountName must be a service account name');
  }
  if (tenantApiEndpoint !== undefined) {
    if (typeof tenantApiEndpoint === 'string' && parseApiEndpoint(tenantApiEndpoint)) {
      policy.tenantApiEndpoint = tenantApiEndpoint;
    } else problems.push('spec.workloads.tenantApiEndpoint must be host:port or an https:// URL');
  }
  if (tenantDns !== undefined) {
    const dns = parseTenantDns(tenantDns, problems);
    if (dns) policy.tenantDns = dns;
  }
  if (priorityClassName !== undefined) {
    if (typeof priorityClassName === 'string' && isDnsSubdomain(priorityClassName)) {
      policy.priorityClassName = priorityClassName;
    } else problems.push('spec.workloads.priorityClassName must be a priority class name');
  }
  if (priorityClasses !== undefined) {
    const classes = parseClassMap(priorityClasses, 'priorityClasses', 'priority class', problems);
    if (classes) policy.priorityClasses = classes;
  }
  if (nodeSelector !== undefined) {
    const selector = parseNodeSelector(nodeSelector, problems);
    if (selector) policy.nodeSelector = selector;
  }
  if (tolerations !== undefined) {
    const parsed = parseTolerations(tolerations, problems);
    if (parsed) policy.tolerations = parsed;
  }
  if (storageClasses !== undefined) {
    const classes = parseClassMap(storageClasses, 'storageClasses', 'storage class', problems);
    if (classes) policy.storageClasses = classes;
  }
  if (eventsBack !== undefined) {
    const known: readonly unknown[] = Object.values(EventsBack);
    if (known.includes(eventsBack)) policy.eventsBack = eventsBack as EventsBack;
    else problems.push('spec.workloads.eventsBack must be Warning, All or None');
  }
  withKubeletGateway(policy, value, problems);
  if (value.pods !== undefined) policy.pods = parsePodLimits(value.pods, problems);
  // Only a policy that names an isolation knob holds one; the others get the default's object.
  if (ISOLATION_KEYS.some((key) => value[key] !== undefined)) {
    policy.isolation = parseIsolation(value, policy.allowHostAccess === true, problems);
  }
  return policy;
}
