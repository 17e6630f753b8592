/**
 * Nodes back, the tenant Nodes: after the Pod kind, in a pass that listed the tenant's host Pods,
 * the tenant gets a Node for each host node those Pods run on (`node-copy.ts`), kept
 * equal to its host node (written only when something it shows changed), and loses each Node the
 * engine made that no Pod needs any more. A tenant Node the engine did not make is never touched:
 * a Skip says so, and no tenant Pod is bound to it.
 *
 * What it reads: one paged LIST of the tenant's Nodes (they are few: only the ones the engine
 * made, unless the tenant has its own), and of the host only the nodes the host Pods name, a GET
 * each, never a LIST of every host node (`node-reads.ts`).
 * A Node is removed only when no host Pod of the tenant names it and a LIST of the tenant's Pods
 * bound to it (field selector, `limit: 1`) finds none: a tenant Pod still bound to it (being
 * deleted, say, or of another TenantCluster of the same tenant cluster) keeps it.
 *
 * Why no heartbeat: the tenant's node lifecycle controller, were it running, would mark every such
 * Node `Unknown` 40-50 s after its last heartbeat and then evict its Pods; a pass every few
 * minutes cannot keep that fresh (and a steady pass writes nothing), so the tenant's controller
 * manager runs without it (docs/workloads.md#nodes).
 */
import { type ClusterApi, type KubeObject, NODE, POD } from '../../../../ports/index.js';
import { budgetedWrite, passedOn } from '../../../bounds/budgeted-write.js';
import type { PassContext } from '../../../context/pass-context.js';
import { TenantCopyWriter } from '../../../context/tenant-copies.js';
import { attempt } from '../../../errors.js';
import { deleteAsRead } from '../../../names/preconditions.js';
import { isOurNode, nodeStatusPatch, nodesOf, planNode, tenantNode } from './node-copy.js';
import { takeNodeReads } from './node-reads.js';

/** The tenant Nodes of one pass: what it wrote, and which a tenant Pod may be bound to. */
class TenantNodes {
  /** Nodes of the engine present in the tenant after the pass's writes: Pods may be bound to them. */
  readonly bindable = new Set<string>();

  private readonly writer: TenantCopyWriter;

  constructor(
    private readonly ctx: PassContext,
    private readonly tenantApi: ClusterApi,
  ) {
    this.writer = new TenantCopyWriter(ctx, NODE, 'tenant Node');
  }

  private decide(...args: Parameters<TenantCopyWriter['decide']>): void {
    this.writer.decide(...args);
  }

  /** Runs the writes of one Decision; true when it is done (a delete: the Node is gone). */
  private async write(...args: Parameters<TenantCopyWriter['write']>): Promise<boolean> {
    const written = await this.writer.write(...args);
    return written === 'written' || written === 'gone';
  }

  /** Converges the tenant Node of one host node the tenant's Pods run on. */
  async converge(hostNode: KubeObject, observed: KubeObject | undefined): Promise<void> {
    const { ctx, tenantApi } = this;
    const { name } = hostNode.metadata;
    if (observed?.metadata.deletionTimestamp) return; // created anew once it is gone
    const desired = tenantNode(
      hostNode,
      ctx.scope.tenant,
      ctx.scope.policy.workloads?.kubeletGateway,
    );
    const plan = planNode(desired, observed);
    switch (plan.action) {
      case 'InSync':
        this.bindable.add(name);
        return;
      case 'Foreign':
        this.decide(
          'Skip',
          name,
          `the tenant has a Node "${name}" that tenantplane did not make: it is left untouched, and the tenant Pods whose host copies run on host node "${name}" are not bound to it`,
        );
        return;
      case 'Create': {
        const reason = `Pods of the tenant run on host node "${name}": the tenant gets a Node of that name to show it`;
        const created = await this.write('Create', name, reason, async () => {
          const stored = await tenantApi.create(plan.body);
          // An apiserver that takes no status on create (the status has its own subresource).
          const status = nodeStatusPatch(desired, stored);
          if (!status) return;
          // A write of its own: without the budget for it, the next pass writes the status.
          await budgetedWrite(ctx.scope.bounds, {
            whenSpent: () => undefined,
            send: () => tenantApi.patchStatus(NODE, undefined, name, status),
            decide: passedOn,
          });
        });
        if (created) this.bindable.add(name);
        return;
      }
      case 'Update': {
        // Pods may be bound to it whether or not it can follow its host node this pass.
        this.bindable.add(name);
        const writes = (plan.update ? 1 : 0) + (plan.status ? 1 : 0);
        const reason = `host node "${name}" changed (${plan.changed.join(', ')}): its tenant Node follows`;
        const send = async () => {
          if (plan.update) await tenantApi.update(plan.update);
          if (plan.status) await tenantApi.patchStatus(NODE, undefined, name, plan.status);
        };
        await this.write('Update', name, reason, send, { writes });
      }
    }
  }

