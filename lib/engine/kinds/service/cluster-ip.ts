/**
 * Aligned cluster IPs (docs/names-and-addresses.md): a tenant Service's address is its host
 * copy's, so a stock DNS reading the tenant apiserver answers tenant names with addresses the host
 * serves. The host copy is created asking for the tenant's cluster IP(s) ({@link clusterIpAsk});
 * when the host refuses ({@link askRefusal}: taken there), it allocates its own and the tenant
 * Service is recreated with it (`realign.ts`). Pure.
 *
 * KEP-3070: the host keeps the lower band of its service range for static assignment. A tenant
 * address in that band is never asked for (the tenant would take an address the host's operator
 * may assign): the host allocates from its dynamic band and the tenant is realigned. A tenant
 * apiserver with the host's range allocates from the same dynamic band, so only a tenant's own
 * static choice there costs a realignment.
 */
import { isRecord } from '../../../common/index.js';
import { isClusterError, type KubeObject } from '../../../ports/index.js';
import { type Cidr, cidrContains, parseAddress, parseCidr } from '../../policy/cidr.js';

type Json = Record<string, unknown>;

/** What is known of the host's service ranges (its ServiceCIDRs), when a create needs them. */
export type ServiceRanges = { cidrs: readonly string[] } | { unreadable: string };

function specOf(service: KubeObject): Json {
  return isRecord(service.spec) ? service.spec : {};
}

/** A Service's cluster IPs: `clusterIPs`, else `clusterIP`; none for headless or unallocated. */
export function clusterIpsOf(service: KubeObject): string[] {
  const spec = specOf(service);
  const listed = Array.isArray(spec.clusterIPs)
    ? spec.clusterIPs.filter((ip): ip is string => typeof ip === 'string')
    : [];
  const ips = listed.length > 0 ? listed : [spec.clusterIP].filter((ip) => typeof ip === 'string');
  return (ips as string[]).filter((ip) => ip !== '' && ip !== 'None');
}

/**
 * Whether a tenant Service's address is the engine's to align: one with a cluster IP, not
 * headless, not ExternalName, not the tenant control plane's own `default/kubernetes`.
 */
export function alignable(service: KubeObject): boolean {
  const spec = specOf(service);
  if (spec.type === 'ExternalName' || spec.clusterIP === 'None') return false;
  const { namespace, name } = service.metadata;
  if (namespace === 'default' && name === 'kubernetes') return false;
  return clusterIpsOf(service).length > 0;
}

/**
 * How many addresses at the start of `cidr` the apiserver keeps for static assignment
 * (KEP-3070, `calculateRangeOffset`): none for a range of 16 or fewer, else a sixteenth of it,
 * at least 16 and at most 256.
 */
export function staticBandSize(cidr: Cidr): bigint {
  const size = 2n ** BigInt((cidr.family === 4 ? 32 : 128) - cidr.prefix);
  if (size <= 16n) return 0n;
  const band = size / 16n;
  return band < 16n ? 16n : band > 256n ? 256n : band;
}

/** Which of `ranges` holds `ip`, and whether `ip` is in its static band. */
export function placeIn(
  ip: string,
  ranges: readonly string[],
): { range: string; staticBand: boolean } | undefined {
  const address = parseAddress(ip);
  for (const text of ranges) {
    const cidr = parseCidr(text);
    if (!cidr || !address || !cidrContains(cidr, ip)) continue;
    // Offsets from the network address: the band's first address is the one after it.
    return { range: text, staticBand: address.value - cidr.network <= staticBandSize(cidr) };
  }
  return undefined;
}

/** The spec fields a create asks the host for: the tenant's addresses and their families. */
export type ClusterIpAsk = Json;

/**
 * What the host copy's create asks for (`ask`), or why it asks for nothing (`why`, for the
 * Create's Decision; `undefined` when there is nothing to ask: headless, ExternalName).
 */
export function clusterIpAsk(
  service: KubeObject,
  ranges: ServiceRanges | undefined,
): { ask: ClusterIpAsk } | { why: string | undefined } {
  if (!alignable(service)) return { why: undefined };
  const ips = clusterIpsOf(service);
  if (ranges === undefined) return { why: undefined };
  if ('unreadable' in ranges)
    return { why: `the host's service ranges could not be read (${ranges.unreadable})` };
  for (const ip of ips) {
    const place = placeIn(ip, ranges.cidrs);
    if (!place)
      return {
        why: `the tenant's cluster IP ${ip} is outside the host's service range (${ranges.cidrs.join(', ')})`,
      };
    if (place.staticBand)
      return {
        why: `the tenant's cluster IP ${ip} is in the band of ${place.range} the host keeps for static assignment`,
      };
  }
  const spec = specOf(service);
  const ask: Json = { clusterIP: ips[0], clusterIPs: ips };
  if (Array.isArray(spec.ipFamilies)) ask.ipFamilies = spec.ipFamilies;
  if (typeof spec.ipFamilyPolicy === 'string') ask.ipFamilyPolicy = spec.ipFamilyPolicy;
  return { ask };
}

/**
 * The host's refusal of an asked cluster IP (a 422 naming `spec.clusterIP(s)`: taken there, or
 * outside its range), in its own words; `undefined` for any other failure, which stands.
 */
export function askRefusal(error: unknown): string | undefined {
  if (!isClusterError(error, 'Invalid')) return undefined;
  return /spec\.clusterIPs?\b/.test(error.message) ? error.message : undefined;
}

/** Whether the tenant Service shows other cluster IPs than its host copy. */
export function misaligned(host: KubeObject, tenant: KubeObject): boolean {
  const want = clusterIpsOf(host);
  const have = clusterIpsOf(tenant);
  return want.length > 0 && want.join(',') !== have.join(',');
}

/** Metadata the apiserver sets: never part of a recreated object. */
const SERVER_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/**
 * The tenant Service as it is recreated: the same metadata (labels, annotations, owners) and
 * spec, with the host copy's cluster IPs and families; no status (the next status back writes
 * it). `generateName` set and the name dropped makes the dry run that checks it first.
 */
export function realignedService(tenant: KubeObject, host: KubeObject): KubeObject {
  const metadata: Json = { ...tenant.metadata };
  for (const field of SERVER_METADATA) delete metadata[field];
  const hostSpec = specOf(host);
  const spec: Json = { ...specOf(tenant), clusterIP: hostSpec.clusterIP };
  spec.clusterIPs = clusterIpsOf(host);
  if (hostSpec.ipFamilies !== undefined) spec.ipFamilies = hostSpec.ipFamilies;
  const { status: _status, ...rest } = tenant;
  return { ...rest, metadata: metadata as KubeObject['metadata'], spec };
}
