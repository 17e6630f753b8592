/**
 * The kubelet gateway (`tenantplane gateway`, docs/kubelet-gateway.md): an HTTPS server speaking
 * the part of the kubelet API a tenant apiserver proxies `kubectl logs`, `exec`, `attach` and
 * `port-forward` to, for every tenant of one host cluster. It holds no sync state: a tenant is
 * known by the CA of its apiserver's client certificate, its Pod's host copy by the naming
 * function, checked against the copy's reverse mapping before anything is relayed.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { requestGone, upgradeGone } from './client.js';
import { type GatewayTenant, tenantOf } from './config.js';
import { serveMetrics } from './metrics.js';
import { parseMetricsRequest } from './metrics-routes.js';
import { checkAccess, refuse, refuseUpgrade, relayLogs, relayUpgrade } from './relay.js';
import { type KubeletRequest, parseKubeletRequest } from './routes.js';
import { DEFAULT_LIMITS, type StreamLimits, Streams } from './streams.js';

export interface GatewayOptions {
  tenants: readonly GatewayTenant[];
  /** The gateway's serving certificate and key (PEM), which the tenant apiservers trust. */
  cert: string | Buffer;
  key: string | Buffer;
  limits?: Partial<StreamLimits>;
  /** One structured line per refusal and per ended stream: never a credential or stream byte. */
  log?: (entry: Record<string, unknown>) => void;
}

export interface Gateway {
  readonly server: Server;
  readonly streams: Streams;
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

function tenantOfSocket(
  tenants: readonly GatewayTenant[],
  socket: TLSSocket,
): GatewayTenant | undefined {
  const peer = socket.getPeerCertificate();
  if (!peer?.raw) return undefined;
  return tenantOf(tenants, new X509Certificate(peer.raw));
}

/** Creates the gateway (not listening yet). */
export function createGateway(options: GatewayOptions): Gateway {
  const { tenants } = options;
  const log = options.log ?? (() => {});
  const streams = new Streams({ ...DEFAULT_LIMITS, ...options.limits }, log);
  const server = createServer({
    cert: options.cert,
    key: options.key,
    ca: tenants.map((t) => t.clientCaPem),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
  });

  /** The tenant and request of `req`, or the refusal (status, message) already counted. */
  function route(
    req: IncomingMessage,
    upgrade: boolean,
  ): { tenant: GatewayTenant; request: KubeletRequest } | { status: number; message: string } {
    const tenant = tenantOfSocket(tenants, req.socket as TLSSocket);
    const what = { action: req.url?.split('/')[1]?.split('?')[0] ?? '', tenant: tenant?.name };
    if (!tenant) {
      streams.refuse({ ...what, status: 403 });
      return { status: 403, message: 'the client certificate is of no tenant of this gateway' };
    }
    const request = parseKubeletRequest(req.url ?? '/', upgrade);
    if (!request) {
      streams.refuse({ ...what, status: 404 });
      return { status: 404, message: 'not a kubelet request this gateway serves' };
    }
    return { tenant, request };
  }

  /**
   * Checks and relays one request. `gone` aborts when its client leaves: the check's host request
   * goes with it, no slot is taken for a client already gone, and an open stream ends, which
   * closes its upstream request or socket. Every path that takes a slot gives it back through
   * the stream's one `end`.
   */
  async function handle(
    req: IncomingMessage,
    upgrade: boolean,
    gone: AbortSignal,
    fail: (status: number, message: string) => void,
    relay: (
      tenant: GatewayTenant,
      request: KubeletRequest,
      hostPod: string,
      stream: NonNullable<ReturnType<Streams['open']>>,
    ) => Promise<void>,
  ): Promise<void> {
    const routed = route(req, upgrade);
    if ('status' in routed) return fail(routed.status, routed.message);
    const { tenant, request } = routed;
    const what = { action: request.action, namespace: request.namespace, pod: request.pod };
    const access = await checkAccess(tenant, request, gone);
    if (gone.aborted) {
      streams.left({ ...what, tenant: tenant.name });
      return;
    }
    if ('status' in access) {
      streams.refuse({ ...what, tenant: tenant.name, status: access.status });
      return fail(access.status, access.message);
    }
    const stream = streams.open(tenant.name, what);
    if (!stream) {
      streams.refuse({ ...what, tenant: tenant.name, status: 429 });
      return fail(429, `the tenant holds ${streams.limits.maxStreamsPerTenant} streams already`);
    }
    stream.endOn(gone, 'downstream-closed');
    try {
      await relay(tenant, request, access.hostPod, stream);
    } catch {
      fail(502, 'the host apiserver could not be reached');
      stream.end('error');
    }
  }

  /** Every client connection, so that closing the gateway closes them all. */
  const sockets = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  /**
   * A `metrics.k8s.io` request (the gateway as the tenant's aggregated metrics API): its tenant
   * is known by the same client certificate, which the tenant apiserver presents as its proxy
   * client; the tenant apiserver has authorized the user already. False when it is none.
   */
  function metrics(req: IncomingMessage, res: ServerResponse): boolean {
    const request = parseMetricsRequest(req.url ?? '/');
    if (!request) return false;
    const tenant = tenantOfSocket(tenants, req.socket as TLSSocket);
    if (!tenant) {
      streams.refuse({ action: 'metrics', status: 403 });
      refuse(res, 403, 'the client certificate is of no tenant of this gateway');
      return true;
    }
    void serveMetrics(tenant, request, res, requestGone(req, res));
    return true;
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return refuse(res, 405, 'only GET is served without an upgrade');
    if (metrics(req, res)) return;
    const fail = (status: number, message: string) => {
      if (!res.headersSent) refuse(res, status, message);
    };
    void handle(req, false, requestGone(req, res), fail, (tenant, request, hostPod, stream) =>
      relayLogs(tenant, request, hostPod, res, stream),
    );
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, early: Buffer) => {
    socket.on('error', () => socket.destroy());
    const gone = upgradeGone(socket);
    const fail = (status: number, message: string) => {
      if (socket.writable) refuseUpgrade(socket, status, message);
    };
    void handle(req, true, gone, fail, (tenant, request, hostPod, stream) =>
      relayUpgrade(tenant, request, hostPod, req, socket, early, stream),
    );
  });

  return {
    server,
    streams,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve(server.address() as AddressInfo));
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        streams.endAll('shutdown');
        // Upgraded and refused sockets are no longer the HTTP server's: closed here.
        for (const socket of sockets) socket.destroy();
      }),
  };
}
