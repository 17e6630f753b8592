/**
 * The cluster port on `@kubernetes/client-node` 2.x.
 *
 * It uses the library's `KubeConfig` (every auth method it supports: client certificates, tokens,
 * exec plugins, OIDC) and its HTTP plumbing (see `http.ts`), and builds the REST paths itself from
 * API discovery (`rest-paths.ts`, `discovery.ts`). It does not use `KubernetesObjectApi` because
 * that class deserializes known kinds into model classes (timestamps become `Date`s), has no
 * subresource calls (`/status`) and cannot send a `DeleteOptions` with preconditions next to
 * nothing else; the engine needs the objects exactly as the server sent them. Every request has
 * a bounded timeout (30 s by default), every failure is a typed ClusterError.
 */
import { HttpMethod, type KubeConfig } from '@kubernetes/client-node';
import { isRecord } from '../../common/index.js';
import {
  type ClusterApi,
  ClusterError,
  ClusterErrorReason,
  type DeleteOptions,
  type DeletePreconditions,
  type HeldWatchEnd,
  type HeldWatchOptions,
  type IssuedToken,
  isClusterError,
  type KindRef,
  type KubeconfigText,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type RequestCount,
  type TokenRequestSpec,
  type WatchOptions,
  type WatchOutcome,
} from '../../ports/index.js';
import { certificateAuthorityOf, loadKubeconfig } from '../kubeconfig/load.js';
import { DiscoveryCache } from './discovery.js';
import { holdWatch } from './held-watch.js';
import { KubeHttp, type RequestSpec } from './http.js';
import { hearContinue } from './list-head.js';
import { OpenApiCache } from './openapi.js';
import {
  bindingPath,
  collectionPath,
  kindLabel,
  listQuery,
  objectPath,
  statusPath,
} from './rest-paths.js';
import { watchChanges } from './watch.js';

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

/** Items of a typed list carry no apiVersion/kind: restore them from the kind asked for. */
function withKind(body: Record<string, unknown>, kind: KindRef): KubeObject {
  const object = body as KubeObject;
  object.apiVersion ??= kind.apiVersion;
  object.kind ??= kind.kind;
  return object;
}

function kindOf(object: KubeObject): KindRef {
  return { apiVersion: object.apiVersion, kind: object.kind };
}

export class KubeClusterClient implements KubeClusterApi {
  readonly server: string;
  readonly context: string;
  readonly certificateAuthority?: string;
  private readonly http: KubeHttp;
  private readonly discovery: DiscoveryCache;
  private readonly openApi: OpenApiCache;
  private readonly fieldManager: string;

  constructor(kubeConfig: KubeConfig, server: string, context: string, options: ClusterApiOptions) {
    this.server = server;
    this.context = context;
    const ca = certificateAuthorityOf(kubeConfig);
    if (ca !== undefined) this.certificateAuthority = ca;
    this.fieldManager = options.fieldManager ?? 'tenantplane';
    this.http = new KubeHttp(kubeConfig, server, context, {
      timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      userAgent: options.userAgent ?? 'tenantplane',
    });
    this.discovery = new DiscoveryCache(server, (path) =>
      this.http.request({ method: HttpMethod.GET, path }),
    );
    this.openApi = new OpenApiCache(server, this.http);
  }

