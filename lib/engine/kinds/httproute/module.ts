/**
 * HTTPRoutes (Gateway API, `gateway.networking.k8s.io/v1`): copied into the host namespace to
 * attach to the host Gateways the policy hands out, by the route rules every route kind shares
 * (`route.ts`, `route-refs.ts`).
 */
import type { KindRef } from '../../../ports/index.js';
import type { KindModule } from '../frame/kind-module.js';
import type { RouteFacts } from './facts.js';
import { routeModule } from './route.js';

/** The HTTPRoute kind, `gateway.networking.k8s.io/v1`. */
export const HTTP_ROUTE = Object.freeze({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
} as const satisfies KindRef);

/** HTTPRoutes: their parents, backends and hostnames checked, their status back. */
export const HTTP_ROUTE_MODULE: KindModule<RouteFacts> = routeModule(HTTP_ROUTE);
