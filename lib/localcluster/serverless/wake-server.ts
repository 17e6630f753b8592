/**
 * The local wake endpoint: an HTTPS server on the plane's `wake.url`, an adapter over the wake
 * core's handler (lib/wake), as the Lambda function URL is in the deployed shape. Two routes,
 * one handler each (lib/localcluster/wake.ts says why):
 * - `/tenants/<name>`: a tenant's wake, checked against the tenant's token, coalesced per tenant,
 *   invoking that tenant's function;
 * - `/apiservers/tenant`: the local tenant apiserver's audit webhook, checked against the
 *   apiserver's token, handed on to the first route once per tenant run here, as that tenant.
 * The body is kept up to one byte over the limit, so a huge body is refused without being held.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import {
  createWakeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type WakeRequest,
  type WakeResponse,
  type WakeWindow,
} from '../../wake/index.js';

export interface WakeServerOptions {
  cert: string;
  key: string;
  /** The tenants run here (refreshed by the caller). */
  tenants(): readonly string[];
  /** A tenant's wake token, undefined for a tenant not run here. */
  tokenOf(tenant: string): Promise<string | undefined>;
  /** The local tenant apiserver's token. */
  apiserverToken(): Promise<string>;
  invoke(tenant: string): Promise<void>;
  window: WakeWindow;
  log(entry: Readonly<Record<string, unknown>>): void;
}

const APISERVER_PATH = /^\/apiservers\/([^/?]+)\/?(?:\?.*)?$/;

/** The request handler of the two routes (see the module doc). */
export function localWakeHandler(
  options: WakeServerOptions,
): (request: WakeRequest) => Promise<WakeResponse> {
  const base = { maxBodyBytes: DEFAULT_MAX_BODY_BYTES, windowOf: () => options.window };
  const tenantHandler = createWakeHandler(
    {
      tokenOf: (tenant) => options.tokenOf(tenant),
      invoke: (tenant) => options.invoke(tenant),
      now: Date.now,
      log: options.log,
    },
    base,
  );
  const apiserverHandler = createWakeHandler(
    {
      tokenOf: async (name) => (name === 'tenant' ? options.apiserverToken() : undefined),
      // Every tenant of the plane syncs from this apiserver: each is told, as itself.
      invoke: async () => {
        await Promise.all(
          options.tenants().map(async (tenant) => {
            const token = await options.tokenOf(tenant);
            if (token === undefined) return;
            await tenantHandler({
              method: 'POST',
              path: `/tenants/${tenant}`,
              headers: { authorization: `Bearer ${token}` },
              body: undefined,
            });
          }),
        );
      },
      now: Date.now,
      // Each batch is handed on at once: the tenants' own handlers coalesce, per tenant.
      log: (entry) => options.log({ ...entry, route: 'apiserver' }),
    },
    { ...base, windowOf: () => ({ quietMs: 0, maxInvocationMs: 0 }), deliverySlackMs: 0 },
  );
  return (request) => {
    const apiserver = APISERVER_PATH.exec(request.path);
    return apiserver
      ? apiserverHandler({ ...request, path: `/tenants/${apiserver[1]}` })
      : tenantHandler(request);
  };
}

/**
 * The body, or its first `limit + 1` bytes when it is longer (enough to refuse it): the rest is
 * drained unkept, so the answer still reaches the client.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    if (size <= limit) chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks)
    .subarray(0, limit + 1)
    .toString('utf8');
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  return headers;
}

/** Starts the endpoint on 127.0.0.1:`port`; rejects when it cannot listen (the port is taken). */
export async function startWakeServer(port: number, options: WakeServerOptions): Promise<Server> {
  const handle = localWakeHandler(options);
  const server = createServer({ cert: options.cert, key: options.key }, (req, res) => {
    void serve(req, res);
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let response: WakeResponse;
    try {
      const body = await readBody(req, DEFAULT_MAX_BODY_BYTES);
      response = await handle({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: headersOf(req),
        body,
      });
    } catch {
      response = { statusCode: 500, body: 'internal error' };
    }
    res.writeHead(response.statusCode, { 'content-type': 'text/plain', connection: 'close' });
    res.end(response.body);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
