/**
 * The NetworkPolicy turn's facts: the tenant's namespace names, for peers that name a namespace
 * neither mapped to a host namespace (`spec.workloads.networkPolicies.hostNamespaces`) nor a
 * tenant system namespace. Such a name is the tenant's own namespace, or it means a host one (an
 * ingress controller's) and the peer would match nothing on the host (`network-policy-peers.ts`).
 *
 * The read is one paged LIST of the tenant's namespaces (names only are kept), made once a pass,
 * at the first page that has a policy naming such a namespace: a tenant whose policies name none
 * pays nothing. A tenant that lacks a namespace a policy names may create it later without
 * touching the policy, which a resumed watch of NetworkPolicies would never see: so when a policy
 * names a namespace the tenant lacks, the kind's next pass lists it in full again.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, NAMESPACE, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import type { NetworkPolicyLimits } from '../../policy/isolation.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import { TENANT_SYSTEM_NAMESPACES } from '../../policy/scope.js';
import { isolationOf } from '../../policy/workloads.js';
import type { KindTurn } from '../frame/kind-module.js';
import type { NetworkPolicyFacts } from './facts.js';
import { selectedNamespaceNames } from './network-policy-peers.js';

const PEERS = { ingress: 'from', egress: 'to' } as const;

/**
 * The namespace names `policy`'s peers select by name that are neither mapped to a host
 * namespace nor a tenant system namespace: those only the tenant's namespace list can place.
 */
export function namespacesToPlace(policy: KubeObject, limits: NetworkPolicyLimits): Set<string> {
  const names = new Set<string>();
  const spec = isRecord(policy.spec) ? policy.spec : {};
  for (const [direction, field] of Object.entries(PEERS)) {
    const rules = spec[direction];
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      const peers = isRecord(rule) ? rule[field] : undefined;
      if (!Array.isArray(peers)) continue;
      for (const peer of peers) {
        if (!isRecord(peer) || peer.ipBlock != null || peer.namespaceSelector == null) continue;
        for (const name of selectedNamespaceNames(peer.namespaceSelector) ?? []) {
          const mapped = Object.hasOwn(limits.hostNamespaces, name);
          if (!mapped && !TENANT_SYSTEM_NAMESPACES.includes(name)) names.add(name);
        }
      }
    }
  }
  return names;
}

async function readTenantNamespaces(ctx: PassContext): Promise<NetworkPolicyFacts> {
  const { tenantApi, bounds } = ctx.scope;
  const listed = await attempt(() =>
    withRequestDeadline(workDeadline(bounds.budget), () =>
      listEveryPage(tenantApi, NAMESPACE, bounds.budget.pageSize),
    ),
  );
  if (!listed.ok) {
    const why =
      'the namespaces NetworkPolicy peers name could not be checked, so no policy was synced';
    ctx.ledger.errors.listingFailed(NAMESPACE, 'tenant', listed.error, why);
    throw listed.error;
  }
  return { tenantNamespaces: new Set(listed.value.map((n) => n.metadata.name)) };
}

/** The NetworkPolicy kind's turn (see the module doc). */
export function networkPolicyTurn(
  ctx: PassContext,
  compiled: CompiledKindRule,
): KindTurn<NetworkPolicyFacts> {
  const limits = isolationOf(ctx.scope.policy.workloads).networkPolicies;
  let facts: Promise<NetworkPolicyFacts> | undefined;
  let lacking = false;
  return {
    async hostFacts(tenantObjects) {
      const named = new Set(tenantObjects.flatMap((p) => [...namespacesToPlace(p, limits)]));
      if (named.size === 0) return undefined;
      facts ??= readTenantNamespaces(ctx);
      const read = await facts;
      if ([...named].some((n) => !read.tenantNamespaces?.has(n))) lacking = true;
      return read;
    },
    async afterKind() {
      // A namespace the tenant creates later would reach no resumed watch of the policies.
      if (lacking) ctx.memory.resume.clear(compiled.rule);
    },
  };
}
