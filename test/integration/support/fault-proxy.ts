/**
 * The fault-injection proxy: an HTTPS server in front of one real kube-apiserver of the test run.
 *
 * It terminates TLS with a serving certificate for 127.0.0.1 signed by the local CA (the project
 * owns that PKI), so a client that trusts the real apiserver trusts the proxy. It forwards every
 * request to the real apiserver as the admin user (the admin client certificate); a client that
 * presented another certificate of the local CA is impersonated (`Impersonate-User`,
 * `Impersonate-Group`), so RBAC still sees the client's own identity. A client certificate the CA
 * did not sign, or an expired one, gets the apiserver's answer: 401.
 *
 * Rules decide, per request, in order (the first rule that matches and still has uses wins):
 * - `respond`: answer with a status (429 + Retry-After, 500, 503, 504, 409, 410...) and a
 *   Kubernetes `Status` body, without forwarding;
 * - `stall`: accept and send nothing, ever (until the proxy closes);
 * - `delay`: add latency, then forward;
 * - `cut`: forward, send at most `afterBytes` bytes of the response body, then drop the
 *   connection; `reset`: drop the connection without answering;
 * - `hook`: run a function (act "in the window" between two requests of a pass), then forward.
 * A rule's `skip` lets that many matching requests through first ("after N requests"), `times`
 * bounds how often it fires.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { parse, stringify } from 'yaml';
import type { KubeconfigText } from '../../../lib/ports/index.js';
import {
  type ArmedRule,
  type FaultRule,
  matches,
  type ProxiedRequest,
  type ProxyLogEntry,
  statusBody,
} from './fault-rules.js';
import { type TestPki, testPki } from './test-pki.js';

export {
  type FaultAction,
  type FaultMatch,
  type FaultRule,
  Faults,
  type ProxiedRequest,
  type ProxyLogEntry,
} from './fault-rules.js';

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host'];

/** An upstream header set: the client's, minus hop-by-hop and any impersonation it sent. */
function upstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.includes(key) || key.startsWith('impersonate-')) continue;
    out[key] = value;
  }
  return out;
}

export class FaultProxy {
  /** Every request, in arrival order. */
  readonly log: ProxyLogEntry[] = [];
  private rules: ArmedRule[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly agent: Agent;

  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    private readonly pki: TestPki,
    private readonly upstreamKubeconfig: KubeconfigText,
  ) {
    this.agent = new Agent({ ca: pki.ca, cert: pki.adminCert, key: pki.adminKey, keepAlive: true });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void this.handle(req, res, Buffer.concat(chunks)).catch(() => res.socket?.destroy());
      });
    });
  }

  /**
   * Starts a proxy on a free loopback port in front of the apiserver that `kubeconfig` (an admin
   * kubeconfig of the test run, or of the control plane in `stateDir`) points at.
   */
  static async start(kubeconfig: KubeconfigText, stateDir?: string): Promise<FaultProxy> {
    const pki = await testPki(stateDir);
    const doc = parse(kubeconfig.text) as { clusters: { cluster: { server: string } }[] };
    const upstream = new URL(doc.clusters[0]!.cluster.server);
    const server = createServer({
      key: pki.proxyKey,
      cert: pki.proxyCert,
      ca: pki.ca,
      requestCert: true,
      rejectUnauthorized: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FaultProxy(server, upstream, pki, kubeconfig);
  }

  /** The proxy's URL, e.g. `https://127.0.0.1:40123`. */
  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The real apiserver behind the proxy. */
  get upstreamUrl(): string {
    return this.upstream.origin;
  }

  /** The upstream kubeconfig with its server replaced by the proxy (same CA and credentials). */
  kubeconfig(text: string = this.upstreamKubeconfig.text): KubeconfigText {
    const doc = parse(text) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = this.url;
    return { text: stringify(doc), origin: `fault proxy ${this.url}` };
  }

  /** Replaces the rules (an empty list forwards everything). */
  setRules(...rules: FaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r, seen: 0, fired: 0 }));
  }

  /** Removes every rule and drops stalled connections, so the next request goes through. */
  clear(): void {
    this.rules = [];
    this.dropConnections();
  }

  /** How many times each rule fired, in order. */
  fired(): number[] {
    return this.rules.map((r) => r.fired);
  }

  /** Drops every client connection (stalled ones included). */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pick(request: ProxiedRequest): ArmedRule | undefined {
    for (const rule of this.rules) {
      if (!matches(rule.match, request)) continue;
      rule.seen += 1;
      if (rule.seen <= (rule.skip ?? 0)) continue;
      if (rule.times !== undefined && rule.fired >= rule.times) continue;
      rule.fired += 1;
      return rule;
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://proxy');
    const request: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: body.toString('utf8'),
    };
    const entry: ProxyLogEntry = {
      method: request.method,
      path: request.path,
      query: url.search,
      action: 'forward',
      at: Date.now(),
    };
    this.log.push(entry);
    const socket = req.socket as TLSSocket;
    if (socket.getPeerCertificate && !socket.authorized && socket.getPeerCertificate()?.subject) {
      entry.status = 401;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(statusBody(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    const rule = this.pick(request);
    const action = rule?.action;
    if (action) entry.action = action.kind;
    switch (action?.kind) {
      case 'respond': {
        entry.status = action.status;
        const text = statusBody(
          action.status,
          action.reason ?? '',
          action.message ?? `injected HTTP ${action.status}`,
        );
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(text);
        return;
      }
      case 'stall':
        return; // the socket stays open and silent
      case 'reset':
        req.socket.destroy();
        return;
      case 'delay':
        await new Promise((r) => setTimeout(r, action.ms));
        break;
      case 'hook':
        await action.run(request);
        break;
      default:
        break;
    }
    await this.forward(
      req,
      res,
      body,
      entry,
      action?.kind === 'cut' ? action.afterBytes : undefined,
    );
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    entry: ProxyLogEntry,
    cutAfter: number | undefined,
  ): Promise<void> {
    const headers = upstreamHeaders(req.headers);
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    const user = peer?.subject?.CN;
    if (user && user !== this.pki.adminUser) {
      headers['impersonate-user'] = user;
      const groups = peer.subject.O;
      if (groups) headers['impersonate-group'] = Array.isArray(groups) ? groups : [groups];
    }
    headers['content-length'] = String(body.length);
    return new Promise((resolve) => {
      const up = httpsRequest(
        {
          host: this.upstream.hostname,
          port: this.upstream.port,
          method: req.method,
          path: req.url,
          headers,
          agent: this.agent,
        },
        (upRes) => {
          entry.status = upRes.statusCode;
          const outHeaders = { ...upRes.headers };
          delete outHeaders.connection;
          delete outHeaders['keep-alive'];
          res.writeHead(upRes.statusCode ?? 502, outHeaders);
          let sent = 0;
          upRes.on('data', (chunk: Buffer) => {
            if (cutAfter === undefined) {
              res.write(chunk);
              return;
            }
            const room = cutAfter - sent;
            if (room > 0) res.write(chunk.subarray(0, room));
            sent += chunk.length;
            if (sent >= cutAfter) {
              upRes.destroy();
              req.socket.destroy();
              resolve();
            }
          });
          upRes.on('end', () => {
            res.end();
            resolve();
          });
          upRes.on('error', () => resolve());
        },
      );
      up.on('error', () => {
        req.socket.destroy();
        resolve();
      });
      up.end(body);
    });
  }
}
