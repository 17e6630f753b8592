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

/** What {@link ClusterApi.openApiSchemas} read: each schema found, by name, as its property names. */
export interface OpenApiSchemas {
  /** The server's version (`v1.33.13`, from `/version`; else the document's `info.version`). */
  version?: string;
  properties: Record<string, readonly string[]>;
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
  /**
   * The most bytes of response the caller will take: a longer page is cut off and the list fails
   * with a `TooLarge` ClusterError, so a page asked for by count cannot be far larger than meant.
   */
  maxBytes?: number;
  /**
   * Heard as soon as the page's continue token is read from the response (`undefined`: the last
   * page), with the response's length, before its items are parsed: a listing may ask for the next
   * page meanwhile. Not heard when the client cannot tell early; the page then says.
   */
  onContinue?: (continueToken: string | undefined, bytes: number) => void;
}

export interface ListPage {
  items: KubeObject[];
  /** Present when more pages follow. */
  continueToken?: string;
  /** The list's resourceVersion (`metadata.resourceVersion`): a watch resumes from it. */
  resourceVersion?: string;
  /** About how many bytes the page's response took (its JSON text), when the client knows. */
  bytes?: number;
}

/** A WATCH that reads the changes since `resourceVersion` and ends at the first bookmark. */
export interface WatchOptions {
  resourceVersion: string;
  /** Asked of the server; it sends a bookmark about 2 s before this ends the watch. */
  timeoutSeconds: number;
  allowWatchBookmarks: boolean;
  /**
   * Takes each change as it streams in (with the size of its event when the client knows it), so
   * the client holds none: the outcome's `changes` is then empty. A returned reason stops the
   * watch at once, and the outcome is `{resumed: false, reason, bounded: true}`.
   */
  take?: (change: WatchChange, bytes: number | undefined) => string | undefined;
}

/** One change a watch delivered. */
export interface WatchChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

/** A WATCH held open (follow mode): each change is handed over as it arrives. */
export interface HeldWatchOptions {
  /** Where the watch starts; absent: from the cluster's current resourceVersion (no old change). */
  resourceVersion?: string;
  /** One namespace; absent: every namespace (or a cluster-scoped kind). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Asked of the server, which then ends the watch; the caller opens the next one. */
  timeoutSeconds: number;
  /** Ends the watch early (the follow ends). */
  signal: AbortSignal;
  /** Hears each change, in order, as it arrives. */
  onChange: (change: WatchChange) => void;
  /** Hears each bookmark: every change up to its resourceVersion was delivered. */
  onBookmark?: (resourceVersion: string) => void;
}

/**
 * How a held watch ended: at its timeout or when stopped, with the resourceVersion the next one
 * resumes from; or failed (`expired`: 410, the resume point is too old), and a change may have
 * been missed, so the caller converges in full before it watches again.
 */
export type HeldWatchEnd =
  | { ended: 'timeout' | 'stopped'; resourceVersion: string }
  | { ended: 'failed'; reason: string; expired: boolean };

/**
 * What a resumed watch read: every change since the asked resourceVersion up to the bookmark
 * (`resourceVersion` is the bookmark's), or why the resume failed (the caller lists in full).
 */
export type WatchOutcome =
  | { resumed: true; changes: WatchChange[]; resourceVersion: string }
  | { resumed: false; reason: string; bounded?: true };

/** How a create is made. */
export interface CreateOptions {
  /**
   * Validated and admitted as a create would be, never stored (`dryRun=All`): what the server
   * would answer. The server checks an asked cluster IP against its range this way, but not
   * whether another Service holds it.
   */
  dryRun?: boolean;
}

/** Preconditions of a delete: the server refuses it when the object's uid changed. */
export interface DeletePreconditions {
  uid: string;
  resourceVersion?: string;
}

/** How a delete is carried out, apart from what it must find (its preconditions). */
export interface DeleteOptions {
  /**
   * Seconds the object's holder gets to end it (a Pod's containers); `0` ends a Pod at once, as a
   * kubelet confirms a Pod's end. Absent: the object's own default.
   */
  gracePeriodSeconds?: number;
  /**
   * What the cluster's garbage collector does with the object's dependents (objects whose
   * `ownerReferences` name its uid). `Orphan`: it removes those references, deletes none, and only
   * then lets the object go (the object waits for it, `orphan` finalizer). `Background`: the object
   * goes at once and the collector deletes its dependents after; asked of an object waiting to be
   * orphaned, it lets the object go now. Absent: the kind's default (background for most).
   */
  propagationPolicy?: 'Orphan' | 'Background';
}

