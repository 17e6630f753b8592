/**
 * REST paths and query parameters of the Kubernetes API, built from a kind and its discovered
 * resource. Pure (no I/O), so every shape of path is unit-tested without a server.
 */
import {
  ClusterError,
  ClusterErrorReason,
  type KindRef,
  type ListOptions,
} from '../../ports/index.js';

/** A kind's REST resource, as API discovery reports it. */
export interface ResourceInfo {
  /** Plural resource name, e.g. `configmaps`. */
  name: string;
  namespaced: boolean;
  /** Its subresources (`status`, `resize`...), as discovery lists them (`pods/resize`). */
  subresources?: string[];
}

/** Query parameters before encoding; `undefined` and empty values are left out of the URL. */
export type QueryValues = Record<string, string | number | undefined>;

/** `v1/ConfigMap`: how messages name a kind. */
export function kindLabel(kind: KindRef): string {
  return `${kind.apiVersion}/${kind.kind}`;
}

/**
 * The root of an API version: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise.
 * It is also where that version's discovery document is served.
 */
export function apiVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/**
 * The collection of `resource`: where objects are listed and created.
 *
 * A cluster-scoped resource ignores `namespace`. A namespaced one needs it, except for a list
 * across all namespaces (`allowAllNamespaces`).
 * @throws ClusterError `Invalid` when a namespaced resource gets no namespace it needs.
 */
export function collectionPath(
  kind: KindRef,
  resource: ResourceInfo,
  namespace: string | undefined,
  allowAllNamespaces = false,
): string {
  const prefix = apiVersionPath(kind.apiVersion);
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

/**
 * The path of one object of `resource`.
 * @throws ClusterError `Invalid` when `name` is empty or a namespaced resource has no namespace.
 */
export function objectPath(
  kind: KindRef,
  resource: ResourceInfo,
  namespace: string | undefined,
  name: string,
): string {
  if (!name) {
    throw new ClusterError(ClusterErrorReason.Invalid, `${kindLabel(kind)}: a name is required`);
  }
  return `${collectionPath(kind, resource, namespace)}/${encodeURIComponent(name)}`;
}

/**
 * The `status` subresource of one object.
 * @throws ClusterError `Invalid` as {@link objectPath} does.
 */
export function statusPath(
  kind: KindRef,
  resource: ResourceInfo,
  namespace: string | undefined,
  name: string,
): string {
  return `${objectPath(kind, resource, namespace, name)}/status`;
}

/**
 * The `binding` subresource of a Pod (always core `v1`, namespaced).
 * @throws ClusterError `Invalid` when the namespace or name is empty.
 */
export function bindingPath(namespace: string | undefined, name: string): string {
  const pods = { name: 'pods', namespaced: true };
  return `${objectPath({ apiVersion: 'v1', kind: 'Pod' }, pods, namespace, name)}/binding`;
}

/** The query of a LIST, in the server's parameter names. */
export function listQuery(options: ListOptions): QueryValues {
  return {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    limit: options.limit,
    continue: options.continueToken,
  };
}

/**
 * The parameters that go into the URL, in order, as strings. An empty value is dropped like an
 * unset one: the ports treat `''` as unset (an empty continue token ends a list).
 */
export function queryParams(query: QueryValues = {}): [string, string][] {
  const params: [string, string][] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.push([key, String(value)]);
  }
  return params;
}
