/**
 * API discovery: which REST resource serves a kind, and whether it is namespaced. Cached per
 * apiVersion for the client's lifetime because every request needs it and it rarely changes; a
 * kind the cache does not know triggers one fresh look, since a CRD may have been added since.
 */
import { isRecord } from '../../common/index.js';
import {
  ClusterError,
  ClusterErrorReason,
  isClusterError,
  type KindRef,
} from '../../ports/index.js';
import { apiVersionPath, type ResourceInfo } from './rest-paths.js';

/** GETs a path of the API server and returns its JSON body. */
export type GetJson = (path: string) => Promise<unknown>;

/**
 * The kinds of a discovery document (an `APIResourceList`), by kind. Subresources such as
 * `pods/resize` are not where a kind's objects live: they are listed on their resource.
 */
export function resourcesByKind(body: unknown): Map<string, ResourceInfo> {
  const map = new Map<string, ResourceInfo>();
  const resources = isRecord(body) && Array.isArray(body.resources) ? body.resources : [];
  const subresources = new Map<string, string[]>();
  for (const r of resources) {
    if (!isRecord(r) || typeof r.name !== 'string' || typeof r.kind !== 'string') continue;
    const [name, sub] = r.name.split('/', 2);
    if (sub !== undefined) {
      subresources.set(name!, [...(subresources.get(name!) ?? []), sub]);
      continue;
    }
    map.set(r.kind, { name: r.name, namespaced: r.namespaced === true });
  }
  for (const info of map.values()) {
    const subs = subresources.get(info.name);
    if (subs) info.subresources = subs;
  }
  return map;
}

/** The discovery cache of one API server. */
export class DiscoveryCache {
  private readonly server: string;
  private readonly get: GetJson;
  /** Pending or settled discovery per apiVersion, so concurrent callers share one request. */
  private readonly byVersion = new Map<string, Promise<Map<string, ResourceInfo>>>();

  /**
   * @param server The API server URL, for messages.
   * @param get How discovery documents are fetched (the client's request plumbing).
   */
  constructor(server: string, get: GetJson) {
    this.server = server;
    this.get = get;
  }

  /**
   * The REST resource of `kind`.
   * @throws ClusterError `NotFound` when the server does not serve the kind or its apiVersion.
   */
  async resource(kind: KindRef): Promise<ResourceInfo> {
    let cached = this.byVersion.get(kind.apiVersion);
    let fresh = false;
    if (!cached) {
      cached = this.discover(kind.apiVersion);
      fresh = true;
    }
    let found = (await cached).get(kind.kind);
    if (!found && !fresh) {
      this.byVersion.delete(kind.apiVersion);
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

  /**
   * The subresources of `kind` (`resize` for `pods/resize`).
   * @throws ClusterError `NotFound` when the server does not serve the kind or its apiVersion.
   */
  async subresources(kind: KindRef): Promise<string[]> {
    return (await this.resource(kind)).subresources ?? [];
  }

  /**
   * Every namespaced kind the server lists: the core version and each group's preferred one, so
   * an object is seen once, not once per version it is served in. Not cached: asked rarely, and
   * a CRD added since must be in it.
   * @throws ClusterError when the group list or a version's discovery cannot be read.
   */
  async namespacedKinds(): Promise<KindRef[]> {
    const core = await this.get('/api');
    const groups = await this.get('/apis');
    const versions = [
      ...(isRecord(core) && Array.isArray(core.versions) ? core.versions : []),
      ...(isRecord(groups) && Array.isArray(groups.groups) ? groups.groups : []).map((g) =>
        isRecord(g) && isRecord(g.preferredVersion) ? g.preferredVersion.groupVersion : undefined,
      ),
    ].filter((v): v is string => typeof v === 'string');
    const kinds: KindRef[] = [];
    for (const apiVersion of versions) {
      const body = await this.get(apiVersionPath(apiVersion));
      const resources = isRecord(body) && Array.isArray(body.resources) ? body.resources : [];
      for (const r of resources) {
        if (!isRecord(r) || typeof r.name !== 'string' || typeof r.kind !== 'string') continue;
        const listable = Array.isArray(r.verbs) && r.verbs.includes('list');
        if (!r.name.includes('/') && r.namespaced === true && listable)
          kinds.push({ apiVersion, kind: r.kind });
      }
    }
    return kinds;
  }

  private discover(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    const pending = (async () => {
      try {
        return resourcesByKind(await this.get(apiVersionPath(apiVersion)));
      } catch (error) {
        if (isClusterError(error, 'NotFound')) {
          throw new ClusterError(
            ClusterErrorReason.NotFound,
            `${this.server} does not serve API version ${apiVersion}`,
            { status: 404, cause: error },
          );
        }
        throw error;
      }
    })();
    this.byVersion.set(apiVersion, pending);
    // A failure is not cached (the next call asks again), unless a newer discovery replaced it.
    pending.catch(() => {
      if (this.byVersion.get(apiVersion) === pending) this.byVersion.delete(apiVersion);
    });
    return pending;
  }
}
