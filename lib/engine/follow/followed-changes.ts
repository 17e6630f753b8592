/**
 * The follow's tenant watches as the proof a resumed pass needs. A resumed pass asks, for each
 * kind, every change since its resume point S up to a resourceVersion it can prove current
 * (`ClusterApi.watchChanges`): a new WATCH that ends at the apiserver's bookmark, which the watch
 * cache sends a second or more after the watch opens. A follow already holds a WATCH of each
 * synced kind, open since resourceVersion `since` and delivered in order up to `latest` (its
 * last event or bookmark): when S is not older than `since`, the changes after S up to `latest`
 * are exactly those it buffered, and the pass gets them at once. Changes after `latest` have not
 * arrived yet; when they do, they wake the next pass. So the pass decides what it would decide
 * with its own watch, without waiting for a bookmark.
 *
 * Anything that breaks the chain makes the pass open its own watch, as any pass does: a request
 * for a point older than `since`, a watch that failed (the buffer is dropped until it is reopened),
 * a buffer past {@link MAX_BUFFERED} changes. The buffer holds only changes after the oldest point
 * asked for: a pass resumes from the recorded point, which moves forward.
 */
import type {
  ClusterApi,
  KindRef,
  WatchChange,
  WatchOptions,
  WatchOutcome,
} from '../../ports/index.js';
import { resourceKey } from '../names/resource-key.js';

/** Beyond this many buffered changes of one kind, the passes open their own watches again. */
export const MAX_BUFFERED = 5_000;

const rv = (value: string): bigint | undefined =>
  /^[1-9][0-9]{0,19}$/.test(value) ? BigInt(value) : undefined;

interface KindChanges {
  since: bigint;
  latest: bigint;
  changes: Array<{ at: bigint; change: WatchChange }>;
}

/** What the follow's tenant watches delivered, per kind (see the module doc). */
export class FollowedChanges {
  private readonly kinds = new Map<string, KindChanges | undefined>();
  /** @param served counts the resumed watches answered from the buffer, and those delegated. */
  constructor(private readonly served = { buffered: 0, delegated: 0 }) {}

  /** A watch of `kind` opened at `since` (a new chain: what was buffered is dropped). */
  opened(kind: KindRef, since: string): void {
    const at = rv(since);
    this.kinds.set(
      resourceKey(kind),
      at === undefined ? undefined : { since: at, latest: at, changes: [] },
    );
  }

  /** A change the watch delivered, in order. */
  changed(kind: KindRef, change: WatchChange): void {
    const held = this.kinds.get(resourceKey(kind));
    const at = rv(change.object.metadata.resourceVersion ?? '');
    if (!held) return;
    if (at === undefined || held.changes.length >= MAX_BUFFERED) {
      this.kinds.set(resourceKey(kind), undefined);
      return;
    }
    held.changes.push({ at, change });
    if (at > held.latest) held.latest = at;
  }

  /** A bookmark: every change up to `resourceVersion` was delivered. */
  bookmarked(kind: KindRef, resourceVersion: string): void {
    const held = this.kinds.get(resourceKey(kind));
    const at = rv(resourceVersion);
    if (held && at !== undefined && at > held.latest) held.latest = at;
  }

  /** The watch failed: a change may be missing until it is opened again. */
  broken(kind: KindRef): void {
    this.kinds.set(resourceKey(kind), undefined);
  }

  /**
   * The resumed watch of `kind` from `options.resourceVersion`, from the buffer when it covers
   * it; `undefined` when the pass must watch the apiserver itself.
   */
  answer(kind: KindRef, options: WatchOptions): WatchOutcome | undefined {
    const held = this.kinds.get(resourceKey(kind));
    const from = rv(options.resourceVersion);
    if (!held || from === undefined || from < held.since) return undefined;
    // Later passes resume from here or later: what came before is needed no more.
    held.since = from;
    held.changes = held.changes.filter((c) => c.at > from);
    const changes: WatchChange[] = [];
    for (const { change } of held.changes) {
      const refused = options.take?.(change, undefined);
      if (refused !== undefined) return { resumed: false, reason: refused, bounded: true };
      if (!options.take) changes.push(change);
    }
    // A point past what the watch delivered: the pass converged up to it already, claim no more.
    let latest = held.latest;
    if (from > latest) latest = from;
    return { resumed: true, changes, resourceVersion: latest.toString() };
  }

  /** `tenantApi`, its resumed watches answered from the buffer when it covers them. */
  wrap(tenantApi: ClusterApi): ClusterApi {
    const watch = tenantApi.watchChanges?.bind(tenantApi);
    if (!watch) return tenantApi;
    const answered = async (kind: KindRef, options: WatchOptions): Promise<WatchOutcome> => {
      const outcome = this.answer(kind, options);
      if (outcome) {
        this.served.buffered += 1;
        return outcome;
      }
      this.served.delegated += 1;
      return watch(kind, options);
    };
    return new Proxy({} as ClusterApi, {
      get(_target, property) {
        if (property === 'watchChanges') return answered;
        const value: unknown = Reflect.get(tenantApi, property);
        return typeof value === 'function' ? value.bind(tenantApi) : value;
      },
    });
  }
}
