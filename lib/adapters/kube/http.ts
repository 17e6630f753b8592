/**
 * One HTTP request to the API server through `@kubernetes/client-node`'s generated
 * `Configuration`: its auth methods (every kind a kubeconfig holds), its undici-based HTTP library
 * and its middleware. Bodies go out and come back as plain JSON, not the library's model classes,
 * because the engine needs objects exactly as the server sent them.
 *
 * Every request has a bounded timeout so a hung server cannot eat a Lambda's deadline: its own
 * (30 s by default), or the time left to the request deadline of the caller's scope when that is
 * nearer (the pass deadline; see `withRequestDeadline`). Every failure is a typed ClusterError.
 */
import {
  ApiException,
  type Configuration,
  createConfiguration,
  HttpMethod,
  type KubeConfig,
  type Middleware as PromiseMiddleware,
  type RequestContext,
  ServerConfiguration,
} from '@kubernetes/client-node';
import {
  ClusterError,
  ClusterErrorReason,
  currentRequestDeadline,
  type RequestCount,
  type RequestDeadline,
} from '../../ports/index.js';
import { bodyChunks, heard, readText } from './body.js';
import { clusterErrorFromResponse, clusterErrorFromTransport, STALLED } from './errors.js';
import { type QueryValues, queryParams } from './rest-paths.js';

/** How every request of a {@link KubeHttp} is sent: per-request timeout (ms), User-Agent. */
export interface HttpSettings {
  timeoutMs: number;
  userAgent: string;
}

/** One request: method, path below the server URL, query and JSON body. */
export interface RequestSpec {
  method: HttpMethod;
  path: string;
  query?: QueryValues;
  body?: unknown; // sent as JSON; omitted for requests without a body
  /** Default `application/json`; a merge patch needs its own type. */
  contentType?: string;
  /** A body longer than this is cut off: the request is aborted and fails as `TooLarge`. */
  maxBytes?: number;
  onText?: (text: string) => void; // hears a 2xx body's text before it is parsed
}

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/** The request plumbing of one API server: auth, timeout, connection pool and request counts. */
export class KubeHttp {
  readonly server: string;
  readonly context: string;
  private readonly configuration: Configuration;
  private readonly timeoutMs: number;
  private readonly counts: RequestCount = { reads: 0, writes: 0 };
  /** One connection pool for the client's lifetime (the library would make one per request). */
  private dispatcher: Dispatcher | undefined;

  /**
   * @param kubeConfig The loaded kubeconfig, its context selected; it authenticates each request.
   * @param server The API server URL of that context.
   * @param context The context's name, for messages.
   */
  constructor(kubeConfig: KubeConfig, server: string, context: string, settings: HttpSettings) {
    this.server = server;
    this.context = context;
    this.timeoutMs = settings.timeoutMs;
    // Middleware runs after credentials are fetched: a request that never left is not counted,
    // and the timeout bounds the exchange with the server, not an exec plugin's run.
    const counting: PromiseMiddleware = {
      pre: async (ctx) => {
        if (ctx.getHttpMethod() === HttpMethod.GET) this.counts.reads += 1;
        else this.counts.writes += 1;
        ctx.setHeaderParam('User-Agent', settings.userAgent);
        return ctx;
      },
      post: async (rsp) => rsp,
    };
    this.configuration = createConfiguration({
      baseServer: new ServerConfiguration<Record<string, string>>(server, {}),
      authMethods: { default: kubeConfig },
      promiseMiddleware: [counting],
    });
  }

  /** Requests sent so far: GETs are reads, everything else writes. */
  requestCount(): RequestCount {
    return { ...this.counts };
  }

  /** Drops pooled connections (and any still connecting). No request may follow. */
  async close(): Promise<void> {
    const dispatcher = this.dispatcher;
    this.dispatcher = undefined;
    // destroy, not close: close waits for a connection attempt that a timeout already abandoned.
    if (dispatcher) await dispatcher.destroy();
  }

