/**
 * The isolation part of `spec.workloads`: what a tenant may make the host do through a copy, beyond
 * what the engine refuses anyway. The engine writes with the host identity, so what a copy carries,
 * the tenant effectively has: every knob here widens the default, which reaches nothing outside
 * the tenant (docs/isolation.md). Parsed once, every problem at once.
 */
import { isRecord } from '../../common/index.js';
import { type Cidr, parseCidr } from './cidr.js';
import { type GatewayLimits, NO_GATEWAY_LIMITS, parseGatewayLimits } from './gateway-limits.js';
import {
  NO_SCHEDULING_LIMITS,
  parseSchedulingLimits,
  type SchedulingLimits,
} from './scheduling-limits.js';
import { parseVolumeLimits, type VolumeLimits } from './volume-limits.js';
import { isDnsSubdomain } from './workload-scheduling.js';

export type { Cidr } from './cidr.js';
export type { GatewayLimits, GatewayParent } from './gateway-limits.js';
export type { VolumeLimits } from './volume-limits.js';

/** The Pod Security Standards levels (`pod-security.kubernetes.io/enforce` values). */
export const PodSecurityLevel = {
  Privileged: 'privileged',
  Baseline: 'baseline',
  Restricted: 'restricted',
} as const;
export type PodSecurityLevel = (typeof PodSecurityLevel)[keyof typeof PodSecurityLevel];

/** Service fields that reach beyond the tenant, by what the policy allows. */
export interface ServiceLimits {
  /** Service types allowed on the host; default `ClusterIP` only (headless included). */
  types: readonly string[];
  /** `spec.loadBalancerClass` values allowed (a LoadBalancer Service without one is allowed). */
  loadBalancerClasses: readonly string[];
  /** Address blocks `spec.externalIPs` (and `loadBalancerIP`) may name; default none. */
  externalIPs: readonly Cidr[];
  /**
   * ExternalName targets allowed: a DNS name equal to an entry, or under one that starts with a
   * dot (`.example.com`); default none (an ExternalName Service is refused).
   */
  externalNames: readonly string[];
  /**
   * Annotation keys a host Service may carry beyond the tenant's plain ones: exact keys, or
   * prefixes ending in `/` or `*`. Keys of load-balancer controllers are refused otherwise.
   */
  annotations: readonly string[];
}

/** Endpoint addresses a selector-less Service may name beyond the tenant's own Pod IPs. */
export interface EndpointLimits {
  /** Address blocks allowed; default none. */
  cidrs: readonly Cidr[];
}

/** What a tenant NetworkPolicy may open on the host. */
export interface NetworkPolicyLimits {
  /** Address blocks an `ipBlock` peer may lie inside; default none (an ipBlock is refused). */
  cidrs: readonly Cidr[];
  /**
   * Host namespaces a peer may name, by the name the tenant uses for them (a
   * `kubernetes.io/metadata.name` value): e.g. `ingress-nginx` -> the host's `ingress-nginx`.
   */
  hostNamespaces: Readonly<Record<string, string>>;
}

/** What a tenant Ingress may claim on the host. */
export interface IngressLimits {
  /** Host suffixes (`.apps.example.com`) or exact hosts allowed; default none (a host is refused). */
  hostSuffixes: readonly string[];
  /**
   * `ingressClassName` values allowed; default none: only an Ingress without a class (the host's
   * default class serves it). Once classes are listed, an Ingress must name one of them.
   */
  classes: readonly string[];
  /** Annotation keys allowed: exact keys, or prefixes ending in `/` or `*`; default none. */
  annotations: readonly string[];
}

