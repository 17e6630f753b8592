/**
 * The tenant's words for a host refusal. The host apiserver's error bodies name what the tenant
 * must never see: the host namespace, the host Pod's name, the identity the gateway calls the
 * host as (`pods "web-x-apps-x-dev" is forbidden: User "tenantplane-sync-dev" cannot create
 * resource "pods/exec" ... in the namespace "tenant-dev"`). So no byte of a host error body is
 * relayed: the answer is written anew from the status and the request, naming the tenant's Pod
 * (`namespace/name`) and container, with the few kubelet details that name nothing of the host
 * (a container waiting to start, and why). A Kubernetes `Status` body stays a `Status` (kubectl
 * reads its message), anything else becomes text, as a kubelet answers. Pure.
 */
import type { KubeletRequest } from './routes.js';

/** A rewritten answer: what the tenant apiserver gets instead of the host's. */
export interface TenantError {
  status: number;
  contentType: string;
  body: string;
}

const VERBS: Readonly<Record<KubeletRequest['action'], string>> = {
  logs: 'read the logs of',
  exec: 'exec into',
  attach: 'attach to',
  portforward: 'forward a port of',
};

/** `container "c" of pod ns/name`, or `pod ns/name` (port-forward names no container). */
export function tenantTarget(request: KubeletRequest): string {
  const pod = `pod ${request.namespace}/${request.pod}`;
  return request.container === undefined ? pod : `container "${request.container}" of ${pod}`;
}

/** The answer for a container the tenant Pod does not have. */
export function noSuchContainer(request: KubeletRequest): string {
  return `not found: pod ${request.namespace}/${request.pod} has no container "${request.container ?? ''}"`;
}

/** Kubelet details worth keeping, recognised and re-said; nothing of the host text is copied. */
function detail(status: number, hostText: string, request: KubeletRequest): string | undefined {
  const target = tenantTarget(request);
  const waiting = hostText.match(/is waiting to start: ([A-Za-z]+)/);
  if (waiting) return `${target} is waiting to start: ${waiting[1]}`;
  if (/previous terminated container/.test(hostText)) {
    return `no previous terminated instance of ${target}`;
  }
  if (/is terminated/.test(hostText)) return `${target} is terminated`;
  if (
    /not valid for pod|not found in pod|does not have a container|container not found/.test(
      hostText,
    )
  ) {
    return noSuchContainer(request);
  }
  if (status === 400 && /does not have a host assigned|not running|not ready/i.test(hostText)) {
    return `${target} is not running`;
  }
  return undefined;
}

/** The Kubernetes reason of a status the tenant gets. */
function reasonOf(status: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
  };
  return reasons[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest');
}

/** The tenant-facing status and message of a host refusal with `status` and body text. */
export function tenantMessage(
  status: number,
  hostText: string,
  request: KubeletRequest,
): { status: number; message: string } {
  const verb = VERBS[request.action];
  const target = tenantTarget(request);
  // The host refusing the gateway's own credentials is the gateway's fault, not the tenant's.
  if (status === 401) {
    return { status: 502, message: `the kubelet gateway could not ${verb} ${target}` };
  }
  const known = detail(status, hostText, request);
  if (status === 403) {
    // `forbidden` in the text itself: kubectl exec shows only the text of a failed upgrade.
    return {
      status,
      message: `forbidden: the host cluster does not let the kubelet gateway ${verb} ${target}`,
    };
  }
  if (status === 404) return { status, message: known ?? `not found: ${target}` };
  if (known) return { status, message: known };
  return { status, message: `the host cluster could not ${verb} ${target} (${status})` };
}

/** Whether a host body is a Kubernetes `Status` object. */
function isStatusBody(contentType: string | undefined, body: string): boolean {
  if (!contentType?.includes('json')) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { kind?: unknown }).kind === 'Status'
    );
  } catch {
    return false;
  }
}

/**
 * The answer that replaces a host refusal (`status`, its content type and body): a `Status`
 * for a `Status`, else text. `asText` forces text (a kubelet's logs errors are text, and the
 * tenant apiserver quotes the body whole).
 */
export function rewriteHostError(
  status: number,
  contentType: string | undefined,
  hostBody: string,
  request: KubeletRequest,
  asText = false,
): TenantError {
  const rewritten = tenantMessage(status, hostBody, request);
  if (!asText && isStatusBody(contentType, hostBody)) {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: rewritten.message,
      reason: reasonOf(rewritten.status),
      code: rewritten.status,
    });
    return { status: rewritten.status, contentType: 'application/json', body };
  }
  return {
    status: rewritten.status,
    contentType: 'text/plain; charset=utf-8',
    body: `${rewritten.message}\n`,
  };
}