  requestCount(): RequestCount {
    return this.http.requestCount();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** Whether discovery says `kind` is namespaced; NotFound when the kind is not served. */
  async namespaced(kind: KindRef): Promise<boolean> {
    return (await this.discovery.resource(kind)).namespaced;
  }
  /** `kind`'s subresources (`resize`...); every namespaced kind, one version per group. */
  readonly subresources = (kind: KindRef): Promise<string[]> => this.discovery.subresources(kind);
  readonly namespacedKinds = (): Promise<KindRef[]> => this.discovery.namespacedKinds();
  readonly openApiSchemas = (groupVersion: string, names: readonly string[]) =>
    this.openApi.schemas(groupVersion, names);
  async list(kind: KindRef, options: ListOptions = {}): Promise<ListPage> {
    const resource = await this.discovery.resource(kind);
    const path = collectionPath(kind, resource, options.namespace, true);
    const { body, bytes } = await this.http.exchange({
      method: HttpMethod.GET,
      path,
      query: listQuery(options),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      ...hearContinue(options.onContinue),
    });
    if (!isRecord(body) || !Array.isArray(body.items)) {
      throw new ClusterError(
        ClusterErrorReason.Unknown,
        `LIST ${path} on ${this.server} returned no items list`,
      );
    }
    const items = (body.items as unknown[]).filter(isRecord).map((item) => withKind(item, kind));
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const token = typeof metadata.continue === 'string' ? metadata.continue : '';
    const page: ListPage = token === '' ? { items, bytes } : { items, continueToken: token, bytes };
    if (typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '') {
      page.resourceVersion = metadata.resourceVersion;
    }
    return page;
  }

  async watchChanges(kind: KindRef, options: WatchOptions): Promise<WatchOutcome> {
    const resource = await this.discovery.resource(kind);
    return watchChanges(this.http, collectionPath(kind, resource, undefined, true), kind, options);
  }

  async holdWatch(kind: KindRef, options: HeldWatchOptions): Promise<HeldWatchEnd> {
    const resource = await this.discovery.resource(kind);
    return holdWatch(
      this.http,
      collectionPath(kind, resource, options.namespace, true),
      kind,
      options,
    );
  }

  async get(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const resource = await this.discovery.resource(kind);
    const path = objectPath(kind, resource, namespace, name);
    try {
      return this.asObject(await this.http.request({ method: HttpMethod.GET, path }), kind);
    } catch (error) {
      if (isClusterError(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  async create(object: KubeObject, options: { dryRun?: boolean } = {}): Promise<KubeObject> {
    const kind = kindOf(object);
    const resource = await this.discovery.resource(kind);
    const path = collectionPath(kind, resource, object.metadata.namespace);
    const query = options.dryRun ? { dryRun: 'All' } : {}; // dryRun: answered, never stored
    return this.write(kind, { method: HttpMethod.POST, path, body: object, query });
  }

  async update(object: KubeObject): Promise<KubeObject> {
    const kind = kindOf(object);
    if (!object.metadata.resourceVersion) {
      throw new ClusterError(
        ClusterErrorReason.Invalid,
        `update of ${kindLabel(kind)} ${object.metadata.name} needs metadata.resourceVersion, so that a concurrent change is detected`,
      );
    }
    const resource = await this.discovery.resource(kind);
    const path = objectPath(kind, resource, object.metadata.namespace, object.metadata.name);
    return this.write(kind, { method: HttpMethod.PUT, path, body: object });
  }

  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
    options?: DeleteOptions,
  ): Promise<void> {
    const resource = await this.discovery.resource(kind);
    const path = objectPath(kind, resource, namespace, name);
    const pre: Record<string, string> = { uid: preconditions.uid };
    if (preconditions.resourceVersion) pre.resourceVersion = preconditions.resourceVersion;
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: pre, ...options };
    await this.http.request({ method: HttpMethod.DELETE, path, body });
  }

  async patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject> {
    const resource = await this.discovery.resource(kind);
    return this.write(kind, {
      method: HttpMethod.PATCH,
      path: statusPath(kind, resource, namespace, name),
      body: { status },
      contentType: 'application/merge-patch+json',
    });
  }

  /** PUT of the `resize` subresource (in-place Pod resize), with the observed resourceVersion. */
  async resize(object: KubeObject): Promise<KubeObject> {
    const kind = kindOf(object);
    const resource = await this.discovery.resource(kind);
    const path = `${objectPath(kind, resource, object.metadata.namespace, object.metadata.name)}/resize`;
    return this.write(kind, { method: HttpMethod.PUT, path, body: object });
  }

  /** POST of a Pod's `binding` subresource; the server answers with a Status, not the Pod. */
  async bind(binding: KubeObject): Promise<void> {
    const path = bindingPath(binding.metadata.namespace, binding.metadata.name);
    const query = { fieldManager: this.fieldManager };
    await this.http.request({ method: HttpMethod.POST, path, query, body: binding });
  }

  /** A write that returns the object; the server records `fieldManager` as its owner. */
  async createToken(
    namespace: string,
    serviceAccount: string,
    request: TokenRequestSpec,
  ): Promise<IssuedToken> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`;
    const body = await this.http.request({
      method: HttpMethod.POST,
      path,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: request },
    });
    const status = isRecord(body) && isRecord(body.status) ? body.status : {};
    const { token, expirationTimestamp } = status;
    if (typeof token !== 'string' || token === '' || typeof expirationTimestamp !== 'string') {
      // Never the body in the message: it may hold a token.
      throw new ClusterError(
        ClusterErrorReason.Unknown,
        `POST ${path} on ${this.server}: no token`,
      );
    }
    return { token, expirationTimestamp };
  }

  private async write(kind: KindRef, spec: RequestSpec): Promise<KubeObject> {
    const query = { ...spec.query, fieldManager: this.fieldManager };
    return this.asObject(await this.http.request({ ...spec, query }), kind);
  }

  private asObject(body: unknown, kind: KindRef): KubeObject {
    if (!isRecord(body) || !isRecord(body.metadata)) {
      const message = `${this.server} returned no ${kindLabel(kind)} object`;
      throw new ClusterError(ClusterErrorReason.Unknown, message);
    }
    return withKind(body, kind);
  }
}
