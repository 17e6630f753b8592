/**
 * The cluster port on `@kubernetes/client-node` 2.x.
 *
 * It uses the library's `KubeConfig` (every auth method it supports: client certificates, tokens,
 * exec plugins, OIDC), its generated `Configuration` (server, auth, undici-based HTTP library and
 * middleware) and its `ApiException`, and builds the REST paths itself from API discovery. It does
 * not use `KubernetesObjectApi` because that class deserializes known kinds into model classes
 * (timestamps become `Date`s), has no subresource calls (`/status`) and cannot send a `DeleteOptions`
 * with preconditions next to nothing else; the engine needs the objects exactly as the server sent
 * them.
 *
 * Every request has a bounded timeout (30 s by default) so a hung server cannot eat a Lambda's
 * deadline, and every failure is a typed {@link ClusterError}.
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
  type ClusterApi,
  ClusterError,
  ClusterErrorReason,
  type DeletePreconditions,
  type KindRef,
  type KubeconfigText,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type RequestCount,
} from '../../ports/index.js';
import { clusterErrorFromResponse, clusterErrorFromTransport } from './errors.js';
import { loadKubeconfig } from './kubeconfig.js';

export { KubeconfigError } from './kubeconfig-error.js';

/** Default per-request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface ClusterApiOptions {
  /** Kubeconfig context to use; default: the kubeconfig's current context (or its only one). */
  context?: string;
  /** Per-request timeout in milliseconds (default 30 000). */
  requestTimeoutMs?: number;
  /** `fieldManager` recorded for writes (default `tenantplane`). */
  fieldManager?: string;
  /** User-Agent header (default `tenantplane`). */
  userAgent?: string;
}

/** The cluster port plus what an adapter owner needs: where it points, and a way to let go. */
export interface KubeClusterApi extends ClusterApi {
  /** The API server URL. */
  readonly server: string;
  /** The kubeconfig context in use. */
  readonly context: string;
  /** Drops pooled connections (and any still connecting). The client must not be used afterwards. */
  close(): Promise<void>;
}

/**
 * Creates the cluster client for `kubeconfig`.
 * @throws KubeconfigError when the kubeconfig is malformed or has no usable context.
 */
export function createClusterApi(
  kubeconfig: KubeconfigText,
  options: ClusterApiOptions = {},
): KubeClusterApi {
  const loaded = loadKubeconfig(kubeconfig, options.context);
  return new KubeClusterClient(loaded.kubeConfig, loaded.server, loaded.context, options);
}

interface ResourceInfo {
  /** Plural resource name, e.g. `configmaps`. */
  name: string;
  namespaced: boolean;
}

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

interface RequestSpec {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  contentType?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindLabel(kind: KindRef): string {
  return `${kind.apiVersion}/${kind.kind}`;
}

function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

class KubeClusterClient implements KubeClusterApi {
  readonly server: string;
  readonly context: string;
  private readonly configuration: Configuration;
  private readonly timeoutMs: number;
  private readonly fieldManager: string;
  private readonly counts: RequestCount = { reads: 0, writes: 0 };
  /** Discovery per apiVersion: kind -> resource. */
  private readonly discovery = new Map<string, Promise<Map<string, ResourceInfo>>>();
  /** One connection pool for the client's lifetime (the library would make one per request). */
  private dispatcher: Dispatcher | undefined;

