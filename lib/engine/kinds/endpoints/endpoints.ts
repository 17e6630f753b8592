/**
 * The core Endpoints translator: never written to the host. Endpoints share their Service's name,
 * so a copy would be named exactly like the Endpoints the host's own endpoints controller keeps
 * for the Service's host copy (a Service with a selector): the two would fight over it. The
 * endpoints of a Service without a selector reach the host as EndpointSlices instead
 * (`../endpoint-slice/endpoint-slice.ts`): the tenant's EndpointSlice mirroring controller turns its Endpoints into
 * slices, and a pass syncs those, each address checked like any slice's (`../endpoint-slice/endpoint-addresses.ts`):
 * no Endpoints reach the host to point anywhere. (Endpoints are deprecated since Kubernetes 1.33.)
 */
import { ENDPOINTS } from '../../../ports/index.js';
import type { KindTranslator } from '../frame/translator.js';

/** Why every Endpoints object stays in the tenant. */
export const ENDPOINTS_REFUSAL =
  'core Endpoints are not synced: a copy would take the name of the Endpoints the host keeps for the Service; add EndpointSlice (discovery.k8s.io/v1) to toHost instead, the tenant mirrors Endpoints of Services without a selector into slices';

/** Endpoints: each is a Skip that says to sync EndpointSlices. */
export const ENDPOINTS_TRANSLATOR: KindTranslator = {
  kind: ENDPOINTS,
  refusal: () => ENDPOINTS_REFUSAL,
  toHost: (object) => object,
};
