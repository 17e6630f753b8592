/**
 * The EndpointSlice's module: the endpoints a selector-less Service is given by hand, each address
 * checked against `spec.workloads.endpoints.cidrs` and the tenant's own Pod IPs, which the kind's
 * turn reads (`own-pod-ips.ts`).
 */
import type { KindModule } from '../frame/kind-module.js';
import { ENDPOINT_SLICE_TRANSLATOR } from './endpoint-slice.js';
import type { EndpointSliceFacts } from './facts.js';
import { endpointSliceTurn } from './own-pod-ips.js';

/** EndpointSlices: the translator, and the turn that reads the tenant's own Pod IPs for it. */
export const ENDPOINT_SLICE_MODULE: KindModule<EndpointSliceFacts> = {
  kind: ENDPOINT_SLICE_TRANSLATOR.kind,
  translator: ENDPOINT_SLICE_TRANSLATOR,
  startKind: endpointSliceTurn,
};
