/**
 * In-cluster API access of a host Pod goes to the tenant: its service-account token sources are
 * served from a per-Pod host Secret that a pass fills with tokens minted by the tenant apiserver
 * (`kinds/pod/tokens.ts`), never by the host; `KUBERNETES_SERVICE_HOST`/`PORT` name the tenant
 * apiserver; and with a tenant DNS in the policy, names resolve in the tenant's virtual namespace.
 *
 * Which Pods mount a token: the ones whose spec says so. A tenant apiserver's ServiceAccount
 * admission injects the `kube-api-access-*` volume (and leaves it out when the Pod or its service
 * account opts out); a tenant Pod without it that does not opt out itself
 * (`automountServiceAccountToken` not false) gets the same volume here, since a tenant apiserver
 * may run without that admission. The service account itself is never read: its opt-out counts
 * only through the tenant's admission.
 */
import { isRecord } from '../../../../common/index.js';
import type { ApiEndpoint, TenantDns } from '../../../policy/workloads.js';
import { CONTAINER_LISTS } from './references.js';

type Json = Record<string, unknown>;

/** Where a Pod's in-cluster clients read the token, CA and namespace. */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The volume {@link ensureTokenVolume} adds (the admission's would have a random suffix). */
export const TOKEN_VOLUME = 'kube-api-access-tenant';

/** The tenant CA ConfigMap the tenant's admission projects beside the token. */
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
/** The key of the tenant CA in that ConfigMap and in the token Secret. */
export const CA_KEY = 'ca.crt';
/** The key of the virtual namespace in the token Secret. */
export const NAMESPACE_KEY = 'namespace';
/** The lifetime asked when a source asks none, and the longest asked: about an hour. */
export const TOKEN_SECONDS = 3600;
/** The shortest lifetime a TokenRequest accepts. */
const MIN_TOKEN_SECONDS = 600;

/** One token a host Pod mounts: the Secret key it is kept under and what to ask for. */
export interface TokenRequestEntry {
  key: string;
  audiences: string[];
  expirationSeconds: number;
  /**
   * Not bound to the tenant Pod: the tenant Pod names no service account (its apiserver runs
   * without ServiceAccount admission, which would have set it), and the apiserver refuses to bind
   * a token to a Pod running with another service account name (`""`). It still expires in time.
   */
  unbound?: true;
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function lifetime(asked: unknown): number {
  if (typeof asked !== 'number' || !Number.isFinite(asked)) return TOKEN_SECONDS;
  return Math.min(TOKEN_SECONDS, Math.max(MIN_TOKEN_SECONDS, Math.floor(asked)));
}

/**
 * Adds the volume a tenant's ServiceAccount admission would have injected, and its mount in every
 * container, to a Pod that does not opt out and has no token source or mount of its own.
 */
export function ensureTokenVolume(spec: Json): void {
  if (spec.automountServiceAccountToken === false) return;
  const volumes = records(spec.volumes);
  const hasToken = volumes.some(
    (v) =>
      isRecord(v.projected) &&
      records(v.projected.sources).some((s) => isRecord(s.serviceAccountToken)),
  );
  const containers = CONTAINER_LISTS.flatMap((list) => records(spec[list]));
  const mounted = (c: Json) =>
    records(c.volumeMounts).some((m) => m.mountPath === TOKEN_MOUNT_PATH);
  if (hasToken || containers.some(mounted)) return;
  spec.volumes = [
    ...volumes,
    {
      name: TOKEN_VOLUME,
      projected: {
        sources: [
          { serviceAccountToken: { path: 'token', expirationSeconds: TOKEN_SECONDS } },
          { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: CA_KEY, path: CA_KEY }] } },
          {
            downwardAPI: {
              items: [
                {
                  path: NAMESPACE_KEY,
                  fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
                },
              ],
            },
          },
        ],
      },
    },
  ];
  for (const container of containers) {
    const mount = { name: TOKEN_VOLUME, readOnly: true, mountPath: TOKEN_MOUNT_PATH };
    container.volumeMounts = [...records(container.volumeMounts), mount];
  }
}

/** What {@link takeTokenSources} took out, to be served from the token Secret. */
export interface TokenPlan {
  requests: TokenRequestEntry[];
  /** Per volume name: the Secret items (key -> path) its sources had. */
  volumes: Map<string, Array<{ key: string; path: string }>>;
}

function requestKey(
  plan: TokenPlan,
  audiences: string[],
  expirationSeconds: number,
  bound: boolean,
): string {
  const same = plan.requests.find(
    (r) =>
      r.expirationSeconds === expirationSeconds && r.audiences.join('\n') === audiences.join('\n'),
  );
  if (same) return same.key;
  const key = plan.requests.length === 0 ? 'token' : `token-${plan.requests.length}`;
  plan.requests.push({ key, audiences, expirationSeconds, ...(bound ? {} : { unbound: true }) });
  return key;
}

/**
 * Takes the service-account token sources out of the projected volumes of `spec` (changed in
 * place), and the tenant CA beside them, remembering what each volume had; {@link mountTokenSecret}
 * puts them back as sources of the token Secret once references are renamed (the Secret's name is
 * a host name already). A CA without a token beside it is left as it is: a reference like others.
 */
