/**
 * What the Events back step reads, each as cheaply as the API allows: the host namespace's Events
 * (one paged LIST, held only for what may concern this tenant), the tenant's copies of them (one
 * label-selected paged LIST), this tenant's host copies of a kind (one label-selected paged LIST,
 * only when some host Event needs a write), and a tenant object's uid (a LIST by name: the tenant
 * identity may list, not get).
 */
import {
  type ClusterApi,
  type ClusterRole,
  EVENT,
  type KindRef,
  type KubeObject,
  type ListOptions,
  withRequestDeadline,
} from '../../ports/index.js';
import { workDeadline } from '../bounds/deadlines.js';
import type { PassContext } from '../context/pass-context.js';
import { readKey } from '../context/read-ahead.js';
import { attempt } from '../errors.js';
import { EVENTS_BACK_KINDS } from '../kinds/registry.js';
import { listEveryPage } from '../listing/every-page.js';
import { tenantCopySelector } from '../names/copy-selector.js';
import { mayBeHostName } from '../names/naming.js';
import { eventCopySelector, involvedObjectOf, ruleFor } from './event-copy.js';

/** Every item of a LIST, page by page, within the work deadline; kept only when `keep` says so. */
function listAll(
  ctx: PassContext,
  api: ClusterApi,
  kind: KindRef,
  options: Omit<ListOptions, 'limit' | 'continueToken'>,
  keep?: (item: KubeObject) => boolean,
): Promise<KubeObject[]> {
  const { budget } = ctx.scope.bounds;
  return withRequestDeadline(workDeadline(budget), () =>
    listEveryPage(api, kind, budget.pageSize, options, keep),
  );
}

/** Runs a listing; a failure is one error of the pass (the Events wait), never its end. */
async function listed(
  ctx: PassContext,
  kind: KindRef,
  side: ClusterRole,
  read: () => Promise<KubeObject[]>,
): Promise<KubeObject[] | undefined> {
  const done = await attempt(read);
  if (done.ok) return done.value;
  ctx.ledger.errors.listingFailed(kind, side, done.error, 'host Events wait for the next pass');
  return undefined;
}

/**
 * The host Events in the host namespace that may concern this tenant: about an object in the
 * host namespace, of a kind `rules` sync whose Events come back, whose name can be a host name of
 * this tenant (whose copy it really is, the reverse mapping says later). Events cannot be
 * narrowed to a tenant by the server: they carry no tenant labels, and a field selector takes no
 * set of kinds; `warningsOnly` narrows them to `type=Warning`.
 */
export function listHostEvents(
  ctx: PassContext,
  rules: readonly KindRef[],
  warningsOnly = true,
): Promise<KubeObject[] | undefined> {
  const { hostApi, hostNamespace, tenant } = ctx.scope;
  const mayConcern = (event: KubeObject) => {
    const involved = involvedObjectOf(event);
    return (
      involved.namespace === hostNamespace &&
      involved.name !== undefined &&
      event.metadata.uid !== undefined &&
      ruleFor(rules, involved) !== undefined &&
      mayBeHostName(involved.name, tenant)
    );
  };
  return listed(ctx, EVENT, 'host', () =>
    listAll(
      ctx,
      hostApi,
      EVENT,
      // Warnings only (the default): the server narrows the listing, so a steady pass over
      // thousands of running Pods reads no Scheduled, Pulled or Started Event of theirs.
      { namespace: hostNamespace, ...(warningsOnly ? { fieldSelector: 'type=Warning' } : {}) },
      mayConcern,
    ),
  );
}

/** This tenant's copies of host Events, in every tenant namespace, by their labels. */
export function listEventCopies(
  ctx: PassContext,
  tenantApi: ClusterApi,
): Promise<KubeObject[] | undefined> {
  const labelSelector = eventCopySelector(ctx.scope.tenant);
  return listed(ctx, EVENT, 'tenant', () => listAll(ctx, tenantApi, EVENT, { labelSelector }));
}

/** What is kept of a host copy: its metadata is all the reverse mapping needs. */
function metadataOnly(object: KubeObject): KubeObject {
  const { name, namespace, uid, labels, annotations } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
    },
  };
}

