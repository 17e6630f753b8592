/**
 * A Gateway API route (HTTPRoute, GRPCRoute): the translation and the module every route kind
 * shares, given its kind. What a route refers to is `route-refs.ts`; its hostnames must be
 * allowed by `spec.workloads.gateways.hostSuffixes` and not claimed first by another route of its
 * kind in the host namespace (`../frame/host-claims.ts`); a route without hostnames would answer
 * for every hostname of the listener it attaches to, other tenants' included: refused. The host
 * gateway controller's status (`status.parents[]`: Accepted, ResolvedRefs) comes back with each
 * parent as the tenant wrote it.
 */
import { isRecord } from '../../../common/index.js';
import { type KindRef, type KubeObject, SERVICE } from '../../../ports/index.js';
import { hostName } from '../../names/naming.js';
import { allowedName } from '../../policy/isolation.js';
import { isolationOf } from '../../policy/workloads.js';
import { type NamedHost, readHostClaims, takenBy } from '../frame/host-claims.js';
import type { KindModule } from '../frame/kind-module.js';
import { statusBackTurn } from '../frame/status-back.js';
import type { StatusBackRule } from '../frame/status-patch.js';
import type { KindTranslator, ObjectReference, TranslateTarget } from '../frame/translator.js';
import type { RouteFacts } from './facts.js';
import {
  backendRefsOf,
  backendRefusal,
  filterRefusal,
  parentKey,
  parentRefsOf,
  parentRefusal,
  unknownFieldRefusal,
} from './route-refs.js';

const KNOB = 'spec.workloads.gateways';

/** Every hostname a route spec names (`spec.hostnames[]`). */
export function routeHostnames(spec: unknown): NamedHost[] {
  if (!isRecord(spec) || !Array.isArray(spec.hostnames)) return [];
  return spec.hostnames.flatMap((host, i) =>
    typeof host === 'string' && host !== '' ? [{ host, path: `spec.hostnames[${i}]` }] : [],
  );
}

function hostnameRefusal(
  source: KubeObject,
  target: TranslateTarget<RouteFacts>,
  suffixes: readonly string[],
): string | undefined {
  const hosts = routeHostnames(source.spec);
  if (hosts.length === 0) {
    return `spec.hostnames is empty, so the route would answer for every hostname of the Gateway listener it attaches to, other tenants' included; list its hostnames`;
  }
  const allowed = suffixes.length === 0 ? 'none' : suffixes.join(', ');
  for (const { host, path } of hosts) {
    if (!allowedName(host, suffixes)) {
      return `${path} "${host}" is not a hostname the policy allows (${KNOB}.hostSuffixes: ${allowed})`;
    }
  }
  const claims = target.routeHosts;
  if (claims === undefined) {
    return `the host namespace's ${source.kind}s were not read, so whether another serves its hostnames is not known`;
  }
  for (const { host, path } of hosts) {
    const taken = takenBy(host, claims, source.kind);
    if (taken !== undefined) return `${path} "${host}" ${taken}`;
  }
  return undefined;
}

/** Why a tenant route must not go to the host (see the file's and `route-refs.ts`'s comments). */
export function routeRefusal(
  source: KubeObject,
  target: TranslateTarget<RouteFacts>,
): string | undefined {
  const unknown = unknownFieldRefusal(source.spec);
  if (unknown !== undefined) return unknown;
  const limits = isolationOf(target.workloads).gateways;
  const vns = target.virtualNamespace;
  for (const parent of parentRefsOf(source.spec)) {
    const refused = parentRefusal(parent, vns, limits);
    if (refused !== undefined) return refused;
  }
  for (const backend of backendRefsOf(source.spec)) {
    const refused = backendRefusal(backend, vns);
    if (refused !== undefined) return refused;
  }
  return filterRefusal(source.spec) ?? hostnameRefusal(source, target, limits.hostSuffixes);
}

/** The host route: each parent with its Gateway's namespace, each backend the Service's copy. */
export function routeToHost(object: KubeObject, target: TranslateTarget<RouteFacts>): KubeObject {
  const vns = target.virtualNamespace;
  for (const { ref } of parentRefsOf(object.spec)) {
    if (typeof ref.namespace !== 'string') ref.namespace = vns;
  }
  for (const { ref } of backendRefsOf(object.spec)) {
    if (typeof ref.name === 'string') ref.name = hostName(ref.name, vns, target.tenant);
    delete ref.namespace;
  }
  return object;
}

/** The Services a route's backends name, all optional (the Gateway reports them unresolved). */
export function routeReferences(source: KubeObject): ObjectReference[] {
  return backendRefsOf(source.spec).flatMap(({ ref, path }) =>
    typeof ref.name === 'string' ? [{ ...SERVICE, name: ref.name, path, optional: true }] : [],
  );
}

/**
 * The host route's status in tenant names: each `status.parents[]` entry whose `parentRef` is
 * one of the tenant's parents (as translated) carries that parent as the tenant wrote it; an
 * entry about no parent of the tenant's (one the host's controller left behind) is left out.
 */
export function routeStatusToTenant(
  hostStatus: Record<string, unknown>,
  tenant: KubeObject,
): Record<string, unknown> {
  const vns = tenant.metadata.namespace ?? '';
  const byKey = new Map(parentRefsOf(tenant.spec).map(({ ref }) => [parentKey(ref, vns), ref]));
  const hostParents = Array.isArray(hostStatus.parents) ? hostStatus.parents : [];
  const parents = hostParents.flatMap((entry) => {
    if (!isRecord(entry) || !isRecord(entry.parentRef)) return [];
    const written = byKey.get(parentKey(entry.parentRef, ''));
    return written ? [{ ...entry, parentRef: structuredClone(written) }] : [];
  });
  return { ...hostStatus, parents };
}

/** The translator of route kind `kind`. */
export function routeTranslator(kind: KindRef): KindTranslator<RouteFacts> {
  return {
    kind,
    referencedKinds: [SERVICE],
    refusal: routeRefusal,
    toHost: routeToHost,
    references: routeReferences,
  };
}

/**
 * The module of route kind `kind`: the translator, its status back (the parents' conditions;
 * not waited for: a host without a controller for the Gateway never writes any), and the turn,
 * which reads who claimed which hostname in the host namespace for the translator.
 */
export function routeModule(kind: KindRef): KindModule<RouteFacts> {
  const status: StatusBackRule = {
    kind,
    fields: ['parents'],
    settled: () => true,
    toTenant: routeStatusToTenant,
  };
  const why = `the hostnames other ${kind.kind}s serve could not be read, so no ${kind.kind} was synced`;
  return {
    kind,
    translator: routeTranslator(kind),
    statusBack: status,
    hostView: 'status',
    startKind: (ctx, compiled) => {
      const read = readHostClaims(ctx, kind, (route) => routeHostnames(route.spec), why);
      return {
        ...statusBackTurn(ctx, compiled, status),
        hostFacts: async (tenantObjects) => {
          const claims = await read(tenantObjects);
          return claims && { routeHosts: claims };
        },
      };
    },
  };
}
