/**
 * A resumed WATCH, read up to a bookmark that proves it has caught up. `@kubernetes/client-node`'s
 * `Watch` aborts every stream after 30 s and hides the HTTP status, so the requests are made here
 * through {@link KubeHttp}.
 *
 * Why two requests: the watch cache sends a bookmark (about 2 s before `timeoutSeconds`) only
 * once its own resourceVersion has moved past the watch's, and on a quiet resource it moves only
 * with an etcd progress notification (every 10 minutes by default), so a bare resumed watch on a
 * quiet tenant ends at its timeout with no bookmark. A consistent `LIST limit=1` first reads the
 * cluster's current resourceVersion and, since consistent reads are served from the cache after
 * it caught up with etcd, moves the cache there: the watch then gets its bookmark within a
 * second, and only a bookmark (or an event) at or past that resourceVersion ends it. The LIST also answers two
 * questions for free: the same resourceVersion as stored means nothing at all changed (no watch
 * needed), and a smaller one means the stored point came from another cluster (or a restored
 * etcd).
 *
 * Everything that says the resume cannot be trusted (an ERROR event such as 410 Expired, HTTP
 * 410/429/504 or any other error status, a timeout or end of stream before the bookmark, a
 * resourceVersion that does not parse or lies ahead of the cluster) is a `{resumed: false,
 * reason}` outcome: the engine lists in full instead.
 */
import { HttpMethod } from '@kubernetes/client-node';
import { errorMessage, isRecord } from '../../common/index.js';
import {
  isClusterError,
  type KindRef,
  type KubeObject,
  type WatchChange,
  type WatchOptions,
  type WatchOutcome,
} from '../../ports/index.js';
import { isStall } from './errors.js';
import type { KubeHttp } from './http.js';

/** etcd resourceVersions are decimal integers; anything else is not resumable. */
const RESOURCE_VERSION = /^[1-9][0-9]{0,19}$/;

/** Extra time the client waits past `timeoutSeconds` before it calls the watch stalled. */
const CLIENT_MARGIN_MS = 2_000;

/** The query of a resumed watch. */
export function watchQuery(options: WatchOptions): Record<string, string | number> {
  return {
    watch: 'true',
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : 'false',
    timeoutSeconds: options.timeoutSeconds,
  };
}

/** What one line of a watch stream means for the resume. */
export type WatchLine =
  | { change: WatchChange }
  | { bookmark: string }
  | { failed: string }
  | { ignored: true };

/** Parses one line of a watch stream (JSON, one event per line). */
export function parseWatchLine(line: string, kind: KindRef): WatchLine {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return { failed: 'the watch sent a line that is not JSON' };
  }
  if (!isRecord(event) || !isRecord(event.object)) {
    return { failed: 'the watch sent an event without an object' };
  }
  const { type, object } = event;
  if (type === 'ERROR') {
    const code = typeof object.code === 'number' ? object.code : undefined;
    const message = typeof object.message === 'string' ? object.message : 'no message';
    return { failed: `the watch answered ERROR${code ? ` ${code}` : ''} (${message})` };
  }
  const metadata = isRecord(object.metadata) ? object.metadata : undefined;
  if (type === 'BOOKMARK') {
    const rv = metadata?.resourceVersion;
    return typeof rv === 'string' && RESOURCE_VERSION.test(rv)
      ? { bookmark: rv }
      : { failed: 'the watch sent a bookmark without a resourceVersion' };
  }
  if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return { ignored: true };
  if (!metadata || typeof metadata.name !== 'string') {
    return { failed: `the watch sent a ${type} event without a name` };
  }
  const withKind = object as KubeObject;
  withKind.apiVersion ??= kind.apiVersion;
  withKind.kind ??= kind.kind;
  return { change: { type, object: withKind } };
}

/**
 * What the cluster's current resourceVersion says about a stored one: nothing changed since
 * (`same`), it lies ahead of the cluster (`ahead`: recorded elsewhere), or a watch must tell.
 */
export function orderOfResourceVersions(
  stored: string,
  current: string,
): 'same' | 'ahead' | 'behind' {
  const a = BigInt(stored);
  const b = BigInt(current);
  return a === b ? 'same' : a > b ? 'ahead' : 'behind';
}

