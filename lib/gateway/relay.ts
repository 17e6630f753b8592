/**
 * Relaying one kubelet request of a tenant to the host apiserver: first the check that the host
 * Pod is this tenant's copy of the Pod asked for, then the logs (a streamed GET) or the upgraded
 * connection (exec, attach, port-forward), byte for byte. The upgrade is the client's own: its
 * `Upgrade`, `Sec-WebSocket-*` (or SPDY's `X-Stream-Protocol-Version`) headers go to the host
 * apiserver unchanged and its `101` comes back unchanged, so the subprotocol (v5.channel.k8s.io,
 * SPDY/3.1+portforward.k8s.io, ...) is negotiated end to end and every frame passes as it is.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostName, reverseLookup } from '../engine/index.js';
import type { GatewayTenant } from './config.js';
import { hostPath, type KubeletRequest } from './routes.js';
import type { Stream } from './streams.js';
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
 * about Pods that are not its tenant's (not even whether they exist).
 */
export async function checkAccess(tenant: GatewayTenant, request: KubeletRequest): Promise<Access> {
  const hostPod = hostName(request.pod, request.namespace, tenant.name);
  const path = `/api/v1/namespaces/${tenant.hostNamespace}/pods/${hostPod}`;
  let pod: Awaited<ReturnType<GatewayTenant['host']['getJson']>>;
  try {
    pod = await tenant.host.getJson(path, AbortSignal.timeout(CHECK_TIMEOUT_MS));
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
  if (!same) return { status: 403, message: forbidden(request) };
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

/** Writes a plain-text refusal (a kubelet answers errors as text). */
export function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${message}\n`);
}

/** The same refusal on a socket that asked for an upgrade. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${statusText(status)}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function statusText(status: number): string {
  const texts: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found' };
  return texts[status] ?? (status === 429 ? 'Too Many Requests' : 'Bad Gateway');
}

/** Streams the host's log of `hostPod` to `res` within `stream`. */
export async function relayLogs(
  tenant: GatewayTenant,
  request: KubeletRequest,
  hostPod: string,
  res: ServerResponse,
  stream: Stream,
): Promise<void> {
  holdDownstream(stream, res);
  res.on('close', () => stream.end(res.writableFinished ? 'done' : 'downstream-closed'));
  const up = await tenant.host.request('GET', hostPath(request, tenant.hostNamespace, hostPod));
  stream.hold(up);
  up.on('response', (hostRes) => {
    stream.hold(hostRes);
    const type = hostRes.headers['content-type'];
    res.writeHead(hostRes.statusCode ?? 502, type ? { 'content-type': type } : {});
    hostRes.on('data', () => stream.touch());
    hostRes.on('error', () => stream.end('upstream-closed'));
    hostRes.on('aborted', () => stream.end('upstream-closed'));
    hostRes.pipe(res);
  });
  up.on('error', () => {
    if (!res.headersSent) refuse(res, 502, 'the host apiserver could not be reached');
    stream.end('error');
  });
  up.end();
}

/** The most of a host error answer relayed on a failed upgrade. */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Holds the downstream side: closed when the stream ends unless it was already ended gracefully
 * (its last bytes, an error answer say, are then left to flush).
 */
function holdDownstream(stream: Stream, side: { writableEnded: boolean; destroy(): void }): void {
  stream.hold({ destroy: () => (side.writableEnded ? undefined : side.destroy()) });
}

/** The headers of an upgrade request the host apiserver gets as the client sent them. */
const UPGRADE_HEADERS = /^(upgrade|connection|sec-websocket-.*|x-stream-protocol-version)$/;

function upgradeHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => UPGRADE_HEADERS.test(k)));
}

/** The status line and headers of `res`, as they came. */
function head(res: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${res.statusCode} ${res.statusMessage ?? ''}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Relays the upgrade `req` (on `socket`, with its first bytes `early`) to the host's `hostPod`. */
export async function relayUpgrade(
  tenant: GatewayTenant,
  request: KubeletRequest,
  hostPod: string,
  req: IncomingMessage,
  socket: Duplex,
  early: Buffer,
  stream: Stream,
): Promise<void> {
  holdDownstream(stream, socket);
  socket.on('close', () => stream.end('downstream-closed'));
  socket.on('error', () => stream.end('error'));
  const path = hostPath(request, tenant.hostNamespace, hostPod);
  const up = await tenant.host.request(req.method ?? 'GET', path, upgradeHeaders(req.headers));
  stream.hold(up);
  up.on('upgrade', (hostRes, hostSocket, hostEarly) => {
    stream.hold(hostSocket);
    hostSocket.on('close', () => stream.end('upstream-closed'));
    hostSocket.on('error', () => stream.end('error'));
    socket.write(head(hostRes));
    if (hostEarly.length > 0) socket.write(hostEarly);
    if (early.length > 0) hostSocket.write(early);
    for (const side of [socket, hostSocket]) side.on('data', () => stream.touch());
    socket.pipe(hostSocket);
    hostSocket.pipe(socket);
  });
  up.on('response', async (hostRes) => {
    // No upgrade (an error of the host apiserver): its status and message go back, then the end.
    stream.hold(hostRes);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of hostRes) {
      size += (chunk as Buffer).length;
      if (size <= MAX_ERROR_BYTES) chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const type = hostRes.headers['content-type'] ?? 'text/plain';
    socket.write(
      `HTTP/1.1 ${hostRes.statusCode} ${hostRes.statusMessage ?? ''}\r\ncontent-type: ${type}\r\n` +
        `content-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    );
    socket.end(body);
    stream.end('done');
  });
  up.on('error', () => {
    if (!stream.isEnded) refuseUpgrade(socket, 502, 'the host apiserver could not be reached');
    stream.end('error');
  });
  up.end();
}
