/**
 * GRPCRoutes (Gateway API, `gateway.networking.k8s.io/v1`): the route rules of every route kind
 * (`../httproute/route.ts`: parents only the host Gateways the policy lists, backends only the
 * host copies of Services of the route's own namespace, hostnames under the policy's suffixes and
 * not claimed first by another GRPCRoute of the host namespace), status back in tenant names.
 */
import type { KindRef } from '../../../ports/index.js';
import type { KindModule } from '../frame/kind-module.js';
import type { RouteFacts } from '../httproute/facts.js';
import { routeModule } from '../httproute/route.js';

/** The GRPCRoute kind, `gateway.networking.k8s.io/v1`. */
export const GRPC_ROUTE = Object.freeze({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'GRPCRoute',
} as const satisfies KindRef);

/** GRPCRoutes: their parents, backends and hostnames checked, their status back. */
export const GRPC_ROUTE_MODULE: KindModule<RouteFacts> = routeModule(GRPC_ROUTE);
