/**
 * The host side of a relay: requests to the host apiserver with one tenant's own host identity
 * (its host kubeconfig: CA, client certificate or token), each on a connection of its own that
 * closes with the request (no agent keeps one open), so nothing upstream outlives its stream.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { type RequestOptions, request } from 'node:https';
import type { LoadedKubeconfig } from '../adapters/kubeconfig/load.js';
import type { KubeObject } from '../ports/index.js';

/** The host apiserver as one tenant calls it. */
export class HostTarget {
  private readonly url: URL;

  constructor(private readonly kubeconfig: LoadedKubeconfig) {
    this.url = new URL(kubeconfig.server);
  }

  /** An unsent request to `path` (with its query) on the host apiserver. */
  async request(
    method: string,
    path: string,
    headers: IncomingHttpHeaders = {},
  ): Promise<ClientRequest> {
    const options: RequestOptions = {
      method,
      protocol: 'https:',
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port === '' ? 443 : Number(this.url.port),
      path: `${this.url.pathname.replace(/\/+$/, '')}${path}`,
      headers: { ...headers },
      agent: false,
    };
    await this.kubeconfig.kubeConfig.applyToHTTPSOptions(options);
    return request(options);
  }

  /**
   * GETs one JSON object; `undefined` when the host says 404. Throws with the status otherwise
   * (the body, which may quote the request, is not kept).
   */
  async getJson(path: string, signal: AbortSignal): Promise<KubeObject | undefined> {
    const req = await this.request('GET', path, { accept: 'application/json' });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const abort = () => req.destroy(new Error('aborted'));
      signal.addEventListener('abort', abort, { once: true });
      req.once('close', () => signal.removeEventListener('abort', abort));
      req.on('response', resolve).on('error', reject).end();
      if (signal.aborted) abort();
    });
    const chunks: Buffer[] = [];
    // Aborted while the body comes: the response goes with the request.
    const abort = () => res.destroy(new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    try {
      for await (const chunk of res) chunks.push(chunk as Buffer);
    } finally {
      signal.removeEventListener('abort', abort);
    }
    if (res.statusCode === 404) return undefined;
    if (res.statusCode !== 200) throw new HostStatusError(res.statusCode ?? 0);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubeObject;
  }
}

/** The host apiserver answered with a status the gateway does not relay as it is. */
export class HostStatusError extends Error {
  override readonly name = 'HostStatusError';
  constructor(readonly status: number) {
    super(`the host apiserver answered ${status}`);
  }
}