  /** Removes a Node of the engine that no host Pod of the tenant names, unless a tenant Pod is bound to it. */
  async remove(node: KubeObject): Promise<void> {
    const { tenantApi } = this;
    const { name } = node.metadata;
    const bound = await tenantApi.list(POD, { fieldSelector: `spec.nodeName=${name}`, limit: 1 });
    if (bound.items.length > 0) return;
    const reason = `no Pod of the tenant runs on host node "${name}" any more: its tenant Node goes`;
    await this.write('Delete', name, reason, () => deleteAsRead(tenantApi, NODE, node));
  }
}

/**
 * Converges the tenant Nodes for `hostPods`, every host Pod of the tenant (a complete listing):
 * see the module doc. A failed listing is an error of the Node kind (nothing is written or
 * removed from what could not be read); a failed write is that Node's error.
 * @returns the Nodes of the engine the tenant has now, which tenant Pods may be bound to.
 */
export async function syncTenantNodes(
  ctx: PassContext,
  hostPods: readonly KubeObject[],
): Promise<ReadonlySet<string>> {
  const { tenantApi, bounds } = ctx.scope;
  if (bounds.isStopped()) return new Set();
  const wanted = nodesOf(hostPods);
  const nodes = new TenantNodes(ctx, tenantApi);
  // Both sides at once, each on its apiserver; the host's answer waits if the tenant's failed.
  const { tenant, host: hostNodes } = await takeNodeReads(ctx, tenantApi, wanted);
  const tenantNodes = await attempt(() => tenant).finally(async () => {
    await hostNodes.catch(() => undefined); // no request outlives the step
  });
  if (!tenantNodes.ok) {
    ctx.ledger.errors.listingFailed(
      NODE,
      'tenant',
      tenantNodes.error,
      'no tenant Pod is bound to one',
    );
    return nodes.bindable;
  }
  const inTenant = new Map(tenantNodes.value.map((n) => [n.metadata.name, n] as const));
  const host = await attempt(() => hostNodes);
  if (!host.ok) {
    ctx.ledger.errors.listingFailed(NODE, 'host', host.error, 'its tenant Nodes wait');
    // What the tenant has of the engine's still takes its Pods.
    for (const name of wanted) {
      const node = inTenant.get(name);
      if (node && isOurNode(node) && !node.metadata.deletionTimestamp) nodes.bindable.add(name);
    }
    return nodes.bindable;
  }
  const onHost = host.value;
  for (const name of wanted) {
    if (bounds.isStopped()) return nodes.bindable;
    const hostNode = onHost.get(name);
    const observed = inTenant.get(name);
    if (hostNode) await nodes.converge(hostNode, observed);
    // A host node gone while Pods still name it: its tenant Node stays as it was until they go.
    else if (observed && isOurNode(observed)) nodes.bindable.add(name);
  }
  const needed = new Set(wanted);
  for (const node of [...inTenant.values()].sort((a, b) =>
    a.metadata.name < b.metadata.name ? -1 : 1,
  )) {
    if (bounds.isStopped()) break;
    if (needed.has(node.metadata.name) || !isOurNode(node) || node.metadata.deletionTimestamp)
      continue;
    const removed = await attempt(() => nodes.remove(node));
    if (!removed.ok) {
      ctx.ledger.errors.add(NODE, removed.error, { namespace: '', name: node.metadata.name });
    }
  }
  return nodes.bindable;
}
