/**
 * The tenant side of a kind: its objects in all namespaces, page by page (or, resumed, the
 * changes since a resourceVersion). What the pass makes of the pages is `pipeline/tenant-view.ts`.
 */
import {
  type ClusterApi,
  type ClusterRole,
  isClusterError,
  type KindRef,
  type ListPage,
  type WatchChange,
} from '../../ports/index.js';
import { ClusterUnreachableError } from '../errors.js';
import { type ResourceKey, resourceKey } from '../names/resource-key.js';
import type { KindRule } from '../policy/policy.js';
import { compileKindRule } from '../policy/scope.js';
import { ChangeWindow, type WindowBudget } from './change-window.js';
import { restartExpired } from './expired-listing.js';
import { PageSizer, wasCutOff } from './page-bytes.js';

/**
 * What a resumed watch left a kind (`change-window.ts`): the latest change of each object in
 * scope and how many changes the watch delivered in all; or why the resume failed, `bounded`
 * when it stopped at the resumed path's budget.
 */
export type ResumedWatch =
  | { resumed: true; changes: WatchChange[]; seen: number; resourceVersion: string }
  | { resumed: false; reason: string; bounded?: true };

/** Pages of tenant listings; knows whether the tenant cluster has answered yet. */
export class TenantLister {
  private calls = 0;
  /** Kinds whose listing restarted after an expired continue token this pass. */
  private readonly restarted = new Set<ResourceKey>();
  /** Byte-aware page sizes, per kind (`page-bytes.ts`). */
  private readonly sizers = new Map<ResourceKey, PageSizer>();
  /** Resumed watches started ahead of their kind's turn ({@link prefetch}). */
  private readonly prefetched = new Map<string, Promise<ResumedWatch>>();

  constructor(
    private readonly tenantApi: ClusterApi,
    private readonly pageSize: number,
    private readonly windowBudget?: WindowBudget,
  ) {}

  /**
   * The changes of a kind since `resourceVersion`, up to the watch's bookmark; a client that
   * cannot watch is a failed resume. Not counted as the pass's first tenant call: a failed resume
   * lists next, and that listing says whether the tenant is unreachable.
   */
  watch(rule: KindRule, resourceVersion: string): Promise<ResumedWatch> {
    const key = prefetchKey(rule, resourceVersion);
    const early = this.prefetched.get(key);
    if (early) {
      this.prefetched.delete(key);
      return early;
    }
    const watch = this.tenantApi.watchChanges?.bind(this.tenantApi);
    if (!watch)
      return Promise.resolve({ resumed: false, reason: 'the tenant client cannot watch' });
    // The window holds the changes as they stream in, bounded (`change-window.ts`).
    const window = new ChangeWindow(compileKindRule(rule), this.windowBudget);
    const take = window.take.bind(window);
    const options = { resourceVersion, timeoutSeconds: WATCH_TIMEOUT_SECONDS };
    return watch(rule, { ...options, allowWatchBookmarks: true, take }).then((outcome) => {
      if (!outcome.resumed) return outcome;
      // A client that held the changes itself: they go through the same window.
      for (const change of outcome.changes) {
        const refused = window.take(change, undefined);
        if (refused !== undefined) return { resumed: false, reason: refused, bounded: true };
      }
      const { resourceVersion: at } = outcome;
      return { resumed: true, changes: window.changes, seen: window.seen, resourceVersion: at };
    });
  }

  /**
   * Starts {@link watch} now, for a later call with the same arguments to take: each resumed watch
   * waits about a second for its bookmark, so the kinds' watches overlap instead of adding up.
   */
  prefetch(rule: KindRule, resourceVersion: string): void {
    const started = this.watch(rule, resourceVersion);
    // Handled here too: a kind the pass never reaches (a deadline) must not leave a rejection.
    started.catch(() => {});
    this.prefetched.set(prefetchKey(rule, resourceVersion), started);
  }

  /** Whether the tenant client can resume a watch at all. */
  get canWatch(): boolean {
    return typeof this.tenantApi.watchChanges === 'function';
  }

  /**
   * One page of a kind in all namespaces. A continue token the server no longer honours (410
   * Gone, `Expired`) restarts the kind's listing from its first page, once per kind and pass (the
   * view skips what it already took in); a second expiry gives up (`restartExpired`).
   * @throws ClusterUnreachableError when the very first tenant request of the pass fails at the
   * transport level (a timeout is a stalled server, not an unreachable one); later transport
   * failures are per-kind trouble the next pass retries.
   */
  async page(kind: KindRef, continueToken: string | undefined): Promise<ListPage> {
    this.calls += 1;
    const first = this.calls === 1;
    const key = resourceKey(kind);
    const sizer = this.sizers.get(key) ?? new PageSizer(this.pageSize);
    this.sizers.set(key, sizer);
    try {
      const page = await this.tenantApi.list(kind, {
        limit: sizer.limit,
        ...(sizer.maxBytes === undefined ? {} : { maxBytes: sizer.maxBytes }),
        ...(continueToken ? { continueToken } : {}),
      });
      sizer.observe(page.items, page.bytes);
      return page;
    } catch (error) {
      if (first && isClusterError(error, 'Transport') && !error.timedOut) {
        throw new ClusterUnreachableError('tenant' satisfies ClusterRole, { cause: error });
      }
      // A page far larger than meant: ask again from the same place, smaller (page-bytes.ts).
      if (wasCutOff(error)) {
        sizer.cutOff();
        return this.page(kind, continueToken);
      }
      if (continueToken && restartExpired(this.restarted, kind, error)) {
        return this.page(kind, undefined);
      }
      throw error;
    }
  }
}

/** A prefetched watch: the kind (by resource key) and the resourceVersion it resumes from. */
function prefetchKey(kind: KindRef, resourceVersion: string): string {
  return `${resourceKey(kind)}@${resourceVersion}`;
}

/** Short enough that a stalled watch costs little; see `pipeline/kind-path.ts`. */
export const WATCH_TIMEOUT_SECONDS = 3;