  /**
   * Sends `spec` and returns the parsed JSON body (`undefined` for an empty one).
   * @throws ClusterError for an error status, no response, no credentials or a non-JSON body.
   */
  async request(spec: RequestSpec): Promise<unknown> {
    return (await this.exchange(spec)).body;
  }

  /** {@link request}, with the length of the body's JSON text (what a LIST page weighs). */
  async exchange(spec: RequestSpec): Promise<{ body: unknown; bytes: number }> {
    let bound = this.timeoutFor(spec); // nothing is sent once the caller's deadline has passed
    const ctx = await this.prepare(spec);
    bound = this.timeoutFor(spec); // getting credentials may have taken a while
    this.shareDispatcher(ctx);
    let response: Awaited<ReturnType<KubeHttp['send']>>;
    let text: string | undefined;
    const abort = new AbortController();
    try {
      response = await this.send(ctx, bound.timeoutMs, abort.signal);
      const ok = response.httpStatusCode >= 200 && response.httpStatusCode <= 299;
      text = await readText(response.body, ok ? spec.maxBytes : undefined);
    } catch (error) {
      throw this.transportError(error, spec, bound);
    }
    if (text === undefined) {
      abort.abort(); // the rest of the body is never read
      const what = `${spec.method} ${spec.path} on ${this.server}`;
      throw new ClusterError('TooLarge', `${what} answered over ${spec.maxBytes} bytes: cut off`);
    }
    const { httpStatusCode: status, headers } = response;
    if (status >= 200 && status <= 299) await heard(text, spec.onText);
    return { body: this.parse(spec, status, headers, text), bytes: text.length };
  }

