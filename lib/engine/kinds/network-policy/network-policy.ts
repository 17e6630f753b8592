/**
 * The NetworkPolicy translator. On the host a policy applies to, and allows traffic from and to,
 * Pods of one shared namespace, and policies are additive: whatever a copy allows, it opens for
 * the tenant past the operator's own policies (a default deny of the metadata endpoint, the host
 * apiserver, other tenants). So its `podSelector` is scoped to the tenant's Pods of its virtual
 * namespace (`selectors.ts`), every peer stays inside the tenant or inside what
 * `spec.workloads.networkPolicies` allows (`network-policy-peers.ts`), and a rule without peers
 * (`from`/`to` absent or empty: every source or destination there is, the nodes and the host
 * network included) is refused: it cannot be narrowed without changing what the tenant wrote, so
 * the Skip names the rule and says to name its peers. Ports are kept as written.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, NETWORK_POLICY } from '../../../ports/index.js';
import { isolationOf } from '../../policy/workloads.js';
import type { KindModule } from '../frame/kind-module.js';
import { scopeLabelSelector } from '../frame/selectors.js';
import type { KindTranslator, TranslateTarget } from '../frame/translator.js';
import type { NetworkPolicyFacts } from './facts.js';
import { networkPolicyTurn } from './network-policy-namespaces.js';
import { type PeerScope, translatePeer } from './network-policy-peers.js';

export type { PeerScope } from './network-policy-peers.js';

const EVERYWHERE = {
  ingress: "from everywhere (other tenants' Pods, the nodes, the host network)",
  egress: 'to everywhere (the nodes, the host apiserver, the metadata endpoint, other tenants)',
} as const;

/** The translated rules of one direction, or the first refusal with the rule's or peer's path. */
function translateRules(
  rules: unknown,
  direction: 'ingress' | 'egress',
  scope: PeerScope,
): { rules: unknown } | { refused: string } {
  if (!Array.isArray(rules)) return { rules };
  const field = direction === 'ingress' ? 'from' : 'to';
  const translated: unknown[] = [];
  for (const [r, rule] of rules.entries()) {
    const peers = isRecord(rule) ? rule[field] : undefined;
    if (!Array.isArray(peers) || peers.length === 0) {
      return {
        refused: `the rule spec.${direction}[${r}] has no ${field}: on the host it would allow traffic ${EVERYWHERE[direction]}; name its peers (a podSelector or namespaceSelector, an ipBlock inside spec.workloads.networkPolicies.cidrs)`,
      };
    }
    const hostPeers: unknown[] = [];
    for (const [p, peer] of (peers as unknown[]).entries()) {
      const result = translatePeer(peer, scope);
      if ('refused' in result) {
        return {
          refused: `the peer spec.${direction}[${r}].${field}[${p}] cannot go to the host: ${result.refused}`,
        };
      }
      hostPeers.push(result.peer);
    }
    translated.push({ ...(rule as Record<string, unknown>), [field]: hostPeers });
  }
  return { rules: translated };
}

/** The host spec of a policy, or why the policy cannot go to the host. */
export function translateNetworkPolicySpec(
  spec: unknown,
  scope: PeerScope,
): { spec: Record<string, unknown> } | { refused: string } {
  if (!isRecord(spec)) return { spec: {} };
  const host: Record<string, unknown> = {
    ...spec,
    podSelector: scopeLabelSelector(spec.podSelector, scope),
  };
  for (const direction of ['ingress', 'egress'] as const) {
    if (spec[direction] === undefined) continue;
    const result = translateRules(spec[direction], direction, scope);
    if ('refused' in result) return result;
    host[direction] = result.rules;
  }
  return { spec: host };
}

function scopeOf(target: TranslateTarget<NetworkPolicyFacts>): PeerScope {
  return {
    tenant: target.tenant,
    virtualNamespace: target.virtualNamespace,
    hostNamespace: target.hostNamespace,
    limits: isolationOf(target.workloads).networkPolicies,
    ...(target.tenantNamespaces === undefined ? {} : { tenantNamespaces: target.tenantNamespaces }),
  };
}

/** NetworkPolicies: their Pods and peers scoped; a peer or rule that reaches past them refuses it. */
export const NETWORK_POLICY_TRANSLATOR: KindTranslator<NetworkPolicyFacts> = {
  kind: NETWORK_POLICY,
  refusal(source, target) {
    const result = translateNetworkPolicySpec(source.spec, scopeOf(target));
    return 'refused' in result ? result.refused : undefined;
  },
  toHost(object: KubeObject, target) {
    const result = translateNetworkPolicySpec(object.spec, scopeOf(target));
    // The registry asks for the refusal first, so a refused policy never gets here.
    if ('spec' in result) object.spec = result.spec;
    return object;
  },
};

/** NetworkPolicies: the translator, and a turn reading the tenant's namespaces when peers name some. */
export const NETWORK_POLICY_MODULE: KindModule<NetworkPolicyFacts> = {
  kind: NETWORK_POLICY_TRANSLATOR.kind,
  translator: NETWORK_POLICY_TRANSLATOR,
  startKind: networkPolicyTurn,
};
