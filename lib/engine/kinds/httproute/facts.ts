/** What a Gateway API route kind's turn reads for its translator (`route.ts`). */
import type { HostClaim } from '../frame/host-claims.js';

/** A route's facts (`HostFacts` of `../frame/translator.ts`). */
export interface RouteFacts {
  /**
   * The hostnames the routes of the same kind in the host namespace name (`spec.hostnames`,
   * lowercase), each with when this tenant's copies and any other route there first claimed it
   * (`../frame/host-claims.ts`): a hostname another claimed first is refused.
   */
  routeHosts?: ReadonlyMap<string, HostClaim>;
}