  constructor(kubeConfig: KubeConfig, server: string, context: string, options: ClusterApiOptions) {
    this.server = server;
    this.context = context;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.fieldManager = options.fieldManager ?? 'tenantplane';
    const userAgent = options.userAgent ?? 'tenantplane';
    const counting: PromiseMiddleware = {
      pre: async (ctx) => {
        if (ctx.getHttpMethod() === HttpMethod.GET) this.counts.reads += 1;
        else this.counts.writes += 1;
        ctx.setHeaderParam('User-Agent', userAgent);
        ctx.setSignal(AbortSignal.timeout(this.timeoutMs));
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

  requestCount(): RequestCount {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    const dispatcher = this.dispatcher;
    this.dispatcher = undefined;
    // destroy, not close: close waits for a connection attempt that a timeout already abandoned.
    if (dispatcher) await dispatcher.destroy();
  }

  async list(kind: KindRef, options: ListOptions = {}): Promise<ListPage> {
    const resource = await this.resource(kind);
    const path = this.collectionPath(kind, resource, options.namespace, true);
    const body = await this.request({
      method: HttpMethod.GET,
      path,
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continueToken,
      },
    });
    if (!isRecord(body) || !Array.isArray(body.items)) {
      throw new ClusterError(
        ClusterErrorReason.Unknown,
        `LIST ${path} on ${this.server} returned no items list`,
      );
    }
    // Items of a typed list carry no apiVersion/kind: restore them.
    const items = (body.items as unknown[]).filter(isRecord).map((item) => {
      const object = item as KubeObject;
      object.apiVersion ??= kind.apiVersion;
      object.kind ??= kind.kind;
      return object;
    });
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const token = typeof metadata.continue === 'string' ? metadata.continue : '';
    return token === '' ? { items } : { items, continueToken: token };
  }

  async get(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const resource = await this.resource(kind);
    const path = this.objectPath(kind, resource, namespace, name);
    try {
      return this.asObject(await this.request({ method: HttpMethod.GET, path }), kind);
    } catch (error) {
      if (error instanceof ClusterError && error.reason === ClusterErrorReason.NotFound) {
        return undefined;
      }
      throw error;
    }
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const kind = { apiVersion: object.apiVersion, kind: object.kind };
    const resource = await this.resource(kind);
    const path = this.collectionPath(kind, resource, object.metadata.namespace, false);
    const body = await this.request({
      method: HttpMethod.POST,
      path,
      query: { fieldManager: this.fieldManager },
      body: object,
    });
    return this.asObject(body, kind);
  }

  async update(object: KubeObject): Promise<KubeObject> {
    const kind = { apiVersion: object.apiVersion, kind: object.kind };
    if (!object.metadata.resourceVersion) {
      throw new ClusterError(
        ClusterErrorReason.Invalid,
        `update of ${kindLabel(kind)} ${object.metadata.name} needs metadata.resourceVersion, so that a concurrent change is detected`,
      );
    }
    const resource = await this.resource(kind);
    const path = this.objectPath(kind, resource, object.metadata.namespace, object.metadata.name);
    const body = await this.request({
      method: HttpMethod.PUT,
      path,
      query: { fieldManager: this.fieldManager },
      body: object,
    });
    return this.asObject(body, kind);
  }

  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
  ): Promise<void> {
    const resource = await this.resource(kind);
    const path = this.objectPath(kind, resource, namespace, name);
    const pre: Record<string, string> = { uid: preconditions.uid };
    if (preconditions.resourceVersion) pre.resourceVersion = preconditions.resourceVersion;
    await this.request({
      method: HttpMethod.DELETE,
      path,
      body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: pre },
    });
  }

  async patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject> {
    const resource = await this.resource(kind);
    const path = `${this.objectPath(kind, resource, namespace, name)}/status`;
    const body = await this.request({
      method: HttpMethod.PATCH,
      path,
      query: { fieldManager: this.fieldManager },
      body: { status },
      contentType: 'application/merge-patch+json',
    });
    return this.asObject(body, kind);
  }

  // --- paths and discovery ---

