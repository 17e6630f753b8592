/**
 * TLSRoutes (Gateway API, `gateway.networking.k8s.io/v1`, standard since v1.5): a TLS passthrough
 * or terminated stream routed by SNI. Its fields are a subset of the other routes' (parents,
 * hostnames, rules' backends), so it takes the route rules of every route kind
 * (`../httproute/route.ts`): parents only the host Gateways the policy lists, backends only the
 * host copies of Services of its own namespace, hostnames (the SNI names it claims) under the
 * policy's suffixes and not claimed first by another TLSRoute of the host namespace.
 */
import type { KindRef } from '../../../ports/index.js';
import type { KindModule } from '../frame/kind-module.js';
import type { RouteFacts } from '../httproute/facts.js';
import { routeModule } from '../httproute/route.js';

/** The TLSRoute kind, `gateway.networking.k8s.io/v1`. */
export const TLS_ROUTE = Object.freeze({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'TLSRoute',
} as const satisfies KindRef);

/** TLSRoutes: their parents, backends and hostnames checked, their status back. */
export const TLS_ROUTE_MODULE: KindModule<RouteFacts> = routeModule(TLS_ROUTE);
