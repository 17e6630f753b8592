/**
 * What the tenant Nodes step reads (`tenant-nodes.ts`): one paged LIST of the tenant's Nodes, and
 * of the host only the nodes the host Pods name (a GET each, never a LIST of every host node). A full path starts both as soon as it has listed the host Pods
 * (`prefetchNodeReads`), so their answers overlap the Pod kind's tenant pages.
 */
import { runPool } from '../../../../common/index.js';
import { type ClusterApi, type KubeObject, NODE } from '../../../../ports/index.js';
import type { PassContext } from '../../../context/pass-context.js';
import { readKey } from '../../../context/read-ahead.js';
import { listEveryPage } from '../../../listing/every-page.js';
import { nodesOf } from './node-copy.js';

/** Every Node `api` lists, page by page (the tenant's: only the ones the engine made, as a rule). */
function listNodes(ctx: PassContext, api: ClusterApi): Promise<KubeObject[]> {
  return listEveryPage(api, NODE, ctx.scope.bounds.budget.pageSize);
}

/**
 * The named host nodes that exist, by name: a GET each, at the pass's concurrency. Never a LIST of
 * every host node: what a pass reads (and holds) of the host grows with the tenant's Pods, not with
 * the host's size, and the tenant learns nothing of nodes its Pods do not run on.
 */
async function readHostNodes(
  ctx: PassContext,
  names: readonly string[],
): Promise<Map<string, KubeObject>> {
  const { hostApi, bounds } = ctx.scope;
  const found = new Map<string, KubeObject>();
  await runPool([...names], bounds.budget.concurrency, async (name) => {
    const node = await hostApi.get(NODE, undefined, name);
    if (node) found.set(name, node);
  });
  return found;
}

/** The two Node reads of the step: the tenant's Nodes, and the host nodes `names` names. */
interface NodeReads {
  names: string;
  tenant: Promise<KubeObject[]>;
  host: Promise<Map<string, KubeObject>>;
}

/** The Node reads started ahead of the step (`prefetchNodeReads`). */
const NODE_READS = readKey<NodeReads>('tenant-nodes');

/** Waits for both reads (never rejects). */
function settleNodeReads(reads: NodeReads): Promise<unknown> {
  return Promise.allSettled([reads.tenant, reads.host]);
}

/** Both reads at once, each on its apiserver; neither rejects unawaited. */
function startNodeReads(ctx: PassContext, tenantApi: ClusterApi, wanted: string[]): NodeReads {
  const host =
    wanted.length === 0
      ? Promise.resolve(new Map<string, KubeObject>())
      : readHostNodes(ctx, wanted);
  const tenant = listNodes(ctx, tenantApi);
  host.catch(() => undefined);
  tenant.catch(() => undefined);
  return { names: wanted.join('\n'), tenant, host };
}

/**
 * Starts the step's reads for `hostPods` (the tenant's host Pods as a full path listed them),
 * so their answers overlap the kind's tenant pages; the step takes them when it converges the
 * Nodes of the same host nodes, and reads anew otherwise (the kind wrote Pods since).
 */
export function prefetchNodeReads(ctx: PassContext, hostPods: readonly KubeObject[]): void {
  const { tenantApi, bounds } = ctx.scope;
  if (!tenantApi.bind || bounds.isStopped() || ctx.readAhead.has(NODE_READS)) return;
  ctx.readAhead.start(
    NODE_READS,
    startNodeReads(ctx, tenantApi, nodesOf(hostPods)),
    settleNodeReads,
  );
}

/** Awaits and forgets the reads started ahead that no step took: no request outlives the pass. */
export async function dropNodeReads(ctx: PassContext): Promise<void> {
  await ctx.readAhead.drop(NODE_READS);
}

/** The reads for `wanted`: those started ahead when they read the same host nodes. */
export async function takeNodeReads(ctx: PassContext, tenantApi: ClusterApi, wanted: string[]) {
  const ahead = ctx.readAhead.peek(NODE_READS);
  if (ahead?.names === wanted.join('\n')) {
    ctx.readAhead.take(NODE_READS);
    return ahead;
  }
  await dropNodeReads(ctx);
  return startNodeReads(ctx, tenantApi, wanted);
}