/** The isolation knobs of `spec.workloads`, every default the narrowest. */
export interface IsolationPolicy {
  /**
   * The Pod Security Standards level every host Pod must meet; default `baseline`, `privileged`
   * when the policy allows host access (which no other level does).
   */
  podSecurity: PodSecurityLevel;
  /** The runtime class every host Pod runs with (a sandbox such as gVisor); absent: the tenant's. */
  runtimeClassName?: string;
  /** Whether a tenant Pod may name its own `schedulerName`; default false (the host's default). */
  allowSchedulerName: boolean;
  /** Whether a toleration of every taint (`operator: Exists` without a key) is kept; default false. */
  allowTolerateAll: boolean;
  /** Tolerations and node labels a tenant Pod may ask for (`scheduling-limits.ts`). */
  scheduling: SchedulingLimits;
  services: ServiceLimits;
  endpoints: EndpointLimits;
  networkPolicies: NetworkPolicyLimits;
  ingresses: IngressLimits;
  /** What a tenant's Gateway API routes may claim (`gateway-limits.ts`). */
  gateways: GatewayLimits;
  volumes: VolumeLimits;
}

/** The narrowest isolation: what a policy that says nothing gets. */
export const DEFAULT_ISOLATION: IsolationPolicy = Object.freeze({
  podSecurity: PodSecurityLevel.Baseline,
  allowSchedulerName: false,
  allowTolerateAll: false,
  scheduling: NO_SCHEDULING_LIMITS,
  services: Object.freeze({
    types: ['ClusterIP'],
    loadBalancerClasses: [],
    externalIPs: [],
    externalNames: [],
    annotations: [],
  }),
  endpoints: Object.freeze({ cidrs: [] }),
  networkPolicies: Object.freeze({ cidrs: [], hostNamespaces: {} }),
  ingresses: Object.freeze({ hostSuffixes: [], classes: [], annotations: [] }),
  gateways: NO_GATEWAY_LIMITS,
  volumes: Object.freeze({ csiDrivers: [] }),
});

/** The default of a policy that allows host access: the privileged level, the rest as narrow. */
export const HOST_ACCESS_ISOLATION: IsolationPolicy = Object.freeze({
  ...DEFAULT_ISOLATION,
  podSecurity: PodSecurityLevel.Privileged,
});

/** The keys of `spec.workloads` that are isolation knobs. */
export const ISOLATION_KEYS: readonly string[] = [
  'podSecurity',
  'runtimeClassName',
  'allowSchedulerName',
  'allowTolerateAll',
  'scheduling',
  'services',
  'endpoints',
  'networkPolicies',
  'ingresses',
  'gateways',
  'volumes',
];

const SERVICE_TYPES: readonly string[] = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/** A list of strings at `path`, each checked by `valid`; `undefined` (and a problem) otherwise. */
function strings(
  value: unknown,
  path: string,
  problems: string[],
  valid: (text: string) => boolean = (text) => text !== '',
  what = 'non-empty strings',
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && valid(v))) {
    problems.push(`${path} must be a list of ${what}`);
    return undefined;
  }
  return [...value];
}

/** A list of CIDRs at `path`; each bad entry is a problem naming it. */
function cidrs(value: unknown, path: string, problems: string[]): Cidr[] | undefined {
  const texts = strings(value, path, problems, () => true, 'CIDR blocks');
  if (!texts) return undefined;
  const parsed: Cidr[] = [];
  for (const text of texts) {
    const cidr = parseCidr(text);
    if (cidr) parsed.push(cidr);
    else problems.push(`${path} has "${text}", which is not a CIDR block such as 10.1.0.0/16`);
  }
  return parsed;
}

function section(value: unknown, path: string, problems: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (isRecord(value)) return value;
  problems.push(`${path} must be an object`);
  return {};
}

function flag(value: unknown, path: string, problems: string[]): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  problems.push(`${path} must be true or false`);
  return undefined;
}

/**
 * Parses the isolation knobs of `spec.workloads` (`workloads`, already an object); every problem
 * goes to `problems`. `allowHostAccess` is the one way to the `privileged` level, and its default.
 */
