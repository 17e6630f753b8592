/**
 * Where a tenant EndpointSlice may send traffic (CVE-2021-25740). A slice's copy is a host
 * EndpointSlice of the Service's host copy: the host's kube-proxy, ingress controllers and meshes
 * forward to its addresses from the host network, as a source other parts of the host trust. So
 * each address must be one of this tenant's own Pod IPs on the host (`HostFacts.ownPodIps`, read by
 * the kind's turn: `own-pod-ips.ts`) or lie inside `spec.workloads.endpoints.cidrs`; another
 * tenant's Pod, a node, the host apiserver or the metadata endpoint is none of these. A name (an
 * FQDN slice) cannot be checked and is refused too.
 *
 * Each endpoint's `targetRef` may only name a Pod, which the translation renames to the host copy
 * of that Pod in this tenant (`endpoint-slice.ts`): a reference to another kind, or without a
 * name, is refused rather than left pointing anywhere.
 *
 * Pure: the own Pod IPs come in; without them (the host Pods could not be listed) every address
 * outside the blocks is refused, saying the check could not be made.
 */
import { isRecord } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import { addressWithin, type Cidr, canonicalAddress } from '../../policy/cidr.js';

/** Where the knob lives, for the Skips. */
const KNOB = 'spec.workloads.endpoints.cidrs';

/** The most problems one Skip names; the rest are counted. */
const NAMED = 3;

/** One endpoint address, where it is in the slice. */
interface Located {
  readonly path: string;
  readonly address: unknown;
}

function endpointsOf(slice: KubeObject): unknown[] {
  return Array.isArray(slice.endpoints) ? slice.endpoints : [];
}

/** Every address the slice's endpoints name, with where it is. */
function addressesOf(slice: KubeObject): Located[] {
  return endpointsOf(slice).flatMap((endpoint, i) =>
    isRecord(endpoint) && Array.isArray(endpoint.addresses)
      ? endpoint.addresses.map((address) => ({ path: `endpoints[${i}].addresses`, address }))
      : [],
  );
}

/**
 * The slice's addresses outside `cidrs`: those only the tenant's own Pod IPs can allow (what
 * makes the kind's turn read them).
 */
export function addressesBeyond(slice: KubeObject, cidrs: readonly Cidr[]): unknown[] {
  return addressesOf(slice)
    .map(({ address }) => address)
    .filter((address) => typeof address !== 'string' || !addressWithin(address, cidrs));
}

function addressProblem(
  { path, address }: Located,
  cidrs: readonly Cidr[],
  ownPodIps: ReadonlySet<string> | undefined,
): string | undefined {
  const quoted = JSON.stringify(address);
  const canonical = typeof address === 'string' ? canonicalAddress(address) : undefined;
  if (canonical === undefined) {
    return `${path} ${quoted} is not an IP address (an FQDN endpoint cannot be checked)`;
  }
  if (addressWithin(address as string, cidrs)) return undefined;
  if (ownPodIps === undefined) {
    return `${path} ${quoted} is outside ${KNOB}, and whether it is one of this tenant's Pod IPs could not be checked (its host Pods could not be listed)`;
  }
  if (ownPodIps.has(canonical)) return undefined;
  return `${path} ${quoted} is neither one of this tenant's Pod IPs on the host nor inside ${KNOB}`;
}

function targetRefProblem(endpoint: unknown, i: number): string | undefined {
  const ref = isRecord(endpoint) ? endpoint.targetRef : undefined;
  if (ref === undefined || ref === null) return undefined;
  const path = `endpoints[${i}].targetRef`;
  if (!isRecord(ref)) return `${path} is not an object reference`;
  if (ref.kind !== 'Pod' || (ref.apiVersion !== undefined && ref.apiVersion !== 'v1')) {
    return `${path} names a ${JSON.stringify(ref.kind)} (${JSON.stringify(ref.apiVersion ?? 'v1')}); only this tenant's Pods may be named`;
  }
  if (typeof ref.name !== 'string' || ref.name === '') return `${path} names no Pod`;
  return undefined;
}

/**
 * Why the slice's endpoints must not reach the host (see the module doc), or `undefined`:
 * the first few problems named, the rest counted.
 */
export function endpointsRefusal(
  slice: KubeObject,
  cidrs: readonly Cidr[],
  ownPodIps: ReadonlySet<string> | undefined,
): string | undefined {
  const problems = [
    ...addressesOf(slice).map((located) => addressProblem(located, cidrs, ownPodIps)),
    ...endpointsOf(slice).map(targetRefProblem),
  ].filter((problem): problem is string => problem !== undefined);
  if (problems.length === 0) return undefined;
  const more = problems.length > NAMED ? `; and ${problems.length - NAMED} more` : '';
  return `the EndpointSlice is not copied: ${problems.slice(0, NAMED).join('; ')}${more}`;
}