  /**
   * A streamed GET (a WATCH): calls `onLine` with each line of the body until it returns true
   * (then the request is aborted) or the body ends. An error status throws like {@link request};
   * a timeout before `onLine` said stop throws a Transport error with `timedOut`. A `held` stream
   * (follow mode) outlives the per-request timeout, and ends quietly when `held` aborts.
   */
  async streamLines(
    spec: RequestSpec,
    timeoutMs: number,
    onLine: (line: string) => boolean,
    held?: AbortSignal,
  ): Promise<void> {
    let bound = this.timeoutFor(spec);
    const ctx = await this.prepare(spec);
    bound = this.timeoutFor(spec);
    // A stalled server: a stream the caller's deadline cut short, not one that ran to its limit.
    const limit = timeoutMs < bound.timeoutMs || (held && !bound.deadline) ? { timeoutMs } : bound;
    this.shareDispatcher(ctx);
    const abort = new AbortController();
    held?.addEventListener('abort', () => abort.abort(), { once: true });
    try {
      const response = await this.send(ctx, limit.timeoutMs, abort.signal);
      const status = response.httpStatusCode;
      if (status < 200 || status > 299) {
        this.parse(spec, status, response.headers, await response.body.text());
        return;
      }
      const chunks = await bodyChunks(response.body);
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of chunks) {
        buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line !== '' && onLine(line)) {
            abort.abort();
            return;
          }
          newline = buffered.indexOf('\n');
        }
      }
      if (buffered.trim() !== '' && onLine(buffered.trim())) return;
    } catch (error) {
      if (abort.signal.aborted) return;
      throw this.transportError(error, spec, limit);
    }
  }

  /** The request context with its query, headers, body and credentials. */
  private async prepare(spec: RequestSpec): Promise<RequestContext> {
    const ctx = this.configuration.baseServer.makeRequestContext(spec.path, spec.method);
    for (const [key, value] of queryParams(spec.query)) ctx.setQueryParam(key, value);
    ctx.setHeaderParam('Accept', 'application/json');
    if (spec.body !== undefined) {
      ctx.setHeaderParam('Content-Type', spec.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(spec.body));
    }
    try {
      await this.configuration.authMethods.default?.applySecurityAuthentication(ctx);
    } catch (error) {
      // Exec plugins and token files fail here; their output may hold credentials: name only.
      const name = error instanceof Error ? error.name : 'error';
      throw new ClusterError(
        ClusterErrorReason.Unauthorized,
        `cannot get credentials for ${this.server} from kubeconfig context ${JSON.stringify(this.context)} (${name})`,
        { cause: error },
      );
    }
    return ctx;
  }

  /** Sends a prepared request through the middleware, bounded by `timeoutMs` (and `signal`). */
  private async send(ctx: RequestContext, timeoutMs: number, signal?: AbortSignal) {
    let prepared = ctx;
    for (const middleware of this.configuration.middleware) {
      prepared = await middleware.pre(prepared).toPromise();
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    prepared.setSignal(signal ? AbortSignal.any([timeout, signal]) : timeout);
    let response = await this.configuration.httpApi.send(prepared).toPromise();
    for (const middleware of this.configuration.middleware) {
      response = await middleware.post(response).toPromise();
    }
    return response;
  }

  /** A failure to get an answer, as a typed error naming the deadline when that was the bound. */
  private transportError(
    error: unknown,
    spec: RequestSpec,
    bound: { timeoutMs: number; deadline?: RequestDeadline },
  ): ClusterError {
    const description = { server: this.server, method: spec.method, path: spec.path };
    const mapped = clusterErrorFromTransport(error, description, bound.timeoutMs);
    if (!mapped.timedOut || bound.deadline === undefined) return mapped;
    return new ClusterError(
      ClusterErrorReason.Transport,
      `${this.server}${STALLED} no answer to ${spec.method} ${spec.path} before ${bound.deadline.what} (${bound.timeoutMs} ms)`,
      { cause: error, timedOut: true },
    );
  }

  /** The parsed JSON body of an answer; an error status throws its typed error. */
  private parse(
    spec: RequestSpec,
    status: number,
    headers: Record<string, string>,
    text: string,
  ): unknown {
    const description = { server: this.server, method: spec.method, path: spec.path };
    if (status >= 200 && status <= 299) {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new ClusterError(
          ClusterErrorReason.Unknown,
          `${spec.method} ${spec.path} on ${this.server} returned a body that is not JSON`,
          { status, cause: error },
        );
      }
    }
    const exception = new ApiException<string>(
      status,
      `HTTP ${status} from ${spec.method} ${spec.path}`,
      text,
      headers,
    );
    throw clusterErrorFromResponse(exception, description, exception);
  }

  /**
   * The timeout of one request: the client's own, or less when the request deadline of the
   * caller's scope (see `withRequestDeadline`) is nearer; `deadline` is set when it is the bound.
   * @throws ClusterError (Transport) when that deadline has passed: nothing is sent.
   */
  private timeoutFor(spec: RequestSpec): { timeoutMs: number; deadline?: RequestDeadline } {
    const deadline = currentRequestDeadline();
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline.atMs - Date.now();
    if (deadline !== undefined && left <= 0) {
      throw new ClusterError(
        ClusterErrorReason.Transport,
        `${spec.method} ${spec.path} was not sent to ${this.server}: ${deadline.what} had passed`,
      );
    }
    if (deadline === undefined || left >= this.timeoutMs) return { timeoutMs: this.timeoutMs };
    return { timeoutMs: Math.max(1, Math.floor(left)), deadline };
  }

  /** The library builds a new connection pool per request; keep the first and reuse it. */
  private shareDispatcher(ctx: RequestContext): void {
    const created = ctx.getDispatcher();
    if (created === undefined) return;
    if (this.dispatcher === undefined) {
      this.dispatcher = created;
    } else if (created !== this.dispatcher) {
      ctx.setDispatcher(this.dispatcher);
      void created.destroy().catch(() => undefined);
    }
  }
}