export function parseIsolation(
  workloads: Record<string, unknown>,
  allowHostAccess: boolean,
  problems: string[],
): IsolationPolicy {
  const at = 'spec.workloads';
  const d = DEFAULT_ISOLATION;
  const { podSecurity, runtimeClassName, allowSchedulerName, allowTolerateAll } = workloads;
  const policy: IsolationPolicy = {
    ...d,
    allowSchedulerName: flag(allowSchedulerName, `${at}.allowSchedulerName`, problems) ?? false,
    allowTolerateAll: flag(allowTolerateAll, `${at}.allowTolerateAll`, problems) ?? false,
    scheduling: parseSchedulingLimits(workloads.scheduling, problems),
  };
  // Host access allowed is the privileged level; otherwise baseline, unless the policy says.
  if (allowHostAccess) policy.podSecurity = PodSecurityLevel.Privileged;
  if (podSecurity !== undefined) {
    const levels: readonly unknown[] = Object.values(PodSecurityLevel);
    if (!levels.includes(podSecurity)) {
      problems.push(`${at}.podSecurity must be baseline, restricted or privileged`);
    } else if (podSecurity === PodSecurityLevel.Privileged && !allowHostAccess) {
      problems.push(`${at}.podSecurity privileged needs ${at}.allowHostAccess: true`);
    } else policy.podSecurity = podSecurity as PodSecurityLevel;
  }
  if (runtimeClassName !== undefined) {
    if (typeof runtimeClassName === 'string' && isDnsSubdomain(runtimeClassName)) {
      policy.runtimeClassName = runtimeClassName;
    } else problems.push(`${at}.runtimeClassName must be a runtime class name`);
  }
  const svc = section(workloads.services, `${at}.services`, problems);
  const types = strings(svc.types, `${at}.services.types`, problems, (t) =>
    SERVICE_TYPES.includes(t),
  );
  policy.services = {
    types: types ?? d.services.types,
    loadBalancerClasses:
      strings(svc.loadBalancerClasses, `${at}.services.loadBalancerClasses`, problems) ?? [],
    externalIPs: cidrs(svc.externalIPs, `${at}.services.externalIPs`, problems) ?? [],
    externalNames: strings(svc.externalNames, `${at}.services.externalNames`, problems) ?? [],
    annotations: strings(svc.annotations, `${at}.services.annotations`, problems) ?? [],
  };
  const eps = section(workloads.endpoints, `${at}.endpoints`, problems);
  policy.endpoints = { cidrs: cidrs(eps.cidrs, `${at}.endpoints.cidrs`, problems) ?? [] };
  const np = section(workloads.networkPolicies, `${at}.networkPolicies`, problems);
  const hostNamespaces = section(
    np.hostNamespaces,
    `${at}.networkPolicies.hostNamespaces`,
    problems,
  );
  const mapped: Record<string, string> = {};
  for (const [tenantName, hostNamespace] of Object.entries(hostNamespaces)) {
    if (typeof hostNamespace === 'string' && isDnsSubdomain(hostNamespace)) {
      mapped[tenantName] = hostNamespace;
    } else {
      problems.push(`${at}.networkPolicies.hostNamespaces.${tenantName} must be a namespace name`);
    }
  }
  policy.networkPolicies = {
    cidrs: cidrs(np.cidrs, `${at}.networkPolicies.cidrs`, problems) ?? [],
    hostNamespaces: mapped,
  };
  const ing = section(workloads.ingresses, `${at}.ingresses`, problems);
  policy.ingresses = {
    hostSuffixes: strings(ing.hostSuffixes, `${at}.ingresses.hostSuffixes`, problems) ?? [],
    classes: strings(ing.classes, `${at}.ingresses.classes`, problems) ?? [],
    annotations: strings(ing.annotations, `${at}.ingresses.annotations`, problems) ?? [],
  };
  const gw = section(workloads.gateways, `${at}.gateways`, problems);
  policy.gateways = parseGatewayLimits(gw, problems);
  policy.volumes = parseVolumeLimits(
    section(workloads.volumes, `${at}.volumes`, problems),
    problems,
  );
  return policy;
}

/** Whether annotation `key` is allowed by `allowed` (exact keys; prefixes ending in `/` or `*`). */
export function allowedKey(key: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) =>
    entry.endsWith('*') || entry.endsWith('/')
      ? key.startsWith(entry.endsWith('*') ? entry.slice(0, -1) : entry)
      : key === entry,
  );
}

/** Whether DNS name `name` is allowed by `allowed` (exact names; suffixes starting with `.`). */
export function allowedName(name: string, allowed: readonly string[]): boolean {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith('.') ? lower.endsWith(e) && lower.length > e.length : lower === e;
  });
}
