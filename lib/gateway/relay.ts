/**
 * Relaying one kubelet request of a tenant to the host apiserver, once the check (`access.ts`)
 * passed: the logs (a streamed GET) or the upgraded connection (exec, attach, port-forward), byte
 * for byte. The upgrade is the client's own: its `Upgrade`, `Sec-WebSocket-*` (or SPDY's
 * `X-Stream-Protocol-Version`) headers go to the host apiserver unchanged and its `101` comes back
 * unchanged, so the subprotocol (v5.channel.k8s.io, SPDY/3.1+portforward.k8s.io, ...) is
 * negotiated end to end and every frame passes as it is. A host refusal is never relayed as it
 * is: its body names the host's namespace, Pod and user (`host-errors.ts`).
 *
 * Both sides belong to the stream: the client gone ends it (the caller ties it to the client's
 * signal), the host side ending ends it, and ending it closes both, once.
 */
import type {
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayTenant } from './config.js';
import { rewriteHostError } from './host-errors.js';
import { hostPath, type KubeletRequest } from './routes.js';
import type { Stream } from './streams.js';

export { type Access, checkAccess } from './access.js';

/** Writes a plain-text refusal (a kubelet answers errors as text). */
export function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${message}\n`);
}

/** A whole answer on a socket that asked for an upgrade, then its end. */
function answerUpgrade(socket: Duplex, status: number, type: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${statusText(status)}\r\ncontent-type: ${type}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The same refusal on a socket that asked for an upgrade. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  answerUpgrade(socket, status, 'text/plain; charset=utf-8', `${message}\n`);
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    503: 'Service Unavailable',
  };
  return texts[status] ?? 'Bad Gateway';
}

/** The most of a host error answer read (it is rewritten, never relayed). */
const MAX_ERROR_BYTES = 64 * 1024;

/** The start of a host answer's body, as text (bounded). */
async function bodyText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size <= MAX_ERROR_BYTES) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Holds the downstream side: closed when the stream ends unless it was already ended gracefully
 * (its last bytes, an error answer say, are then left to flush).
 */
function holdDownstream(stream: Stream, side: { writableEnded: boolean; destroy(): void }): void {
  stream.hold({ destroy: () => (side.writableEnded ? undefined : side.destroy()) });
}

/**
 * Sends `up` and ties it to `stream`: the stream ending destroys it (with whatever upgraded
 * socket or response it has, held on their arrival), and `up` closing or failing before an
 * answer ends the stream, so neither side outlives the other.
 */
function send(up: ClientRequest, stream: Stream, onError: () => void): void {
  stream.hold(up);
  let answered = false;
  up.once('response', () => {
    answered = true;
  });
  up.once('upgrade', () => {
    answered = true;
  });
  up.on('error', () => {
    // A request the stream's end destroyed (the client left) has no one to answer.
    if (!answered && !stream.isEnded) onError();
    stream.end('error');
  });
  up.once('close', () => {
    if (!answered) stream.end('upstream-closed');
  });
  up.end();
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
  up.on('response', (hostRes) => {
    stream.hold(hostRes);
    hostRes.on('close', () => {
      if (!hostRes.complete) stream.end('upstream-closed');
    });
    const status = hostRes.statusCode ?? 502;
    if (status < 200 || status > 299) {
      void rewriteLogError(hostRes, request, res, stream);
      return;
    }
    const type = hostRes.headers['content-type'];
    res.writeHead(status, type ? { 'content-type': type } : {});
    hostRes.on('data', () => stream.touch());
    hostRes.pipe(res);
  });
  send(up, stream, () => {
    if (!res.headersSent) refuse(res, 502, 'the host apiserver could not be reached');
  });
}

/** A host refusal of a log request, answered in the tenant's words (text, as a kubelet's). */
async function rewriteLogError(
  hostRes: IncomingMessage,
  request: KubeletRequest,
  res: ServerResponse,
  stream: Stream,
): Promise<void> {
  try {
    const text = await bodyText(hostRes);
    const type = hostRes.headers['content-type'];
    const answer = rewriteHostError(hostRes.statusCode ?? 502, type, text, request, true);
    if (!res.headersSent && !stream.isEnded) {
      res.writeHead(answer.status, { 'content-type': answer.contentType, connection: 'close' });
      res.end(answer.body);
    }
  } catch {
    stream.end('upstream-closed');
  }
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
  up.on('upgrade', (hostRes, hostSocket, hostEarly) => {
    stream.hold(hostSocket);
    hostSocket.on('close', () => stream.end('upstream-closed'));
    hostSocket.on('error', () => stream.end('error'));
    if (stream.isEnded) return;
    socket.write(head(hostRes));
    if (hostEarly.length > 0) socket.write(hostEarly);
    if (early.length > 0) hostSocket.write(early);
    for (const side of [socket, hostSocket]) side.on('data', () => stream.touch());
    socket.pipe(hostSocket);
    hostSocket.pipe(socket);
  });
  up.on('response', (hostRes) => {
    // No upgrade (the host refused it): the tenant's words of its refusal go back, then the end.
    stream.hold(hostRes);
    void (async () => {
      try {
        const text = await bodyText(hostRes);
        const type = hostRes.headers['content-type'];
        const answer = rewriteHostError(hostRes.statusCode ?? 502, type, text, request);
        if (!stream.isEnded) answerUpgrade(socket, answer.status, answer.contentType, answer.body);
        stream.end('done');
      } catch {
        stream.end('upstream-closed');
      }
    })();
  });
  send(up, stream, () => {
    if (!stream.isEnded) refuseUpgrade(socket, 502, 'the host apiserver could not be reached');
  });
}
