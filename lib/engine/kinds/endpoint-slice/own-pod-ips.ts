/**
 * The EndpointSlice kind's turn: the tenant's own Pod IPs on the host, which a slice may name
 * beyond `spec.workloads.endpoints.cidrs` (`endpoint-addresses.ts`). The translation is pure, so
 * the turn reads them for it (`KindTurn.hostFacts`): one label-selected, paged LIST of the
 * tenant's host Pods, once a pass, and only when a slice the pass takes in names an address
 * outside the blocks (a tenant whose slices all lie inside them, or that has none, reads nothing).
 * A tenant whose Pods are not synced has none on the host: nothing is read, and no address is its
 * own. A listing that fails is an error of the pass and leaves the kind unread: it takes in nothing
 * more and skips its garbage collection that pass (`pipeline/tenant-view.ts` `readFacts`), so a copy
 * is never collected, nor a slice refused, on an answer that was never read.
 *
 * An address's right can end while its slice stays as it was: the Pod ends and its address may
 * go to another tenant's Pod. So the slices that rely on it are translated again at every pass,
 * never answered by the in-sync memo (`pipeline/tenant-view.ts` skips it for objects translated with
 * facts) nor left out by a resumed watch (the turn keeps the kind on full passes while any slice
 * names an address outside the blocks): a copy whose address is no longer the tenant's is refused
 * and collected at the next pass.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, POD, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import { tenantCopySelector } from '../../names/copy-selector.js';
import { sameKind } from '../../names/resource-key.js';
import { ourCopySource } from '../../names/reverse-mapping.js';
import { canonicalAddress } from '../../policy/cidr.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import { isolationOf } from '../../policy/workloads.js';
import type { KindTurn } from '../frame/kind-module.js';
import { addressesBeyond } from './endpoint-addresses.js';
import { madeByTenantController } from './endpoint-slice.js';
import type { EndpointSliceFacts } from './facts.js';

/** Phases of a Pod that holds no address any more: it may be another Pod's by now. */
const ENDED: ReadonlySet<unknown> = new Set(['Succeeded', 'Failed']);

/**
 * The Pod IPs among `pods` that are `tenant`'s own, as `canonicalAddress` spells them: copies of
 * its Pods (by the engine's labels and annotations), not on the host network (their address is the
 * node's), not ended.
 */
export function ownPodIps(pods: readonly KubeObject[], tenant: string): Set<string> {
  const ips = new Set<string>();
  for (const pod of pods) {
    if (!ourCopySource(pod, { tenant, kind: POD.kind })) continue;
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const status = isRecord(pod.status) ? pod.status : {};
    if (spec.hostNetwork === true || ENDED.has(status.phase)) continue;
    const listed = Array.isArray(status.podIPs)
      ? status.podIPs.map((entry) => (isRecord(entry) ? entry.ip : undefined))
      : [];
    for (const ip of [status.podIP, ...listed]) {
      const canonical = typeof ip === 'string' ? canonicalAddress(ip) : undefined;
      if (canonical !== undefined) ips.add(canonical);
    }
  }
  return ips;
}

/** Why a failed listing leaves the kind unfinished. */
const UNCHECKED =
  "whether EndpointSlice addresses outside spec.workloads.endpoints.cidrs are this tenant's Pod IPs could not be checked: the kind's slices wait for the next pass";

/**
 * The tenant's own Pod IPs on the host; none when it syncs no Pods; `{}` when the pass is stopped
 * (the slices outside the blocks are refused: nothing is written in a stopped pass anyway).
 * Rejects when the listing fails, after recording why.
 */
async function readOwnPodIps(ctx: PassContext): Promise<EndpointSliceFacts> {
  const { hostApi, hostNamespace, bounds, tenant, policy } = ctx.scope;
  if (!policy.toHost.some((rule) => sameKind(rule, POD))) return { ownPodIps: new Set() };
  if (bounds.isStopped()) return {};
  const listed = await attempt(() =>
    withRequestDeadline(workDeadline(bounds.budget), () =>
      listEveryPage(hostApi, POD, bounds.budget.pageSize, {
        namespace: hostNamespace,
        labelSelector: tenantCopySelector(tenant, POD.kind),
      }),
    ),
  );
  if (listed.ok) return { ownPodIps: ownPodIps(listed.value, tenant) };
  ctx.ledger.errors.listingFailed(POD, 'host', listed.error, UNCHECKED);
  throw listed.error;
}

/** The EndpointSlice kind's turn (see the module doc). */
export function endpointSliceTurn(
  ctx: PassContext,
  compiled: CompiledKindRule,
): KindTurn<EndpointSliceFacts> {
  const { cidrs } = isolationOf(ctx.scope.policy.workloads).endpoints;
  let facts: Promise<EndpointSliceFacts> | undefined;
  let relies = false;
  return {
    hostFacts(tenantObjects) {
      const needs = tenantObjects.some(
        (slice) => !madeByTenantController(slice) && addressesBeyond(slice, cidrs).length > 0,
      );
      if (!needs) return Promise.resolve(undefined);
      relies = true;
      facts ??= readOwnPodIps(ctx);
      return facts;
    },
    async afterKind() {
      // A resumed watch would not take in the slices again: the next pass lists them in full.
      if (relies) ctx.memory.resume.clear(compiled.rule);
    },
  };
}