/** This tenant's host copies of `rule`'s kind, by the engine's labels (metadata only). */
export async function listCopyMetadata(
  ctx: PassContext,
  rule: KindRef,
): Promise<KubeObject[] | undefined> {
  const { hostApi, hostNamespace, tenant } = ctx.scope;
  const labelSelector = tenantCopySelector(tenant, rule.kind);
  const copies = await listed(ctx, rule, 'host', () =>
    listAll(ctx, hostApi, rule, { namespace: hostNamespace, labelSelector }),
  );
  return copies?.map(metadataOnly);
}

/**
 * The uid of tenant object `namespace/name` of `rule`; `undefined` when it is gone or being
 * deleted (nothing to show an Event on). A LIST by name, as the tenant identity may not GET.
 */
export async function tenantObjectUid(
  ctx: PassContext,
  tenantApi: ClusterApi,
  rule: KindRef,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const page = await withRequestDeadline(workDeadline(ctx.scope.bounds.budget), () =>
    tenantApi.list(rule, { namespace, fieldSelector: `metadata.name=${name}`, limit: 1 }),
  );
  const found = page.items.find((item) => item.metadata.name === name);
  if (!found || found.metadata.deletionTimestamp) return undefined;
  return found.metadata.uid;
}

/** The listings the Events back step starts from (no copies read when no Event may need one). */
export interface EventReads {
  hostEvents: KubeObject[] | undefined;
  copies?: KubeObject[] | undefined;
}

/** The Events back reads, started while the kinds sync. */
const EVENT_READS = readKey<Promise<EventReads>>('events-back');

/**
 * Starts the host Events listing, then (when it holds any) the tenant copies listing, while the
 * kinds sync, so their answers overlap the kinds' work instead of following it. An Event the host
 * writes after they went out shows in the next pass, as one written after the pass would.
 */
export function startEventReads(
  ctx: PassContext,
  tenantApi: ClusterApi,
  rules: readonly KindRef[],
  warningsOnly: boolean,
): void {
  if (ctx.readAhead.has(EVENT_READS)) return;
  const reads = (async () => {
    const hostEvents = await listHostEvents(ctx, rules, warningsOnly);
    if (!hostEvents || hostEvents.length === 0) return { hostEvents };
    return { hostEvents, copies: await listEventCopies(ctx, tenantApi) };
  })();
  // Never an unhandled rejection: a PassError is thrown where the reads are taken.
  ctx.readAhead.start(EVENT_READS, reads);
}

/** The reads {@link startEventReads} started for this pass (started now if it did not). */
export function takeEventReads(
  ctx: PassContext,
  tenantApi: ClusterApi,
  rules: readonly KindRef[],
  warningsOnly: boolean,
): Promise<EventReads> {
  startEventReads(ctx, tenantApi, rules, warningsOnly);
  return ctx.readAhead.take(EVENT_READS) as Promise<EventReads>;
}

/** Awaits the reads started for this pass, if any, and drops them (a stopped pass). */
export async function dropEventReads(ctx: PassContext): Promise<void> {
  await ctx.readAhead.drop(EVENT_READS);
}

/** The kinds whose Events come back and the tenant they go to; `undefined`: no Events back. */
export function eventsBackScope(ctx: PassContext) {
  const { tenantApi, policy } = ctx.scope;
  const rules = policy.toHost.filter((rule) => EVENTS_BACK_KINDS.has(rule.kind));
  if (policy.workloads?.eventsBack === 'None' || rules.length === 0) return;
  return { tenantApi, rules, warningsOnly: policy.workloads?.eventsBack !== 'All' };
}

/**
 * Starts the step's reads while the kinds sync, so they overlap them: the pass starts them once the
 * host apiserver has no kind left to list (`pipeline/sync-kinds.ts`).
 */
export function prefetchEventsBack(ctx: PassContext): void {
  const scope = eventsBackScope(ctx);
  if (scope) startEventReads(ctx, scope.tenantApi, scope.rules, scope.warningsOnly);
}
