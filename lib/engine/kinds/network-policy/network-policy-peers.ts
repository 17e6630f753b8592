/**
 * One NetworkPolicy peer on the host, within what the policy lets a tenant open
 * (`spec.workloads.networkPolicies`). Policies are additive: a copy can only open traffic, so
 * every peer must stay inside the tenant or inside what the operator named:
 *
 * - a `podSelector` (and a `namespaceSelector` on tenant namespaces) is scoped to the tenant's
 *   Pods (`selectors.ts`), as before;
 * - an `ipBlock` must lie inside one of `cidrs` (its `except` kept as written): a block outside
 *   them (the metadata endpoint, the host apiserver, the nodes, `0.0.0.0/0`) is refused;
 * - a `namespaceSelector` naming, by `kubernetes.io/metadata.name`, a namespace that
 *   `hostNamespaces` maps becomes a selector on that host namespace, its `podSelector` kept as
 *   written (the host namespace's Pods carry the host's own labels, not the tenant's); one naming
 *   a tenant system namespace that is not mapped is refused: those namespaces are never synced, so
 *   on the host the peer would match nothing, silently.
 *
 * A namespace name that is neither mapped nor a system namespace must be one of the tenant's own
 * namespaces (`PeerScope.tenantNamespaces`, read from the tenant by the kind's turn:
 * `network-policy-namespaces.ts`). A name the tenant does not have means a host namespace (an
 * ingress controller's, the host DNS), which the peer would never reach: refused, so a tenant
 * default deny that cuts off the host ingress controller says so instead of matching nothing.
 */
import { isRecord } from '../../../common/index.js';
import { KubernetesKeys } from '../../names/metadata.js';
import { blockWithin } from '../../policy/cidr.js';
import type { NetworkPolicyLimits } from '../../policy/isolation.js';
import { TENANT_SYSTEM_NAMESPACES } from '../../policy/scope.js';
import { namespaceRequirements, scopeLabelSelector } from '../frame/selectors.js';

/** Where a translated peer is: the tenant and the policy's virtual and host namespaces. */
export interface PeerScope {
  tenant: string;
  virtualNamespace: string;
  hostNamespace: string;
  limits: NetworkPolicyLimits;
  /** The tenant's namespace names; `undefined` when they were not read (a peer needing them refuses). */
  tenantNamespaces?: ReadonlySet<string>;
}

/** A peer on the host, or why it cannot be (a sentence about the field, its path given). */
export type Peer = { peer: unknown } | { refused: string };

const KNOWN_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * The namespace names a selector selects when it selects by `kubernetes.io/metadata.name` alone
 * and at least one requirement lists names (`matchLabels`, `In`): those names that meet every
 * requirement. `undefined` for an open selector (`{}`, only `NotIn`/`Exists`) or one on another
 * label (left to `namespaceRequirements`, which refuses it).
 */
export function selectedNamespaceNames(selector: unknown): string[] | undefined {
  const from = isRecord(selector) ? selector : {};
  const tests: Array<(name: string) => boolean> = [];
  let listed: string[] | undefined;
  const name = KubernetesKeys.NamespaceName;
  if (isRecord(from.matchLabels)) {
    for (const [key, value] of Object.entries(from.matchLabels)) {
      if (key !== name || typeof value !== 'string') return undefined;
      listed ??= [value];
      tests.push((n) => n === value);
    }
  }
  if (Array.isArray(from.matchExpressions)) {
    for (const e of from.matchExpressions) {
      if (!isRecord(e) || e.key !== name || !KNOWN_OPERATORS.has(String(e.operator))) {
        return undefined;
      }
      const values = Array.isArray(e.values)
        ? e.values.filter((v): v is string => typeof v === 'string')
        : [];
      if (e.operator === 'In') {
        listed ??= values;
        tests.push((n) => values.includes(n));
      } else if (e.operator === 'NotIn') tests.push((n) => !values.includes(n));
      else if (e.operator === 'DoesNotExist') tests.push(() => false);
    }
  }
  if (listed === undefined) return undefined;
  return [...new Set(listed)].filter((n) => tests.every((test) => test(n)));
}

