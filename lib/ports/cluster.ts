/**
 * The cluster port: the narrow slice of the Kubernetes API the engine needs. Adapters implement it
 * on `@kubernetes/client-node` (real clusters) or in memory (unit tests).
 */

/** Object metadata as the engine sees it. Unknown fields are carried through untouched. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/** Any Kubernetes object, generic over apiVersion/kind. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Identifies a kind: `{apiVersion: 'v1', kind: 'ConfigMap'}`. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

export interface ListOptions {
  /** Namespace to list in; omitted means all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size (`limit`). */
  limit?: number;
  /** Continue token from the previous page. */
  continueToken?: string;
}

export interface ListPage {
  items: KubeObject[];
  /** Present when more pages follow. */
  continueToken?: string;
}

/** Preconditions of a delete: the server refuses it when the object's uid changed. */
export interface DeletePreconditions {
  uid: string;
  resourceVersion?: string;
}

/**
 * The cluster API. Every method throws a {@link ClusterError} (see `errors.ts`) on failure, never
 * a raw HTTP error.
 */
export interface ClusterApi {
  /** One page of a LIST. */
  list(kind: KindRef, options?: ListOptions): Promise<ListPage>;
  /** GET; `undefined` when the object does not exist. */
  get(kind: KindRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
  /** Create-only: throws `AlreadyExists` rather than overwrite. */
  create(object: KubeObject): Promise<KubeObject>;
  /** Update (PUT); `object.metadata.resourceVersion` must be set, a stale one throws `Conflict`. */
  update(object: KubeObject): Promise<KubeObject>;
  /** Delete with a uid precondition. A missing object throws `NotFound`. */
  delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
  ): Promise<void>;
  /** JSON merge patch of the `status` subresource. */
  patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject>;
  /**
   * Whether the cluster serves `kind` as a namespaced resource (API discovery). Optional: a
   * client without it is trusted to serve only namespaced kinds.
   * @throws ClusterError `NotFound` when the cluster does not serve the kind at all.
   */
  namespaced?(kind: KindRef): Promise<boolean>;
  /** Requests this client has made so far (reads and writes). */
  requestCount(): RequestCount;
}

export interface RequestCount {
  reads: number;
  writes: number;
}
