/**
 * The Pod turn's fact for a tenant DNS named by its Service (`spec.workloads.tenantDns.service`):
 * the cluster IP of that Service's host copy, the nameserver host Pods get. Services are applied
 * before Pods in a pass (the Pod translator's `referencedKinds`), so a copy the same pass created
 * is found.
 *
 * The read is one GET of the copy by its host name in the host namespace, once a pass, at the first
 * page (or resumed change) holding a Pod that asks for cluster DNS: a tenant whose policy names a
 * literal nameserver, or none, reads nothing, and its Pods keep the in-sync memo (objects
 * translated with facts are never answered from it). Only this tenant's live copy of that very
 * Service counts, never a foreign object at the name.
 *
 * No address (the copy is missing, not yet synced, being deleted, headless or ExternalName) or a
 * failed read is an error of the pass naming the Service, and the read rejects: the Pod kind then
 * takes in nothing more and skips its garbage collection (`pipeline/tenant-view.ts` `readFacts`). So
 * new Pods wait for the DNS and running host Pods stay; never a refusal, whose copy GC would
 * delete.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, POD, SERVICE, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { hostName } from '../../names/naming.js';
import { reverseLookup } from '../../names/reverse-mapping.js';
import { serviceRefText, type TenantServiceRef } from '../../policy/tenant-dns.js';
import type { KindTurn } from '../frame/kind-module.js';
import type { PodFacts } from './facts.js';
import { asksClusterDns } from './translate/token.js';

/**
 * The cluster IP a DNS client can query on `copy`, when it is `tenant`'s live copy of the tenant
 * Service `ref`; otherwise why not, in words that follow "the tenant DNS Service <ref> ...".
 */
export function dnsAddressOf(
  copy: KubeObject | undefined,
  ref: TenantServiceRef,
  tenant: string,
): { address: string } | { missing: string } {
  const source = copy && reverseLookup(copy);
  const ours =
    source?.tenant === tenant &&
    source.kind === SERVICE.kind &&
    source.virtualNamespace === ref.namespace &&
    source.virtualName === ref.name;
  if (!copy || !ours || copy.metadata.deletionTimestamp) {
    return { missing: 'has no host copy yet (it does not exist in the tenant, or was not synced)' };
  }
  const spec = isRecord(copy.spec) ? copy.spec : {};
  const ip = spec.clusterIP;
  if (typeof ip !== 'string' || ip === '' || ip === 'None') {
    return { missing: 'has no cluster IP on the host (headless or ExternalName)' };
  }
  return { address: ip };
}

/** Reads the DNS Service's host copy; records why when it gives no address, then rejects. */
async function readDnsAddress(ctx: PassContext, ref: TenantServiceRef): Promise<PodFacts> {
  const { hostApi, hostNamespace, tenant, bounds } = ctx.scope;
  const name = hostName(ref.name, ref.namespace, tenant);
  const what = `the tenant DNS Service ${serviceRefText(ref)} (spec.workloads.tenantDns.service)`;
  const waits = 'waits for the host address of the tenant DNS Service: no Pod was synced';
  const read = await attempt(() =>
    withRequestDeadline(workDeadline(bounds.budget), () =>
      hostApi.get(SERVICE, hostNamespace, name),
    ),
  );
  if (!read.ok) {
    ctx.ledger.errors.add(SERVICE, read.error, ref, { namespace: hostNamespace, name });
    ctx.ledger.errors.kindIncomplete(POD, waits);
    throw read.error;
  }
  const found = dnsAddressOf(read.value, ref, tenant);
  if ('address' in found) return { tenantDnsAddress: found.address };
  const error = new Error(`${what} ${found.missing}, so no Pod was synced; they wait for it`);
  ctx.ledger.errors.add(POD, error);
  ctx.ledger.errors.kindIncomplete(POD, waits);
  throw error;
}

/**
 * The Pod turn's `hostFacts` when the policy names a tenant DNS Service (see the module doc), or
 * `undefined` when it does not (the Pods need nothing read).
 */
export function tenantDnsFacts(ctx: PassContext): KindTurn<PodFacts>['hostFacts'] {
  const dns = ctx.scope.policy.workloads?.tenantDns;
  if (dns === undefined || !('service' in dns)) return undefined;
  const ref = dns.service;
  let facts: Promise<PodFacts> | undefined;
  return (tenantObjects) => {
    if (!tenantObjects.some((pod) => asksClusterDns(pod.spec))) return Promise.resolve(undefined);
    facts ??= readDnsAddress(ctx, ref);
    return facts;
  };
}