/**
 * Opens the watch at `path` (the kind's collection in all namespaces) and reads it up to a
 * bookmark at or past the cluster's current resourceVersion (see the module doc).
 */
export async function watchChanges(
  http: KubeHttp,
  path: string,
  kind: KindRef,
  options: WatchOptions,
): Promise<WatchOutcome> {
  const stored = options.resourceVersion;
  if (!RESOURCE_VERSION.test(stored)) {
    return {
      resumed: false,
      reason: `the stored resourceVersion ${JSON.stringify(stored)} does not parse`,
    };
  }
  let current: string;
  try {
    current = await currentResourceVersion(http, path);
  } catch (error) {
    // No answer before the pass deadline is a stalled server, not a failed resume: the full
    // listing would only wait again.
    if (isStall(error)) throw error;
    return { resumed: false, reason: failure('reading the current resourceVersion', error) };
  }
  const order = orderOfResourceVersions(stored, current);
  if (order === 'same') return { resumed: true, changes: [], resourceVersion: stored };
  if (order === 'ahead') {
    return {
      resumed: false,
      reason: `the stored resourceVersion ${stored} is ahead of the cluster's ${current}: it was recorded on another cluster, or etcd was restored`,
    };
  }
  const floor = BigInt(current);
  const changes: WatchChange[] = [];
  let end: { bookmark: string } | { failed: string; bounded?: true } | undefined;
  try {
    await http.streamLines(
      { method: HttpMethod.GET, path, query: watchQuery(options) },
      options.timeoutSeconds * 1000 + CLIENT_MARGIN_MS,
      (line) => {
        const parsed = parseWatchLine(line, kind);
        if ('change' in parsed) {
          const refused = options.take?.(parsed.change, line.length);
          if (refused !== undefined) {
            end = { failed: refused, bounded: true };
            return true;
          }
          if (!options.take) changes.push(parsed.change);
          // The cache sends no bookmark at the resourceVersion of an event it just sent: an
          // event at or past the floor is the proof itself (events come in order).
          const rv = parsed.change.object.metadata.resourceVersion;
          if (rv !== undefined && RESOURCE_VERSION.test(rv) && BigInt(rv) >= floor) {
            end = { bookmark: rv };
          }
        } else if ('failed' in parsed) end = parsed;
        // An earlier bookmark only says the cache had not caught up yet.
        else if ('bookmark' in parsed && BigInt(parsed.bookmark) >= floor) end = parsed;
        return end !== undefined;
      },
    );
  } catch (error) {
    if (isStall(error)) throw error;
    return { resumed: false, reason: failure('the watch', error) };
  }
  const last = end as { bookmark: string } | { failed: string; bounded?: true } | undefined;
  if (last === undefined) {
    return { resumed: false, reason: `the watch ended without a bookmark at ${current} or later` };
  }
  if ('failed' in last) {
    return last.bounded
      ? { resumed: false, reason: last.failed, bounded: true }
      : { resumed: false, reason: last.failed };
  }
  return { resumed: true, changes, resourceVersion: last.bookmark };
}

/** The resourceVersion of a consistent one-item LIST at `path`: the cluster's current one. */
export async function currentResourceVersion(http: KubeHttp, path: string): Promise<string> {
  const body = await http.request({ method: HttpMethod.GET, path, query: { limit: 1 } });
  const metadata = isRecord(body) && isRecord(body.metadata) ? body.metadata : {};
  const rv = metadata.resourceVersion;
  if (typeof rv !== 'string' || !RESOURCE_VERSION.test(rv)) {
    throw new Error(
      `the LIST answered resourceVersion ${JSON.stringify(rv)}, which does not parse`,
    );
  }
  return rv;
}

/** Why a request of the resume failed, in the words of a fallback reason. */
function failure(what: string, error: unknown): string {
  if (isClusterError(error) && error.status !== undefined) {
    return `${what} answered HTTP ${error.status} (${error.reason})`;
  }
  if (isClusterError(error, 'Transport') && error.timedOut) {
    return what === 'the watch' ? 'the watch timed out before its bookmark' : `${what} timed out`;
  }
  return `${what} failed: ${errorMessage(error)}`;
}