/**
 * A TokenRequest (`authentication.k8s.io/v1`) for a service account: the token a workload of the
 * cluster would get, bound to one object so it dies with it.
 */
export interface TokenRequestSpec {
  /** Audiences the token is for; empty or absent means the apiserver's own. */
  audiences?: string[];
  /** Asked lifetime; the apiserver may shorten it. */
  expirationSeconds: number;
  /** The object the token is bound to (a Pod): deleting it invalidates the token. */
  boundObjectRef?: { apiVersion: string; kind: string; name: string; uid?: string };
}

/** What a TokenRequest returned. The token is a credential: never log or record it. */
export interface IssuedToken {
  token: string;
  /** RFC 3339, as the apiserver set it. */
  expirationTimestamp: string;
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
  create(object: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  /** Update (PUT); `object.metadata.resourceVersion` must be set, a stale one throws `Conflict`. */
  update(object: KubeObject): Promise<KubeObject>;
  /** Delete with a uid precondition. A missing object throws `NotFound`. */
  delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
    options?: DeleteOptions,
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
  /**
   * The subresources the cluster serves for `kind` (API discovery: `resize` for `pods/resize`),
   * so the engine can tell what an older host lacks. Optional: a client without it says nothing.
   * @throws ClusterError `NotFound` when the cluster does not serve the kind at all.
   */
  subresources?(kind: KindRef): Promise<string[]>;
  /**
   * Every namespaced kind the server can list, one version per API group (its preferred one),
   * from API discovery: where the objects of a namespace may live. Optional: a client without it
   * cannot tell what a namespace holds beyond the kinds it is asked about.
   * @throws ClusterError when a group's discovery fails (an aggregated API that is down).
   */
  namespacedKinds?(): Promise<KindRef[]>;
  /**
   * The properties of the named schemas of one group version's OpenAPI v3 document
   * (`/openapi/v3/api/v1`), and the server's version as the document states it: which fields the
   * cluster serves. Optional: a client without it says nothing (the engine then assumes all).
   * @throws ClusterError when the document cannot be read (`TooLarge` over the adapter's bound).
   */
  openApiSchemas?(groupVersion: string, names: readonly string[]): Promise<OpenApiSchemas>;
  /**
   * The changes of `kind` in all namespaces since `options.resourceVersion`, read by a WATCH up to
   * its first bookmark. Resume failures (410 Gone as an ERROR event or HTTP status, 429, 504, a
   * timeout before the bookmark, an unparsable resourceVersion) are an outcome, not a throw.
   * Optional: a client without it always lists in full.
   */
  watchChanges?(kind: KindRef, options: WatchOptions): Promise<WatchOutcome>;
  /**
   * Holds a WATCH of `kind` open until the server ends it, `options.signal` stops it or it fails
   * (never a throw). Optional: a client without it cannot be followed.
   */
  holdWatch?(kind: KindRef, options: HeldWatchOptions): Promise<HeldWatchEnd>;
  /**
   * Resizes a Pod in place: PUT of its `resize` subresource with `object` (its
   * `metadata.resourceVersion` set), of which the server takes only the container resources.
   * Optional: without it a Pod's resource change is that Pod's error.
   */
  resize?(object: KubeObject): Promise<KubeObject>;
  /**
   * Creates a Pod's `Binding` (`v1`; POST `pods/<metadata.name>/binding` in its
   * `metadata.namespace`), as a scheduler does: it sets the Pod's `spec.nodeName` to
   * `target.name`, once. Optional: without it a pass binds no Pod.
   * @throws ClusterError `Conflict` when the Pod is already bound, `NotFound` when it is gone.
   */
  bind?(binding: KubeObject): Promise<void>;
  /**
   * Mints a token for service account `serviceAccount` of `namespace` (POST
   * `serviceaccounts/<name>/token`). Optional: without it a pass mints no tenant tokens.
   */
  createToken?(
    namespace: string,
    serviceAccount: string,
    request: TokenRequestSpec,
  ): Promise<IssuedToken>;
  /**
   * The PEM certificate authority this client trusts for its server, when the kubeconfig names
   * one: what a workload of this cluster must trust too.
   */
  readonly certificateAuthority?: string;
  /** Requests this client has made so far (reads and writes). */
  requestCount(): RequestCount;
  /**
   * The API server URL this client talks to, when it has one: compared, never dialled, so a
   * pass can refuse a tenant kubeconfig that names the host's own server.
   */
  readonly server?: string;
}

export interface RequestCount {
  reads: number;
  writes: number;
}