export function takeTokenSources(spec: Json): TokenPlan {
  const plan: TokenPlan = { requests: [], volumes: new Map() };
  const named = [spec.serviceAccountName, spec.serviceAccount].some(
    (name) => typeof name === 'string' && name !== '',
  );
  for (const volume of records(spec.volumes)) {
    const projected = volume.projected;
    if (!isRecord(projected) || typeof volume.name !== 'string') continue;
    const sources = records(projected.sources);
    if (!sources.some((s) => isRecord(s.serviceAccountToken))) continue;
    const items: Array<{ key: string; path: string }> = [];
    const kept: Json[] = [];
    for (const source of sources) {
      const token = source.serviceAccountToken;
      const config = source.configMap;
      if (isRecord(token)) {
        const audiences =
          typeof token.audience === 'string' && token.audience !== '' ? [token.audience] : [];
        const key = requestKey(plan, audiences, lifetime(token.expirationSeconds), named);
        items.push({ key, path: typeof token.path === 'string' ? token.path : 'token' });
      } else if (isRecord(config) && config.name === ROOT_CA_CONFIG_MAP) {
        const asked = records(config.items).filter((i) => i.key === CA_KEY);
        for (const item of asked.length > 0 ? asked : [{ path: CA_KEY }]) {
          items.push({ key: CA_KEY, path: typeof item.path === 'string' ? item.path : CA_KEY });
        }
      } else kept.push(source);
    }
    projected.sources = kept;
    plan.volumes.set(volume.name, items);
  }
  return plan;
}

/** Serves every volume {@link takeTokenSources} took from `secretName` (changes `spec`). */
export function mountTokenSecret(spec: Json, plan: TokenPlan, secretName: string): void {
  for (const volume of records(spec.volumes)) {
    const items = typeof volume.name === 'string' ? plan.volumes.get(volume.name) : undefined;
    const projected = volume.projected;
    if (!items || !isRecord(projected)) continue;
    // Not optional: a container never starts with an empty token path while the Secret is made.
    const source = { secret: { name: secretName, items } };
    projected.sources = [...records(projected.sources), source];
  }
}

const SERVICE_ENV = ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'];

/**
 * Points `KUBERNETES_SERVICE_HOST`/`PORT` of every container at the tenant apiserver: the
 * kubelet would set the host's, and in-cluster clients (client-go's `InClusterConfig`) read them
 * with the mounted token. Declared env wins over the kubelet's.
 */
export function tenantApiEnv(spec: Json, endpoint: ApiEndpoint): void {
  for (const list of CONTAINER_LISTS) {
    for (const container of records(spec[list])) {
      const env = records(container.env).filter(
        (e) => typeof e.name !== 'string' || !SERVICE_ENV.includes(e.name),
      );
      env.push(
        { name: 'KUBERNETES_SERVICE_HOST', value: endpoint.host },
        { name: 'KUBERNETES_SERVICE_PORT', value: endpoint.port },
      );
      container.env = env;
    }
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Whether a Pod spec asks for cluster DNS: `ClusterFirst` (the default) or `ClusterFirstWithHostNet`. */
export function asksClusterDns(spec: unknown): boolean {
  const policy = isRecord(spec) ? spec.dnsPolicy : undefined;
  return policy !== 'None' && policy !== 'Default';
}

/**
 * The tenant's DNS for a Pod that asks for cluster DNS (`ClusterFirst`, the default, or
 * `ClusterFirstWithHostNet`): `dnsPolicy: None` with the tenant nameserver and the searches a
 * kubelet would write in the virtual namespace, the tenant's own `dnsConfig` after them. A Pod
 * asking for `Default` (the node's) or `None` (its own) keeps what it asked. With a tenant DNS
 * Service, the nameserver is its host copy's cluster IP, `serviceAddress`, which the Pod kind's
 * turn read.
 * @throws Error when the policy names a DNS Service and `serviceAddress` was not read: the Pod's
 * error, never a refusal (a refused Pod's running copy would be collected).
 */
export function tenantDnsConfig(
  spec: Json,
  dns: TenantDns,
  virtualNamespace: string,
  serviceAddress: string | undefined,
): void {
  if (!asksClusterDns(spec)) return;
  const nameserver = 'nameserver' in dns ? dns.nameserver : serviceAddress;
  if (nameserver === undefined) {
    throw new Error(
      'the host address of the tenant DNS Service (spec.workloads.tenantDns.service) was not read, so the Pod was not synced',
    );
  }
  const own = isRecord(spec.dnsConfig) ? spec.dnsConfig : {};
  const domain = dns.clusterDomain;
  const searches = [`${virtualNamespace}.svc.${domain}`, `svc.${domain}`, domain];
  const config: Json = {
    nameservers: [nameserver, ...strings(own.nameservers).filter((n) => n !== nameserver)],
    searches: [...searches, ...strings(own.searches).filter((s) => !searches.includes(s))],
    // ndots 5 is what a kubelet writes for cluster DNS, so `web.shop` is tried as a Service first.
    options: Array.isArray(own.options) ? own.options : [{ name: 'ndots', value: '5' }],
  };
  spec.dnsPolicy = 'None';
  spec.dnsConfig = config;
}

/** The token requests a host Pod's annotation names (empty when none or garbled). */
export function parseTokenRequests(text: string | undefined): TokenRequestEntry[] {
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  return records(parsed).flatMap((r) =>
    typeof r.key === 'string' && typeof r.expirationSeconds === 'number'
      ? [
          {
            key: r.key,
            audiences: strings(r.audiences),
            expirationSeconds: r.expirationSeconds,
            ...(r.unbound === true ? { unbound: true as const } : {}),
          },
        ]
      : [],
  );
}
