/**
 * What keeps a tenant Pod on the host inside its tenant: no host access unless the policy allows
 * it, no host credentials, the tenant's own hostname (the downward API: `pod-downward.ts`), and
 * nothing that spends host scheduling priority the tenant was never given.
 */
import { isRecord } from '../../../../common/index.js';
import type { WorkloadPolicy } from '../../../policy/workloads.js';
import { CONTAINER_LISTS } from './references.js';

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/**
 * The host access a Pod spec asks for, in words (`hostNetwork`, `hostPath volume "logs"`,
 * `privileged container "web"`...); empty when it asks for none.
 */
export function hostAccessOf(spec: unknown): string[] {
  if (!isRecord(spec)) return [];
  const asks: string[] = [];
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (spec[field] === true) asks.push(field);
  }
  for (const volume of records(spec.volumes)) {
    if (volume.hostPath !== undefined) asks.push(`hostPath volume "${String(volume.name)}"`);
  }
  for (const list of CONTAINER_LISTS) {
    for (const container of records(spec[list])) {
      const name = String(container.name);
      const security = container.securityContext;
      if (isRecord(security) && security.privileged === true) {
        asks.push(`privileged container "${name}"`);
      }
      for (const port of records(container.ports)) {
        if (typeof port.hostPort === 'number' && port.hostPort !== 0) {
          asks.push(`host port ${port.hostPort} of container "${name}"`);
        }
      }
    }
  }
  return asks;
}

/** The Skip reason of a Pod asking for host access the policy does not allow, or `undefined`. */
export function hostAccessRefusal(spec: unknown, policy: WorkloadPolicy | undefined) {
  if (policy?.allowHostAccess === true) return undefined;
  const asks = hostAccessOf(spec);
  if (asks.length === 0) return undefined;
  return `the Pod asks for host access (${asks.join(', ')}), which the policy does not allow (spec.workloads.allowHostAccess)`;
}

/**
 * Removes tenant service-account token sources from projected volumes: a token the host minted
 * would be a host credential, and the tenant's token comes from TokenRequest against the tenant
 * (`pod-token.ts` serves them from the Pod's token Secret; this removal is what the references
 * see). The tenant CA (`kube-root-ca.crt`) that the tenant's admission put beside the token goes
 * with it: it is never synced, and it would be a missing reference.
 */
export function dropTokenSources(spec: Json): void {
  for (const volume of records(spec.volumes)) {
    const projected = volume.projected;
    if (!isRecord(projected) || !Array.isArray(projected.sources)) continue;
    const sources = records(projected.sources);
    if (!sources.some((s) => s.serviceAccountToken !== undefined)) continue;
    projected.sources = sources.filter(
      (s) =>
        s.serviceAccountToken === undefined &&
        !(isRecord(s.configMap) && s.configMap.name === 'kube-root-ca.crt'),
    );
  }
}

/** A DNS-1123 label from a Pod name (a name may be a longer subdomain with dots). */
export function hostnameOf(name: string): string {
  const label = name.split('.')[0] ?? name;
  return label.slice(0, 63).replace(/[-]+$/, '');
}

/** Scheduling fields that spend host priority or host resources the tenant was never given. */
const HOST_SCHEDULING_FIELDS = ['priorityClassName', 'priority', 'preemptionPolicy', 'overhead'];

/**
 * The host Pod's credentials and identity: no service-account token mounted (the host's would be
 * a host credential), no host Service environment variables, the host's own service account (the
 * policy's or the namespace default), the tenant's name as hostname, and no node, priority class
 * or overhead from the tenant (the host schedules it; `nodeSelector` and tolerations are kept,
 * the policy's added: `scheduling.ts`; `runtimeClassName` is kept unless the policy forces one,
 * `schedulerName` and tolerate-all tolerations only reach here when allowed: `sandbox.ts`).
 * `ephemeralContainers` go too: the host refuses them at create. Returns the tenant service
 * account name, which the downward API reads from an annotation.
 */
export function hardenSpec(spec: Json, tenantName: string, policy?: WorkloadPolicy): string {
  const serviceAccount =
    typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== ''
      ? spec.serviceAccountName
      : typeof spec.serviceAccount === 'string' && spec.serviceAccount !== ''
        ? spec.serviceAccount
        : 'default';
  delete spec.serviceAccount;
  delete spec.serviceAccountName;
  if (policy?.hostServiceAccountName) spec.serviceAccountName = policy.hostServiceAccountName;
  spec.automountServiceAccountToken = false;
  spec.enableServiceLinks = false;
  if (typeof spec.hostname !== 'string' || spec.hostname === '') {
    spec.hostname = hostnameOf(tenantName);
  }
  delete spec.nodeName;
  delete spec.ephemeralContainers;
  for (const field of HOST_SCHEDULING_FIELDS) delete spec[field];
  return serviceAccount;
}
