/**
 * The check before anything is relayed: the host Pod is this tenant's copy of the Pod asked for,
 * and the container asked for is one of the tenant Pod's own. Tied to the client: a client gone
 * during the check cancels the host request at once.
 */
import { hostName, recordedTenantContainers, reverseLookup } from '../engine/index.js';
import type { GatewayTenant } from './config.js';
import { noSuchContainer, tenantTarget } from './host-errors.js';
import type { KubeletRequest } from './routes.js';
import { HostStatusError } from './upstream.js';

/** How long the check of the host Pod may take. */
const CHECK_TIMEOUT_MS = 10_000;

/** The check's outcome: the host Pod to relay to, or the status that refuses the request. */
export type Access = { hostPod: string } | { status: number; message: string };

/**
 * Whether `tenant` may reach Pod `request.namespace/request.pod` on the host: its host copy (by
 * the naming function, in the tenant's host namespace) exists and its reverse mapping names this
 * tenant, namespace and name. Anything else is 403 with one message: a missing copy and a name
 * held by another tenant's Pod or a foreign object answer alike, so a certificate learns nothing
 * about Pods that are not its tenant's (not even whether they exist). Then the container: only
 * one the tenant Pod's spec declares (recorded on the copy), never one a host webhook added; any
 * other is 404, as a kubelet answers a container it does not have. `gone` aborts the host request
 * (the client left); the answer then no longer matters.
 */
export async function checkAccess(
  tenant: GatewayTenant,
  request: KubeletRequest,
  gone: AbortSignal = new AbortController().signal,
): Promise<Access> {
  const hostPod = hostName(request.pod, request.namespace, tenant.name);
  const path = `/api/v1/namespaces/${tenant.hostNamespace}/pods/${hostPod}`;
  let pod: Awaited<ReturnType<GatewayTenant['host']['getJson']>>;
  try {
    const signal = AbortSignal.any([gone, AbortSignal.timeout(CHECK_TIMEOUT_MS)]);
    pod = await tenant.host.getJson(path, signal);
  } catch (error) {
    const status = error instanceof HostStatusError ? error.status : 0;
    return {
      status: 502,
      message: `the host apiserver could not be asked (${status || 'no answer'})`,
    };
  }
  const source = pod ? reverseLookup(pod) : undefined;
  const same =
    source?.tenant === tenant.name &&
    source.kind === 'Pod' &&
    source.virtualNamespace === request.namespace &&
    source.virtualName === request.pod;
  if (!pod || !same) return { status: 403, message: forbidden(request) };
  if (request.container !== undefined) {
    const containers = recordedTenantContainers(pod);
    if (!containers) {
      return {
        status: 404,
        message: `not found: ${tenantTarget(request)}: the pod's containers are not recorded yet (a full sync pass records them)`,
      };
    }
    if (!containers.has(request.container)) {
      return { status: 404, message: noSuchContainer(request) };
    }
  }
  return { hostPod };
}

/**
 * The one refusal of a Pod the tenant cannot reach, whatever the reason. It says `forbidden` in
 * its text because kubectl shows only the text of a failed upgrade (`kubectl exec`: "unable to
 * upgrade connection: <text>"), not its status; `kubectl logs` shows the status too.
 */
function forbidden(request: KubeletRequest): string {
  return `forbidden: the kubelet gateway serves no pod ${request.namespace}/${request.pod} of this tenant`;
}