/** The host peer of a peer naming mapped host namespaces only, or why it cannot be one. */
function hostNamespacePeer(
  rest: Record<string, unknown>,
  podSelector: unknown,
  names: readonly string[],
  scope: PeerScope,
): Peer {
  const mapped = names.map((n) => scope.limits.hostNamespaces[n]);
  const hosts = [...new Set(mapped.filter((h): h is string => h !== undefined))];
  if (hosts.includes(scope.hostNamespace)) {
    return {
      refused: `spec.workloads.networkPolicies.hostNamespaces maps a namespace it names to this tenant's own host namespace ${scope.hostNamespace}, whose Pods are other tenants' too`,
    };
  }
  const key = KubernetesKeys.NamespaceName;
  const namespaceSelector =
    hosts.length === 1
      ? { matchLabels: { [key]: hosts[0] } }
      : { matchExpressions: [{ key, operator: 'In', values: hosts }] };
  // The host namespace's Pods carry the host's labels: the tenant's pod selector means them.
  return {
    peer: { ...rest, namespaceSelector, ...(podSelector == null ? {} : { podSelector }) },
  };
}

function ipBlockPeer(peer: Record<string, unknown>, scope: PeerScope): Peer {
  const block = isRecord(peer.ipBlock) ? peer.ipBlock : {};
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (blockWithin(cidr, scope.limits.cidrs)) return { peer };
  const allowed = scope.limits.cidrs.map((c) => c.text).join(', ') || 'none';
  return {
    refused: `its ipBlock.cidr "${cidr}" is not inside an address block the policy allows (spec.workloads.networkPolicies.cidrs: ${allowed})`,
  };
}

/** Why names the tenant does not have cannot be peers, or `undefined` when it has them all. */
function unknownNamespaces(
  names: readonly string[],
  tenantNamespaces: ReadonlySet<string> | undefined,
): string | undefined {
  if (tenantNamespaces === undefined) {
    return `its namespaceSelector names ${names.join(', ')}, and the tenant's namespaces could not be read to check that they are the tenant's own`;
  }
  const missing = names.filter((n) => !tenantNamespaces.has(n));
  if (missing.length === 0) return undefined;
  return `its namespaceSelector names ${missing.join(', ')}, which is not a namespace of the tenant: if it means a host namespace (an ingress controller's, the host DNS), on the host the peer would match nothing; map it to that host namespace in spec.workloads.networkPolicies.hostNamespaces`;
}

/** One peer on the host (see the file's comment), or why not. */
export function translatePeer(peer: unknown, scope: PeerScope): Peer {
  if (!isRecord(peer)) return { peer };
  if (peer.ipBlock !== undefined && peer.ipBlock !== null) return ipBlockPeer(peer, scope);
  if (peer.podSelector == null && peer.namespaceSelector == null) return { peer };
  const { namespaceSelector, podSelector, ...rest } = peer;
  const virtual = { tenant: scope.tenant, virtualNamespace: scope.virtualNamespace };
  if (namespaceSelector === undefined || namespaceSelector === null) {
    return { peer: { ...rest, podSelector: scopeLabelSelector(podSelector, virtual) } };
  }
  const names = selectedNamespaceNames(namespaceSelector);
  if (names !== undefined && names.length > 0) {
    const { hostNamespaces } = scope.limits;
    const mapped = names.filter((n) => Object.hasOwn(hostNamespaces, n));
    if (mapped.length === names.length) {
      return hostNamespacePeer(rest, podSelector, names, scope);
    }
    if (mapped.length > 0) {
      const others = names.filter((n) => !mapped.includes(n));
      return {
        refused: `its namespaceSelector names both host namespaces (${mapped.join(', ')}, mapped by spec.workloads.networkPolicies.hostNamespaces) and tenant namespaces (${others.join(', ')}); write one peer for each`,
      };
    }
    const system = names.filter((n) => TENANT_SYSTEM_NAMESPACES.includes(n));
    if (system.length > 0) {
      return {
        refused: `its namespaceSelector names ${system.join(', ')}, a tenant system namespace whose Pods are never synced, so on the host it would match nothing; map it to the host namespace it means in spec.workloads.networkPolicies.hostNamespaces`,
      };
    }
    const unknown = unknownNamespaces(names, scope.tenantNamespaces);
    if (unknown !== undefined) return { refused: unknown };
  }
  const namespaces = namespaceRequirements(namespaceSelector);
  if ('refused' in namespaces) return namespaces;
  const scoped = scopeLabelSelector(podSelector, {
    tenant: scope.tenant,
    virtualNamespace: namespaces.requirements,
  });
  return { peer: { ...rest, podSelector: scoped } };
}
