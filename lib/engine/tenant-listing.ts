/**
 * The tenant side of a kind: its objects in all namespaces, page by page, taken in as work for
 * the apply step. What a pass learns here (every source listed, every source wanted on the host)
 * is what GC later compares the host against.
 */
import {
  type ClusterApi,
  type ClusterRole,
  isClusterError,
  type KindRef,
  type KubeObject,
  type ListPage,
  type WatchOutcome,
} from '../ports/index.js';
import { ClusterUnreachableError } from './errors.js';
import { restartExpired } from './expired-listing.js';
import { sourceKey } from './gc.js';
import { PageSizer } from './page-bytes.js';
import type { PassContext } from './pass-context.js';
import type { SourceIdentity } from './provenance.js';
import { type CompiledKindRule, isExcluded } from './scope.js';
import { toHostObject } from './transform.js';

/** Pages of tenant listings; knows whether the tenant cluster has answered yet. */
export class TenantLister {
  private calls = 0;
  /** Kinds whose listing restarted after an expired continue token this pass. */
  private readonly restarted = new Set<string>();
  /** Byte-aware page sizes, per kind (`page-bytes.ts`). */
  private readonly sizers = new Map<string, PageSizer>();
  /** Resumed watches started ahead of their kind's turn ({@link prefetch}). */
  private readonly prefetched = new Map<string, Promise<WatchOutcome>>();

  constructor(
    private readonly tenantApi: ClusterApi,
    private readonly pageSize: number,
  ) {}

  /**
   * The changes of a kind since `resourceVersion`, up to the watch's bookmark; a client that
   * cannot watch is a failed resume. Not counted as the pass's first tenant call: a failed resume
   * lists next, and that listing says whether the tenant is unreachable.
   */
  watch(kind: KindRef, resourceVersion: string): Promise<WatchOutcome> {
    const key = prefetchKey(kind, resourceVersion);
    const early = this.prefetched.get(key);
    if (early) {
      this.prefetched.delete(key);
      return early;
    }
    const watch = this.tenantApi.watchChanges?.bind(this.tenantApi);
    if (!watch)
      return Promise.resolve({ resumed: false, reason: 'the tenant client cannot watch' });
    return watch(kind, {
      resourceVersion,
      timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      allowWatchBookmarks: true,
    });
  }

  /**
   * Starts {@link watch} now, for a later call with the same arguments to take: each resumed watch
   * waits about a second for its bookmark, so the kinds' watches overlap instead of adding up.
   */
  prefetch(kind: KindRef, resourceVersion: string): void {
    const started = this.watch(kind, resourceVersion);
    // Handled here too: a kind the pass never reaches (a deadline) must not leave a rejection.
    started.catch(() => {});
    this.prefetched.set(prefetchKey(kind, resourceVersion), started);
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
    const key = `${kind.apiVersion}/${kind.kind}`;
    const sizer = this.sizers.get(key) ?? new PageSizer(this.pageSize);
    this.sizers.set(key, sizer);
    try {
      const page = await this.tenantApi.list(kind, {
        limit: sizer.limit,
        ...(continueToken ? { continueToken } : {}),
      });
      sizer.observe(page.items, page.bytes);
      return page;
    } catch (error) {
      if (first && isClusterError(error, 'Transport') && !error.timedOut) {
        throw new ClusterUnreachableError('tenant' satisfies ClusterRole, { cause: error });
      }
      if (continueToken && restartExpired(this.restarted, kind, error)) {
        return this.page(kind, undefined);
      }
      throw error;
    }
  }
}

function prefetchKey(kind: KindRef, resourceVersion: string): string {
  return `${kind.apiVersion}/${kind.kind}@${resourceVersion}`;
}

/** Short enough that a stalled watch costs little; see `incremental.ts`. */
const WATCH_TIMEOUT_SECONDS = 3;

/** One tenant object to apply: its desired host object and where it came from. */
export interface ApplyItem {
  desired: KubeObject;
  source: SourceIdentity;
}

/** What the tenant listing of one kind has shown so far. */
export class TenantView {
  /** Sources that should have a host copy (listed and in scope). */
  readonly desired = new Set<string>();
  /** Every source listed, out-of-scope ones included (to word GC's reason). */
  readonly listed = new Set<string>();
  /** Tenant objects taken in. */
  count = 0;
  private reportedClusterScoped = false;

  constructor(
    private readonly ctx: PassContext,
    private readonly compiled: CompiledKindRule,
  ) {}

  /**
   * Takes in one page: checks each object, records it, and transforms the ones in scope. A
   * malformed object or a failed transform is an error of that object, never of the page.
   */
  intake(items: readonly KubeObject[]): ApplyItem[] {
    const { ctx } = this;
    const { rule } = this.compiled;
    const work: ApplyItem[] = [];
    for (const object of items) {
      this.count += 1;
      ctx.objectsSeen[rule.kind] = (ctx.objectsSeen[rule.kind] ?? 0) + 1;
      const name = object?.metadata?.name;
      const namespace = object?.metadata?.namespace;
      if (typeof name !== 'string' || name === '') {
        ctx.errors.add(rule, new Error('a tenant object without a name was ignored'));
        continue;
      }
      if (typeof namespace !== 'string' || namespace === '') {
        this.reportClusterScoped();
        continue;
      }
      if (!this.ofRuleKind(object)) continue;
      // A source being deleted in the tenant is gone already as far as the host is concerned.
      if (object.metadata.deletionTimestamp) continue;
      const key = sourceKey(namespace, name);
      // Taken in before the listing restarted (an expired continue token): applied already.
      if (this.listed.has(key)) continue;
      this.listed.add(key);
      if (isExcluded(this.compiled, object)) continue;
      this.desired.add(key);
      try {
        // The rule, not the listed item, says what is written: an aggregated API in the tenant
        // controls what its items claim to be.
        const item = { ...object, apiVersion: rule.apiVersion, kind: rule.kind };
        const desired = toHostObject(item, {
          tenant: ctx.tenant,
          hostNamespace: ctx.hostNamespace,
          excludeKeys: this.compiled.excludeKeys,
        });
        const source = {
          tenant: ctx.tenant,
          kind: rule.kind,
          virtualNamespace: namespace,
          virtualName: name,
        };
        work.push({ desired, source });
      } catch (error) {
        ctx.errors.add(rule, error, { namespace, name });
      }
    }
    return work;
  }

  /** An item that claims another apiVersion or kind than its rule is an error, never a write. */
  private ofRuleKind(object: KubeObject): boolean {
    const { rule } = this.compiled;
    const claimed = {
      apiVersion: object.apiVersion ?? rule.apiVersion,
      kind: object.kind ?? rule.kind,
    };
    if (claimed.apiVersion === rule.apiVersion && claimed.kind === rule.kind) return true;
    const { namespace, name } = object.metadata;
    this.ctx.errors.add(
      rule,
      new Error(
        `the tenant listing of ${rule.kind} (${rule.apiVersion}) returned an item that claims to be ${claimed.kind} (${claimed.apiVersion}); it was not synced`,
      ),
      { namespace: namespace ?? '', name },
    );
    return false;
  }

  /** Once per kind: a kind whose objects have no namespace cannot have a host namespace copy. */
  private reportClusterScoped(): void {
    if (this.reportedClusterScoped) return;
    this.reportedClusterScoped = true;
    const { kind } = this.compiled.rule;
    this.ctx.errors.add(
      this.compiled.rule,
      new Error(`${kind} objects without a namespace cannot be synced; only namespaced kinds can`),
    );
  }
}
