/**
 * A resumed WATCH, read up to its first bookmark. `@kubernetes/client-node`'s `Watch` aborts every
 * stream after 30 s and hides the HTTP status, so the request is made here through {@link KubeHttp}
 * with a short `timeoutSeconds`: the apiserver sends a bookmark about 2 s before that timeout,
 * after every change since the asked resourceVersion. Everything that says the resume cannot be
 * trusted (an ERROR event such as 410 Expired, HTTP 410/429/504 or any other error status, a
 * timeout or end of stream before the bookmark, a resourceVersion that does not parse) is a
 * `{resumed: false, reason}` outcome: the engine lists in full instead.
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
 * Opens the watch at `path` (the kind's collection in all namespaces) and reads it to its first
 * bookmark (see the module doc).
 */
export async function watchChanges(
  http: KubeHttp,
  path: string,
  kind: KindRef,
  options: WatchOptions,
): Promise<WatchOutcome> {
  if (!RESOURCE_VERSION.test(options.resourceVersion)) {
    return {
      resumed: false,
      reason: `the stored resourceVersion ${JSON.stringify(options.resourceVersion)} does not parse`,
    };
  }
  const changes: WatchChange[] = [];
  let end: { bookmark: string } | { failed: string } | undefined;
  try {
    await http.streamLines(
      { method: HttpMethod.GET, path, query: watchQuery(options) },
      options.timeoutSeconds * 1000 + CLIENT_MARGIN_MS,
      (line) => {
        const parsed = parseWatchLine(line, kind);
        if ('change' in parsed) changes.push(parsed.change);
        else if ('bookmark' in parsed || 'failed' in parsed) end = parsed;
        return end !== undefined;
      },
    );
  } catch (error) {
    if (isClusterError(error) && error.status !== undefined) {
      return {
        resumed: false,
        reason: `the watch answered HTTP ${error.status} (${error.reason})`,
      };
    }
    if (isClusterError(error, 'Transport') && error.timedOut) {
      return { resumed: false, reason: 'the watch timed out before its bookmark' };
    }
    return { resumed: false, reason: `the watch failed: ${errorMessage(error)}` };
  }
  const last = end as { bookmark: string } | { failed: string } | undefined;
  if (last === undefined) return { resumed: false, reason: 'the watch ended without a bookmark' };
  if ('failed' in last) return { resumed: false, reason: last.failed };
  return { resumed: true, changes, resourceVersion: last.bookmark };
}
