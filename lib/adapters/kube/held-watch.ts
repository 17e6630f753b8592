/**
 * A WATCH held open for follow mode: every change is handed over as it arrives, until the server
 * ends the watch at its `timeoutSeconds` (the caller opens the next one from the last
 * resourceVersion seen, so a quiet follow costs one request per watch and timeout), the caller
 * stops it, or it fails.
 *
 * It starts at a resourceVersion the caller gives, or at the cluster's current one (a consistent
 * `LIST limit=1`), never at `resourceVersion=0` or none, which would replay every object as
 * ADDED. A failure is an outcome, not a throw: an ERROR event (410 Expired), an error status, a
 * stream that ends by the client's timeout (a stalled server) or breaks. The caller then converges
 * in full, since a change may have been missed.
 */
import { HttpMethod } from '@kubernetes/client-node';
import { errorMessage } from '../../common/index.js';
import {
  type HeldWatchEnd,
  type HeldWatchOptions,
  isClusterError,
  type KindRef,
} from '../../ports/index.js';
import type { KubeHttp } from './http.js';
import { currentResourceVersion, parseWatchLine } from './watch.js';

/** Extra time the client waits past `timeoutSeconds` before it calls the watch stalled. */
const CLIENT_MARGIN_MS = 5_000;

/** Holds the watch of the collection at `path` (see the module doc). */
export async function holdWatch(
  http: KubeHttp,
  path: string,
  kind: KindRef,
  options: HeldWatchOptions,
): Promise<HeldWatchEnd> {
  const { signal } = options;
  let resourceVersion = options.resourceVersion;
  let failed: { reason: string; expired: boolean } | undefined;
  try {
    resourceVersion ??= await currentResourceVersion(http, path);
    if (signal.aborted) return { ended: 'stopped', resourceVersion };
    const query: Record<string, string | number> = {
      watch: 'true',
      resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: options.timeoutSeconds,
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
    };
    await http.streamLines(
      { method: HttpMethod.GET, path, query },
      options.timeoutSeconds * 1000 + CLIENT_MARGIN_MS,
      (line) => {
        const parsed = parseWatchLine(line, kind);
        if ('failed' in parsed) {
          failed = { reason: parsed.failed, expired: / 410 /.test(`${parsed.failed} `) };
          return true;
        }
        if ('bookmark' in parsed) {
          resourceVersion = parsed.bookmark;
          options.onBookmark?.(parsed.bookmark);
        }
        if ('change' in parsed) {
          resourceVersion = parsed.change.object.metadata.resourceVersion ?? resourceVersion;
          options.onChange(parsed.change);
        }
        return false;
      },
      signal,
    );
  } catch (error) {
    const reason = `the watch of ${kind.kind} failed: ${errorMessage(error)}`;
    return { ended: 'failed', reason, expired: isClusterError(error) && error.status === 410 };
  }
  if (failed) return { ended: 'failed', ...failed };
  if (resourceVersion === undefined) {
    return { ended: 'failed', reason: 'the watch had no resourceVersion', expired: false };
  }
  return { ended: signal.aborted ? 'stopped' : 'timeout', resourceVersion };
}
