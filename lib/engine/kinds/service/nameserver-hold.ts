/**
 * A Service copy whose cluster IP host Pods use as their nameserver is kept, source gone or not.
 *
 * A host Pod's DNS settings are fixed for its life: the tenant DNS's address it was made with
 * (`spec.dnsConfig.nameservers`, `kinds/pod/tenant-dns.ts`) stays its nameserver after the tenant
 * deletes that DNS Service (`kubectl delete -f`, then `apply -f`). Deleting the copy would free
 * the address on the host, and the next Service there that asks for it (another tenant's, whose
 * tenant chose it) or is given it would receive every lookup of those Pods. So the copy, which
 * holds the address, stays while a Pod of its host namespace that has not ended names it; the
 * kind's garbage collection deletes it at the first full pass after they are gone. A tenant that
 * applies the Service again gets the same copy back, updated, and its tenant Service realigned to
 * the address its Pods use.
 *
 * The read: one paged LIST of the host namespace's Pods, only in a pass whose garbage collection
 * would delete a Service copy with a cluster IP. It cannot be read: every such copy stays (nothing
 * freed on a guess), and the Skip says why.
 */
import { errorMessage, isRecord } from '../../../common/index.js';
import { type KubeObject, POD } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import type { GcHold } from '../../gc/gc.js';
import { listEveryPage } from '../../listing/every-page.js';
import { clusterIpsOf } from './cluster-ip.js';

const PAGE = 250;
const NAMED = 3;

/** The nameservers of a Pod that may still look anything up (not Succeeded or Failed). */
function nameserversOf(pod: KubeObject): string[] {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return [];
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const config = isRecord(spec.dnsConfig) ? spec.dnsConfig : {};
  const listed = Array.isArray(config.nameservers) ? config.nameservers : [];
  return listed.filter((ns): ns is string => typeof ns === 'string');
}

const named = (pods: readonly string[]) =>
  pods.length > NAMED
    ? `${pods.slice(0, NAMED).join(', ')} and ${pods.length - NAMED} more`
    : pods.join(', ');

/** The Service kind's {@link GcHold} (see the module doc). */
export const nameserverHold: GcHold = async (ctx: PassContext, candidates) => {
  const ips = new Map<string, string[]>(); // cluster IP -> the candidates at it
  for (const copy of candidates)
    for (const ip of clusterIpsOf(copy)) ips.set(ip, [...(ips.get(ip) ?? []), copy.metadata.name]);
  const kept = new Map<string, string>();
  if (ips.size === 0) return kept;
  const { hostApi, hostNamespace } = ctx.scope;
  const users = new Map<string, string[]>(); // cluster IP -> the Pods naming it
  const listed = await attempt(() =>
    listEveryPage(hostApi, POD, PAGE, { namespace: hostNamespace }, (pod) =>
      nameserversOf(pod).some((ns) => ips.has(ns)),
    ),
  );
  if (!listed.ok) {
    const why = `kept: host Pods may use its cluster IP as their nameserver, and they could not be listed (${errorMessage(listed.error)})`;
    for (const names of ips.values()) for (const name of names) kept.set(name, why);
    return kept;
  }
  for (const pod of listed.value)
    for (const ns of nameserversOf(pod))
      if (ips.has(ns)) users.set(ns, [...(users.get(ns) ?? []), pod.metadata.name]);
  for (const [ip, pods] of users) {
    const why = `kept: host Pods ${named(pods.sort())} use its cluster IP ${ip} as their nameserver (spec.dnsConfig.nameservers), and deleting it would free that address for another Service, their lookups with it; it goes once they are gone`;
    for (const name of ips.get(ip) ?? []) kept.set(name, why);
  }
  return kept;
};
