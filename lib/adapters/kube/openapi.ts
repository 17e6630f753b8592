/**
 * The OpenAPI v3 schemas of a group version, for what fields a cluster serves. The document of
 * `api/v1` is large (a few MiB), so it is read with a bound on its bytes and kept per its hash:
 * the index (`/openapi/v3`, small) names each document with a `?hash=` that changes when the
 * server's types do (an upgrade), so the big one is fetched again only then. Only the properties
 * of the schemas asked for are kept.
 */
import { HttpMethod } from '@kubernetes/client-node';
import { isRecord } from '../../common/index.js';
import { ClusterError, type OpenApiSchemas } from '../../ports/index.js';
import type { KubeHttp } from './http.js';

/** The bound on one group version's document (api/v1 of 1.37 is about 1.5 MB). */
export const OPENAPI_MAX_BYTES = 16 * 1024 * 1024;
/** The bound on the index of documents. */
const INDEX_MAX_BYTES = 1024 * 1024;

/** The properties of `names` in an OpenAPI v3 document, and its `info.version`. */
export function schemaProperties(doc: unknown, names: readonly string[]): OpenApiSchemas {
  const info = isRecord(doc) && isRecord(doc.info) ? doc.info : {};
  const components = isRecord(doc) && isRecord(doc.components) ? doc.components : {};
  const schemas = isRecord(components.schemas) ? components.schemas : {};
  const properties: Record<string, readonly string[]> = {};
  for (const name of names) {
    const schema = schemas[name];
    if (isRecord(schema) && isRecord(schema.properties)) {
      properties[name] = Object.keys(schema.properties);
    }
  }
  return { ...(typeof info.version === 'string' ? { version: info.version } : {}), properties };
}

/** The server-relative URL of `groupVersion`'s document in the index, hash included. */
export function documentUrl(index: unknown, groupVersion: string): string | undefined {
  const paths = isRecord(index) && isRecord(index.paths) ? index.paths : {};
  const entry = paths[groupVersion];
  const url = isRecord(entry) ? entry.serverRelativeURL : undefined;
  return typeof url === 'string' && url.startsWith('/') ? url : undefined;
}

/** One API server's OpenAPI v3 reads, each document kept by its hashed URL. */
export class OpenApiCache {
  private readonly kept = new Map<string, Promise<OpenApiSchemas>>();

  constructor(
    private readonly server: string,
    private readonly http: Pick<KubeHttp, 'request'>,
  ) {}

  /** GETs a server-relative URL (its query kept) with a bound on its bytes. */
  private get(url: string, maxBytes: number): Promise<unknown> {
    const [path = url, query] = url.split('?', 2);
    const values = Object.fromEntries(new URLSearchParams(query ?? ''));
    return this.http.request({ method: HttpMethod.GET, path, query: values, maxBytes });
  }

  /** The document's schemas, with the server's full version (`/version`: `v1.33.13`). */
  private async read(url: string, names: readonly string[]): Promise<OpenApiSchemas> {
    const found = schemaProperties(await this.get(url, OPENAPI_MAX_BYTES), names);
    // The document says only `1.33`; `/version` (open to every client) says the patch too.
    const version = await this.get('/version', INDEX_MAX_BYTES);
    const git = isRecord(version) ? version.gitVersion : undefined;
    return typeof git === 'string' ? { ...found, version: git } : found;
  }

  /** See `ClusterApi.openApiSchemas`. */
  async schemas(groupVersion: string, names: readonly string[]): Promise<OpenApiSchemas> {
    const url = documentUrl(await this.get('/openapi/v3', INDEX_MAX_BYTES), groupVersion);
    if (url === undefined) {
      throw new ClusterError('NotFound', `${this.server} has no OpenAPI v3 of ${groupVersion}`);
    }
    const key = `${url} ${names.join(',')}`;
    let read = this.kept.get(key);
    if (!read) {
      read = this.read(url, names);
      // A failed read is not kept: the next full pass tries again. One hash at a time.
      read.catch(() => this.kept.delete(key));
      this.kept.clear();
      this.kept.set(key, read);
    }
    return read;
  }
}
