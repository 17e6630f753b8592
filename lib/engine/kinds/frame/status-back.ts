/**
 * Status back for the kinds whose module names a status-back rule (Pods: `pod/status-back.ts`): after the kind's
 * writes, each tenant object the kind read whose host copy exists shows that copy's status
 * (`status-patch.ts`), written through the tenant object's `/status` subresource (a
 * JSON merge patch of what differs), apart from every spec or metadata write, so a refused spec
 * write never holds the status back. A kind whose turn does more with the tenant objects and
 * their copies composes its own from the same parts ({@link copiesAfterPath},
 * {@link StatusBack.pairs}, {@link StatusBack.write}, {@link fullWhenUnsettled}): the Service's
 * turn realigns a tenant Service to its copy's cluster IP before the status
 * (`../service/service-turn.ts`); this writer calls no kind.
 *
 * What the tenant shows is known only from what the kind read: on the full path every tenant
 * object, on the resumed path only the changed ones. So a host-only change (a load balancer
 * address, a claim bound later) shows at the next full pass; a host copy still moving (not
 * settled, made less than {@link STARTING_MS} ago) keeps the kind on full passes meanwhile. The
 * host side is the kind's own host listing on a full path that wrote nothing, else one
 * label-selected, paged LIST of the tenant's copies of the kind. A steady state writes nothing.
 */
import { runPool } from '../../../common/index.js';
import {
  type ClusterErrorReason,
  type KindRef,
  type KubeObject,
  withRequestDeadline,
} from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { stepWrite } from '../../context/step-write.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import { tenantCopyLabels, tenantCopySelector } from '../../names/copy-selector.js';
import { sourceKey } from '../../names/provenance.js';
import { ourCopySource } from '../../names/reverse-mapping.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import type { KindTurn } from './kind-module.js';
import { type StatusBackRule, statusBackPatch } from './status-patch.js';

/**
 * How long a host copy that is still moving (a Pod not yet Ready, a claim not yet bound) keeps its
 * kind on full passes: long enough to start (image pulls included), short enough that one that
 * never settles (an unschedulable Pod) costs full listings only for a while, then waits for the
 * next full pass like any host-only change.
 */
export const STARTING_MS = 10 * 60_000;

/**
 * The tenant's copies of `rule`'s kind among a listing of the host namespace (the kind's own, on
 * a full path): what {@link listHostCopies} would have read, without reading it again.
 */
export function ownCopies(
  ctx: PassContext,
  rule: KindRef,
  hostObjects: readonly KubeObject[],
): KubeObject[] {
  const wanted = Object.entries(tenantCopyLabels(ctx.scope.tenant, rule.kind));
  return hostObjects.filter((o) =>
    wanted.every(([key, value]) => o.metadata.labels?.[key] === value),
  );
}

/**
 * Every host copy of `rule`'s kind the tenant has (by the engine's labels), page by page;
 * `undefined` when they could not be listed (an error of the kind, `what` says what waits) or the
 * pass is stopped.
 */
export async function listHostCopies(
  ctx: PassContext,
  rule: KindRef,
  what: string,
): Promise<KubeObject[] | undefined> {
  const { hostApi, hostNamespace, bounds, tenant } = ctx.scope;
  if (bounds.isStopped()) return undefined;
  const labelSelector = tenantCopySelector(tenant, rule.kind);
  const listed = await attempt(() =>
    withRequestDeadline(workDeadline(bounds.budget), () =>
      listEveryPage(hostApi, rule, bounds.budget.pageSize, {
        namespace: hostNamespace,
        labelSelector,
      }),
    ),
  );
  if (listed.ok) return listed.value;
  ctx.ledger.errors.listingFailed(rule, 'host', listed.error, what);
  return undefined;
}

/**
 * The tenant objects a kind took in this pass, by source: what their host copies' status is
 * written back onto. Only those: what the tenant shows is known only from what the kind read.
 */
export class NotedObjects {
  private readonly seen = new Map<string, KubeObject>();

  /** @param keep what is held of a noted object (a Pod: a slim view; a pass may see thousands). */
  constructor(
    private readonly owner: { tenant: string; kind: string },
    private readonly keep: (object: KubeObject) => KubeObject = (object) => object,
  ) {}

  /** Takes note of a tenant object the kind took in (what it shows now); not one being deleted. */
  note(object: KubeObject): void {
    if (object.metadata.deletionTimestamp) return;
    const { namespace, name } = object.metadata;
    this.seen.set(sourceKey(namespace ?? '', name), this.keep(object));
  }

  get size(): number {
    return this.seen.size;
  }

  /** The noted tenant object whose current copy `host` is, if any. */
  of(host: KubeObject): KubeObject | undefined {
    const source = ourCopySource(host, this.owner);
    if (!source) return undefined;
    const object = this.seen.get(sourceKey(source.virtualNamespace, source.virtualName));
    // Every copy carries its tenant object's uid (`transform.ts`): one that carries another (a
    // copy of an earlier tenant object of the name) or none (not a copy the engine made of this
    // object: a host controller's object stamped with the engine's labels) is not this one's.
    const uid = object?.metadata.uid;
    if (uid && source.virtualUid !== uid) return undefined;
    return object;
  }
}

/** What one tenant object needs: something recorded on it (an update), its status, or both. */
export interface StatusDue {
  host: KubeObject;
  tenant: KubeObject;
  update?: KubeObject;
  patch?: Record<string, unknown>;
}

/**
 * Writes what is due, in the budgeted pool: the update first, carrying the resourceVersion it was
 * read at, then the status (a merge patch of `/status`, which needs none). A failure in
 * `changedMeanwhile` (the object deleted or changed since it was read) is left to the next pass,
 * which reads it anew; any other is an error of that object, as the server answered.
 */
