/**
 * A gateway in-process with a fake host (for the stream-slot tests): a real TLS gateway (openssl
 * certificates in a temporary directory), a tenant whose host check is a deferred the test
 * settles, and a plain-HTTP host whose log and upgrade requests the test answers, ends or cuts.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import {
  type ClientRequest,
  createServer,
  type IncomingMessage,
  request,
  type Server,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectionOptions, connect, type TLSSocket } from 'node:tls';
import { hostName } from '../../../lib/engine/index.js';
import { tenantContainersAnnotation } from '../../../lib/engine/kinds/pod/tenant-containers.js';
import {
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../lib/engine/names/reverse-mapping.js';
import type { GatewayTenant } from '../../../lib/gateway/config.js';
import { createGateway, type Gateway } from '../../../lib/gateway/server.js';
import type { StreamLimits } from '../../../lib/gateway/streams.js';
import { createCa, signCertificate } from '../../../lib/localcluster/pki.js';
import type { KubeObject } from '../../../lib/ports/index.js';

export const TENANT = 'dev';
export const HOST_NS = 'tenant-dev';
export const HOST_POD = hostName('web', 'apps', TENANT);

/** The host copy of `apps/web`, whose tenant Pod declares `containers`. */
export function hostCopy(containers: readonly string[] = ['nginx']): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: HOST_POD,
      namespace: HOST_NS,
      labels: reverseMappingLabels(TENANT, 'Pod', 'apps'),
      annotations: {
        ...reverseMappingAnnotations('apps', 'web', 'uid-1'),
        ...tenantContainersAnnotation(containers),
      },
    },
  };
}

export interface Pki {
  serverCert: Buffer;
  serverKey: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
  caPem: string;
}

/** A CA, the gateway's serving certificate and a tenant apiserver's client certificate. */
export async function makePki(): Promise<Pki> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-unit-'));
  const ca = { caCert: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key') };
  await createCa(ca, '/CN=unit-ca', 1);
  const server = await signCertificate(ca, {
    dir,
    name: 'server',
    subject: '/CN=gateway',
    extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
    days: 1,
  });
  const client = await signCertificate(ca, {
    dir,
    name: 'client',
    subject: '/CN=apiserver',
    extensions: 'extendedKeyUsage=clientAuth\n',
    days: 1,
  });
  return {
    serverCert: await readFile(server.cert),
    serverKey: await readFile(server.key),
    clientCert: await readFile(client.cert),
    clientKey: await readFile(client.key),
    caPem: await readFile(ca.caCert, 'utf8'),
  };
}

/** One request the fake host got, to answer or watch. */
export interface HostCall {
  req: IncomingMessage;
  /** The plain answer (logs), or undefined for an upgrade. */
  res?: import('node:http').ServerResponse;
  /** The upgrade's socket, once the host said 101. */
  socket?: Socket;
  closed: Promise<void>;
}

/** The fake host: every request is kept for the test; upgrades answer 101 unless refused. */
export class FakeHost {
  readonly calls: HostCall[] = [];
  /** When set, an upgrade is refused with this status and JSON body. */
  refuseUpgrade: { status: number; body: string } | undefined;
  /** The deferred answers of the Pod checks, in order, and the signals they were given. */
  readonly checks: { signal: AbortSignal; resolve: (pod: KubeObject | undefined) => void }[] = [];
  /** Settles each check at once with this copy, when set. */
  autoCheck: KubeObject | undefined;
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      this.calls.push({ req, res, closed: new Promise((r) => res.once('close', () => r())) });
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      // Ended is closed: the host (a Go server) closes a connection its peer ended.
      const closed = new Promise<void>((r) => {
        socket.once('end', () => r());
        socket.once('close', () => r());
      });
      if (this.refuseUpgrade) {
        const { status, body } = this.refuseUpgrade;
        socket.end(
          `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      } else {
        socket.write(
          'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n',
        );
      }
      socket.on('error', () => {});
      this.calls.push({ req, socket, closed });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    // Upgraded sockets are no longer the server's to close.
    for (const call of this.calls) call.socket?.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }

  /** The tenant as the gateway sees it, calling this host. */
  tenant(port: number, caPem: string): GatewayTenant {
    const host = {
      request: async (method: string, path: string, headers = {}): Promise<ClientRequest> =>
        request({ host: '127.0.0.1', port, method, path, headers, agent: false }),
      getJson: (_path: string, signal: AbortSignal) =>
        new Promise<KubeObject | undefined>((resolve, reject) => {
          if (this.autoCheck) return resolve(this.autoCheck);
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          this.checks.push({ signal, resolve });
        }),
    };
    return {
      name: TENANT,
      hostNamespace: HOST_NS,
      clientCas: [new X509Certificate(caPem)],
      clientCaPem: caPem,
      host,
    } as unknown as GatewayTenant;
  }
}

/** A gateway for `tenant` on a free port. */
export async function startGateway(
  pki: Pki,
  tenant: GatewayTenant,
  limits: Partial<StreamLimits> = {},
): Promise<{ gateway: Gateway; port: number }> {
  const gateway = createGateway({
    tenants: [tenant],
    cert: pki.serverCert,
    key: pki.serverKey,
    limits,
  });
  return { gateway, port: (await gateway.listen(0, '127.0.0.1')).port };
}

/** A TLS connection to the gateway with the tenant's client certificate, the request sent. */
export async function sendRaw(port: number, pki: Pki, head: string): Promise<TLSSocket> {
  const options: ConnectionOptions = {
    host: '127.0.0.1',
    port,
    cert: pki.clientCert,
    key: pki.clientKey,
    rejectUnauthorized: false,
  };
  const socket = connect(options);
  socket.on('error', () => {});
  await new Promise<void>((r) => socket.once('secureConnect', () => r()));
  socket.write(head);
  return socket;
}

/** Everything a socket receives until it closes. */
export function received(socket: TLSSocket): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return new Promise((r) => socket.once('close', () => r(text)));
}

/** A GET head for `path`, and an upgrade head. */
export const getHead = (path: string) => `GET ${path} HTTP/1.1\r\nhost: gw\r\n\r\n`;
export const upgradeHead = (path: string) =>
  `GET ${path} HTTP/1.1\r\nhost: gw\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
  'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

/** Polls `check` until it holds (10 s at most). */
export async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
