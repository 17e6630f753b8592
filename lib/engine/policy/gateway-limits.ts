/**
 * `spec.workloads.gateways`: what a tenant's Gateway API routes may claim on the host. A host
 * Gateway is shared by every tenant whose routes attach to it, with the host's authority: the
 * Gateways a route may name are the operator's to hand out, and the hostnames it may serve are
 * under the operator's suffixes, as for Ingresses (docs/gateway-api.md).
 */
import { isRecord } from '../../common/index.js';
import { isDnsSubdomain } from './workload-scheduling.js';

/** A host Gateway (optionally one of its listeners) a tenant's routes may attach to. */
export interface GatewayParent {
  /** The Gateway's host namespace. */
  readonly namespace: string;
  /** The Gateway's name. */
  readonly name: string;
  /** Only this listener of it (`parentRefs[].sectionName` must name it); absent: any. */
  readonly sectionName?: string;
}

/** What a tenant's routes may claim on the host's Gateways. */
export interface GatewayLimits {
  /** The host Gateways a route's `parentRefs` may name; default none (a route is refused). */
  readonly parents: readonly GatewayParent[];
  /** Hostnames allowed, exact or suffixes starting with a dot; default none. */
  readonly hostSuffixes: readonly string[];
}

/** The narrowest limits: no Gateway, no hostname. */
export const NO_GATEWAY_LIMITS: GatewayLimits = Object.freeze({ parents: [], hostSuffixes: [] });

const PATH = 'spec.workloads.gateways';

function parent(value: unknown, at: string, problems: string[]): GatewayParent | undefined {
  if (!isRecord(value)) {
    problems.push(`${at} must be an object with namespace, name and an optional sectionName`);
    return undefined;
  }
  const { namespace, name, sectionName } = value;
  const named = (v: unknown) => typeof v === 'string' && isDnsSubdomain(v);
  if (!named(namespace) || !named(name)) {
    problems.push(`${at} must name a Gateway: namespace and name`);
    return undefined;
  }
  if (sectionName !== undefined && (typeof sectionName !== 'string' || sectionName === '')) {
    problems.push(`${at}.sectionName must be a listener name`);
    return undefined;
  }
  return {
    namespace: namespace as string,
    name: name as string,
    ...(sectionName === undefined ? {} : { sectionName }),
  };
}

/** Parses `spec.workloads.gateways` (`section`, already an object); problems go to `problems`. */
export function parseGatewayLimits(
  section: Record<string, unknown>,
  problems: string[],
): GatewayLimits {
  const parents: GatewayParent[] = [];
  if (section.parents !== undefined) {
    if (Array.isArray(section.parents)) {
      section.parents.forEach((value, i) => {
        const parsed = parent(value, `${PATH}.parents[${i}]`, problems);
        if (parsed) parents.push(parsed);
      });
    } else problems.push(`${PATH}.parents must be a list of Gateways`);
  }
  const { hostSuffixes } = section;
  let suffixes: string[] = [];
  if (hostSuffixes !== undefined) {
    if (Array.isArray(hostSuffixes) && hostSuffixes.every((s) => typeof s === 'string' && s)) {
      suffixes = [...(hostSuffixes as string[])];
    } else problems.push(`${PATH}.hostSuffixes must be a list of non-empty strings`);
  }
  return { parents, hostSuffixes: suffixes };
}