export async function writeStatuses(
  ctx: PassContext,
  rule: KindRef,
  due: readonly StatusDue[],
  changedMeanwhile: readonly ClusterErrorReason[],
): Promise<void> {
  const { bounds, tenantApi, hostNamespace } = ctx.scope;
  const send = (item: StatusDue, request: () => Promise<unknown>) => {
    const { namespace = '', name } = item.tenant.metadata;
    return stepWrite(ctx, {
      rule,
      tenantRef: { namespace, name },
      hostRef: { namespace: hostNamespace, name: item.host.metadata.name },
      send: request,
      changedMeanwhile,
    });
  };
  await runPool(
    due,
    bounds.budget.concurrency,
    async (item) => {
      const { namespace = '', name } = item.tenant.metadata;
      const { update, patch } = item;
      if (update) await send(item, () => tenantApi.update(update));
      if (patch) await send(item, () => tenantApi.patchStatus(rule, namespace, name, patch));
    },
    () => bounds.isStopped(),
  );
}

/** A tenant object the kind read, with its host copy. */
export interface CopyPair {
  readonly host: KubeObject;
  readonly tenant: KubeObject;
}

/** The tenant objects of one kind the pass read, and their status written back from the host. */
export class StatusBack {
  private readonly seen: NotedObjects;
  /** Host copies still moving: the caller makes the kind's next pass full. */
  unsettled = 0;

  constructor(
    private readonly ctx: PassContext,
    private readonly rule: KindRef,
    private readonly statusRule: StatusBackRule,
  ) {
    this.seen = new NotedObjects({ tenant: ctx.scope.tenant, kind: rule.kind });
  }

  /** Takes note of a tenant object the kind took in (what it shows now). */
  readonly note = (object: KubeObject): void => this.seen.note(object);

  /** Whether any tenant object was taken in (and can be written). */
  get pending(): boolean {
    return this.seen.size > 0;
  }

  /** The noted tenant objects with their host copy among `copies` (one not being deleted). */
  pairs(copies: readonly KubeObject[]): CopyPair[] {
    const pairs: CopyPair[] = [];
    for (const host of copies) {
      if (host.metadata.deletionTimestamp) continue;
      const tenant = this.seen.of(host);
      if (tenant) pairs.push({ host, tenant });
    }
    return pairs;
  }

  /**
   * Writes back the status of every tenant object of `pairs` whose host copy shows another, but
   * those in `replaced` (a kind's own step recreated them: the object read is gone, its status
   * waits for the next pass). A failed write is an error of that object.
   */
  async write(
    pairs: readonly CopyPair[],
    replaced: ReadonlySet<KubeObject> = new Set(),
  ): Promise<void> {
    const { clock } = this.ctx.scope;
    const due: StatusDue[] = [];
    for (const { host, tenant: object } of pairs) {
      if (replaced.has(object)) continue;
      const patch = statusBackPatch(this.statusRule, host, object);
      if (patch) due.push({ host, tenant: object, patch });
      const created = Date.parse(String(host.metadata.creationTimestamp ?? ''));
      const young = Number.isFinite(created) && clock.now() - created < STARTING_MS;
      if (young && !this.statusRule.settled(host)) this.unsettled += 1;
    }
    // Deleted since it was read, or changed (the next pass reads it anew and writes again).
    await writeStatuses(this.ctx, this.rule, due, ['NotFound', 'Conflict']);
  }
}

/**
 * The host copies of `rule`'s kind after its path: the full path's host listing (`listed`) when
 * the kind wrote nothing since, which is what a listing shows; else one label-selected LIST
 * (`undefined` when it failed: an error of the kind).
 */
export async function copiesAfterPath(
  ctx: PassContext,
  rule: KindRef,
  listed: readonly KubeObject[] | undefined,
  wrote: boolean,
): Promise<KubeObject[] | undefined> {
  const current = listed !== undefined && !wrote ? ownCopies(ctx, rule, listed) : undefined;
  return current ?? (await listHostCopies(ctx, rule, 'its status back waits'));
}

/**
 * After a status back: a status write left undone (the copies unread, an error since `errors`),
 * or a host copy still moving, is found again only by a listing, so the kind's next pass is full.
 */
export function fullWhenUnsettled(
  ctx: PassContext,
  rule: KindRef,
  settled: { copies: unknown; unsettled: number; errors: number },
): void {
  const { copies, unsettled, errors } = settled;
  if (copies === undefined || unsettled > 0 || ctx.ledger.errors.errors.length !== errors)
    ctx.memory.resume.clear(rule);
}

/**
 * The turn of a kind whose status comes back: the path tells it the tenant objects it read (and a
 * full path its host listing); after the path, the status of those tenant objects (see
 * {@link fullWhenUnsettled}).
 */
export function statusBackTurn(
  ctx: PassContext,
  compiled: CompiledKindRule,
  statusRule: StatusBackRule,
): KindTurn {
  const { rule } = compiled;
  const status = new StatusBack(ctx, rule, statusRule);
  let listed: readonly KubeObject[] | undefined;
  return {
    observe: status.note,
    listedHost: (hostObjects) => {
      listed = hostObjects;
    },
    async afterKind({ wrote }) {
      if (!status.pending) return;
      const errors = ctx.ledger.errors.errors.length;
      const copies = await copiesAfterPath(ctx, rule, listed, wrote);
      if (copies !== undefined) await status.write(status.pairs(copies));
      fullWhenUnsettled(ctx, rule, { copies, unsettled: status.unsettled, errors });
    },
  };
}
