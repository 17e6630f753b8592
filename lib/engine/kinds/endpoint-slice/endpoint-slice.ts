/**
 * The EndpointSlice translator, for Services without a selector: their endpoints are whatever the
 * tenant writes (directly, or as Endpoints its mirroring controller turns into slices), so those
 * slices are synced. On the host a slice belongs to its Service by the `kubernetes.io/service-name`
 * label, which therefore names the Service's host copy (hashed names included), and each
 * endpoint's `targetRef` names the host copy of what it points at. Slices the tenant's
 * EndpointSlice controller made for a Service with a selector are not synced: the host's own
 * controller makes that Service's slices from the host Pods the scoped selector picks. A slice
 * naming an address that is neither the tenant's own Pod's nor allowed by the policy, or a
 * reference to anything but a Pod, is refused (`endpoint-addresses.ts`).
 */
import { isRecord } from '../../../common/index.js';
import { ENDPOINT_SLICE, type KubeObject, SERVICE } from '../../../ports/index.js';
import {
  ENDPOINT_SLICE_CONTROLLER,
  ENDPOINT_SLICE_MANAGER,
  KubernetesKeys,
} from '../../names/metadata.js';
import { hostName } from '../../names/naming.js';
import { isolationOf } from '../../policy/workloads.js';
import type { KindTranslator, ObjectReference, TranslateTarget } from '../frame/translator.js';
import { endpointsRefusal } from './endpoint-addresses.js';
import type { EndpointSliceFacts } from './facts.js';

function serviceOf(object: KubeObject): string | undefined {
  const name = object.metadata.labels?.[KubernetesKeys.ServiceName];
  return name === undefined || name === '' ? undefined : name;
}

/** Whether the tenant's EndpointSlice controller made the slice (for a Service with a selector). */
export function madeByTenantController(source: KubeObject): boolean {
  return (
    source.metadata.labels?.[KubernetesKeys.EndpointSliceManagedBy] === ENDPOINT_SLICE_CONTROLLER
  );
}

/**
 * Why a slice stays in the tenant: the tenant's EndpointSlice controller made it, or its
 * endpoints reach beyond the tenant (`endpoint-addresses.ts`, with the own Pod IPs the kind's turn
 * read into `target`).
 */
export function endpointSliceRefusal(
  source: KubeObject,
  target: TranslateTarget<EndpointSliceFacts>,
): string | undefined {
  if (madeByTenantController(source)) {
    return `made by the tenant's EndpointSlice controller for a Service with a selector; the host's controller makes that Service's slices from the host Pods it selects`;
  }
  const { cidrs } = isolationOf(target.workloads).endpoints;
  return endpointsRefusal(source, cidrs, target.ownPodIps);
}

/**
 * The host slice: tied to the Service's host copy, managed by tenantplane (a host controller
 * deletes slices that carry its own name and that it did not make), target references renamed
 * into the host namespace and stripped of the tenant's uid and resourceVersion.
 */
export function endpointSliceToHost(
  object: KubeObject,
  target: TranslateTarget<EndpointSliceFacts>,
): KubeObject {
  const labels = { ...object.metadata.labels };
  const service = serviceOf(target.source);
  if (service !== undefined) {
    labels[KubernetesKeys.ServiceName] = hostName(service, target.virtualNamespace, target.tenant);
  }
  labels[KubernetesKeys.EndpointSliceManagedBy] = ENDPOINT_SLICE_MANAGER;
  object.metadata.labels = labels;
  if (Array.isArray(object.endpoints)) {
    for (const endpoint of object.endpoints) {
      const ref = isRecord(endpoint) ? endpoint.targetRef : undefined;
      if (!isRecord(ref) || typeof ref.name !== 'string') continue;
      // Any namespace of the tenant; none (or an empty one) is the slice's own.
      const namespace =
        typeof ref.namespace === 'string' && ref.namespace !== ''
          ? ref.namespace
          : target.virtualNamespace;
      ref.name = hostName(ref.name, namespace, target.tenant);
      ref.namespace = target.hostNamespace;
      delete ref.uid;
      delete ref.resourceVersion;
    }
  }
  return object;
}

/** The slice's Service: it must be synced first (a slice of a Service the host lacks serves nothing). */
export function endpointSliceReferences(source: KubeObject): ObjectReference[] {
  const service = serviceOf(source);
  if (service === undefined) return [];
  return [
    {
      ...SERVICE,
      name: service,
      path: `metadata.labels[${KubernetesKeys.ServiceName}]`,
      optional: false,
    },
  ];
}

/** EndpointSlices of Services without a selector: tied to the Service's host copy. */
export const ENDPOINT_SLICE_TRANSLATOR: KindTranslator<EndpointSliceFacts> = {
  kind: ENDPOINT_SLICE,
  referencedKinds: [SERVICE],
  refusal: endpointSliceRefusal,
  toHost: endpointSliceToHost,
  references: endpointSliceReferences,
};
