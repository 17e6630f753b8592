/**
 * The NetworkPolicy translator. On the host a policy applies to, and allows traffic from and to,
 * Pods of one shared namespace: so its `podSelector` and every peer's are scoped to the tenant
 * (`selectors.ts`), the policy's own Pods to its virtual namespace. A peer's `namespaceSelector`
 * names tenant namespaces, which the host does not have: it becomes a requirement on the
 * virtual-namespace label of the tenant's Pods (every namespace of the tenant for `{}`; by name
 * through `kubernetes.io/metadata.name`), and a policy whose peer selects namespaces by any
 * other label is refused, saying which peer and label (a guess would open or close traffic the
 * tenant did not ask for). `ipBlock` peers and ports are kept as written.
 */
import { isRecord } from '../../common/index.js';
import { type KubeObject, NETWORK_POLICY } from '../../ports/index.js';
import type { KindModule } from './kind-module.js';
import { namespaceRequirements, scopeLabelSelector } from './selectors.js';
import type { KindTranslator, TranslateTarget } from './translator.js';

type Scope = { tenant: string; virtualNamespace: string };

/** A peer on the host, or why it cannot be. */
type Peer = { peer: unknown } | { refused: string };

function translatePeer(peer: unknown, scope: Scope): Peer {
  if (!isRecord(peer)) return { peer };
  if (peer.podSelector === undefined && peer.namespaceSelector === undefined) return { peer };
  const { namespaceSelector, podSelector, ...rest } = peer;
  if (namespaceSelector === undefined || namespaceSelector === null) {
    return { peer: { ...rest, podSelector: scopeLabelSelector(podSelector, scope) } };
  }
  const namespaces = namespaceRequirements(namespaceSelector);
  if ('refused' in namespaces) return namespaces;
  const scoped = scopeLabelSelector(podSelector, {
    tenant: scope.tenant,
    virtualNamespace: namespaces.requirements,
  });
  return { peer: { ...rest, podSelector: scoped } };
}

/** The translated rules of one direction, or the first refusal with the peer's path. */
function translateRules(
  rules: unknown,
  direction: 'ingress' | 'egress',
  scope: Scope,
): { rules: unknown } | { refused: string } {
  if (!Array.isArray(rules)) return { rules };
  const field = direction === 'ingress' ? 'from' : 'to';
  const translated: unknown[] = [];
  for (const [r, rule] of rules.entries()) {
    if (!isRecord(rule) || !Array.isArray(rule[field])) {
      translated.push(rule);
      continue;
    }
    const peers: unknown[] = [];
    for (const [p, peer] of (rule[field] as unknown[]).entries()) {
      const result = translatePeer(peer, scope);
      if ('refused' in result) {
        return {
          refused: `the peer spec.${direction}[${r}].${field}[${p}] cannot be translated: ${result.refused}`,
        };
      }
      peers.push(result.peer);
    }
    translated.push({ ...rule, [field]: peers });
  }
  return { rules: translated };
}

/** The host spec of a policy, or why the policy cannot go to the host. */
export function translateNetworkPolicySpec(
  spec: unknown,
  scope: Scope,
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

function scopeOf(target: TranslateTarget): Scope {
  return { tenant: target.tenant, virtualNamespace: target.virtualNamespace };
}

/** NetworkPolicies: their Pods and peers scoped; a peer the host cannot express refuses the policy. */
export const NETWORK_POLICY_TRANSLATOR: KindTranslator = {
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

/** NetworkPolicies: the translator alone. */
export const NETWORK_POLICY_MODULE: KindModule = {
  kind: NETWORK_POLICY_TRANSLATOR.kind,
  translator: NETWORK_POLICY_TRANSLATOR,
};