  private collectionPath(
    kind: KindRef,
    resource: ResourceInfo,
    namespace: string | undefined,
    allowAllNamespaces: boolean,
  ): string {
    const prefix = apiPrefix(kind.apiVersion);
    if (!resource.namespaced) return `${prefix}/${resource.name}`;
    if (!namespace) {
      if (allowAllNamespaces) return `${prefix}/${resource.name}`;
      throw new ClusterError(
        ClusterErrorReason.Invalid,
        `${kindLabel(kind)} is namespaced: a namespace is required`,
      );
    }
    return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${resource.name}`;
  }

  private objectPath(
    kind: KindRef,
    resource: ResourceInfo,
    namespace: string | undefined,
    name: string,
  ): string {
    if (!name) {
      throw new ClusterError(ClusterErrorReason.Invalid, `${kindLabel(kind)}: a name is required`);
    }
    return `${this.collectionPath(kind, resource, namespace, false)}/${encodeURIComponent(name)}`;
  }

  /** The REST resource of a kind, from discovery (cached per apiVersion, refreshed on a miss). */
  private async resource(kind: KindRef): Promise<ResourceInfo> {
    let cached = this.discovery.get(kind.apiVersion);
    let fresh = false;
    if (!cached) {
      cached = this.discover(kind.apiVersion);
      fresh = true;
    }
    let found = (await cached).get(kind.kind);
    if (!found && !fresh) {
      // A CRD may have been added since: look again once.
      this.discovery.delete(kind.apiVersion);
      found = (await this.discover(kind.apiVersion)).get(kind.kind);
    }
    if (!found) {
      throw new ClusterError(
        ClusterErrorReason.NotFound,
        `${this.server} does not serve kind ${kind.kind} in ${kind.apiVersion}`,
      );
    }
    return found;
  }

  private discover(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    const pending = (async () => {
      let body: unknown;
      try {
        body = await this.request({ method: HttpMethod.GET, path: apiPrefix(apiVersion) });
      } catch (error) {
        if (error instanceof ClusterError && error.reason === ClusterErrorReason.NotFound) {
          throw new ClusterError(
            ClusterErrorReason.NotFound,
            `${this.server} does not serve API version ${apiVersion}`,
            { status: 404, cause: error },
          );
        }
        throw error;
      }
      const map = new Map<string, ResourceInfo>();
      const resources = isRecord(body) && Array.isArray(body.resources) ? body.resources : [];
      for (const r of resources) {
        if (!isRecord(r) || typeof r.name !== 'string' || typeof r.kind !== 'string') continue;
        if (r.name.includes('/')) continue; // subresources such as configmaps/status
        map.set(r.kind, { name: r.name, namespaced: r.namespaced === true });
      }
      return map;
    })();
    this.discovery.set(apiVersion, pending);
    pending.catch(() => {
      if (this.discovery.get(apiVersion) === pending) this.discovery.delete(apiVersion);
    });
    return pending;
  }

  private asObject(body: unknown, kind: KindRef): KubeObject {
    if (!isRecord(body) || !isRecord(body.metadata)) {
      throw new ClusterError(
        ClusterErrorReason.Unknown,
        `${this.server} returned no ${kindLabel(kind)} object`,
      );
    }
    const object = body as KubeObject;
    object.apiVersion ??= kind.apiVersion;
    object.kind ??= kind.kind;
    return object;
  }

  // --- one HTTP request ---

  private async request(spec: RequestSpec): Promise<unknown> {
    const description = { server: this.server, method: spec.method, path: spec.path };
    const ctx = this.configuration.baseServer.makeRequestContext(spec.path, spec.method);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== '') ctx.setQueryParam(key, String(value));
    }
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
    this.shareDispatcher(ctx);

    let status: number;
    let headers: Record<string, string>;
    let text: string;
    try {
      let prepared = ctx;
      for (const middleware of this.configuration.middleware) {
        prepared = await middleware.pre(prepared).toPromise();
      }
      let response = await this.configuration.httpApi.send(prepared).toPromise();
      for (const middleware of this.configuration.middleware) {
        response = await middleware.post(response).toPromise();
      }
      status = response.httpStatusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      throw clusterErrorFromTransport(error, description, this.timeoutMs);
    }

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

  /** The library builds a new connection pool per request; keep the first and reuse it. */
  private shareDispatcher(ctx: RequestContext): void {
    const created = ctx.getDispatcher();
    if (created === undefined) return;
    if (this.dispatcher === undefined) {
      this.dispatcher = created;
    } else if (created !== this.dispatcher) {
      ctx.setDispatcher(this.dispatcher);
      // `created` never opened a connection; closing it releases nothing but keeps things tidy.
      void created.destroy().catch(() => undefined);
    }
  }
}
