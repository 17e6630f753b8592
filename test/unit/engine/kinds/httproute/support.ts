/**
 * Shared by the route translator tests (HTTPRoute, GRPCRoute, TLSRoute: the route rules of
 * `kinds/httproute/route.ts`): a route of tenant `dev` and its translation under a
 * `spec.workloads.gateways` policy, with the host namespace's hostname claims as given.
 */
import { expect } from '@jest/globals';
import type { HostClaim } from '../../../../../lib/engine/kinds/frame/host-claims.js';
import { type Translation, translate } from '../../../../../lib/engine/kinds/registry.js';
import { parseIsolation } from '../../../../../lib/engine/policy/isolation.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

export const GATEWAY_API = 'gateway.networking.k8s.io/v1';
/** The host Gateway the routes attach to. */
export const PARENT = { name: 'shared', namespace: 'gateways' };
export const HOST_SUFFIXES = ['.apps.example.com'];

/** Route `web` of kind `kind` in tenant namespace `shop`, with the given spec. */
export function routeObject(kind: string, spec: Record<string, unknown>): KubeObject {
  return tenantObject(GATEWAY_API, kind, { spec });
}

/**
 * A route's translation under `spec.workloads.gateways` = `limits` (by default `gateways`); the
 * host's claims as given (`null`: they were not read).
 */
export type RouteTranslation = (
  object: KubeObject,
  claims?: ReadonlyMap<string, HostClaim> | null,
  limits?: Record<string, unknown>,
) => Translation;

/** The translation of routes under the gateways policy `gateways` (which must parse). */
export function routeTranslator(gateways: Record<string, unknown>): RouteTranslation {
  return (object, claims = new Map(), limits = gateways) => {
    const problems: string[] = [];
    const isolation = parseIsolation({ gateways: limits }, false, problems);
    expect(problems).toEqual([]);
    return translate(object, {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: { isolation },
      ...(claims ? { routeHosts: claims } : {}),
    });
  };
}
