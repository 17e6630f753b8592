/**
 * Nodes back, the bindings: a tenant Pod whose host copy is scheduled is bound to the tenant Node
 * of the host node's name through the tenant's `pods/binding` subresource, as a scheduler binds
 * (the tenant has none), so `kubectl get pods -o wide` in the tenant shows where it runs. First
 * the tenant Nodes (`node/tenant-nodes.ts`), so a Pod is never bound to a Node the tenant lacks; then
 * the bindings, only for Pods the pass read unbound (a steady state binds nothing).
 *
 * A binding is a tenant write like a status write: taken from the write budget and counted in the
 * pass's tenant requests, not a Decision; a failed one is that Pod's error. A tenant Pod bound to
 * another node than its host copy runs on (set by the tenant, or a host Pod made anew elsewhere)
 * cannot be rebound: a Skip says so.
 */
import { runPool } from '../../../common/index.js';
import type { KindRef, KubeObject } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { stepWrite } from '../../context/step-write.js';
import { bindingNeed, podBinding } from './node/node-copy.js';
import { syncTenantNodes } from './node/tenant-nodes.js';

/** Finds the tenant Pod (as the pass read it) a host Pod is the current copy of. */
export type TenantPodOf = (hostPod: KubeObject) => KubeObject | undefined;

/**
 * Converges the tenant Nodes for `hostPods` (every host Pod of the tenant), then binds each
 * unbound tenant Pod that `tenantPodOf` knows to the Node its host copy runs on.
 */
export async function bindToNodes(
  ctx: PassContext,
  rule: KindRef,
  hostPods: readonly KubeObject[],
  tenantPodOf: TenantPodOf,
): Promise<void> {
  const { tenantApi, bounds, hostNamespace } = ctx.scope;
  if (!tenantApi.bind) return;
  const bind = tenantApi.bind.bind(tenantApi);
  const bindable = await syncTenantNodes(ctx, hostPods);
  const due: Array<{ hostPod: KubeObject; tenantPod: KubeObject; node: string }> = [];
  for (const hostPod of hostPods) {
    if (hostPod.metadata.deletionTimestamp) continue;
    const tenantPod = tenantPodOf(hostPod);
    if (!tenantPod) continue;
    const need = bindingNeed(hostPod, tenantPod);
    if (need === undefined) continue;
    const { namespace = '', name } = tenantPod.metadata;
    const refs = {
      tenantRef: { namespace, name },
      hostRef: { namespace: hostNamespace, name: hostPod.metadata.name },
    };
    if ('elsewhere' in need) {
      const { tenant, host } = need.elsewhere;
      ctx.ledger.decide({
        action: 'Skip',
        rule,
        ...refs,
        reason: `the tenant Pod is bound to node "${tenant}", but its host copy runs on host node "${host}": a binding cannot change; delete the tenant Pod to recreate it`,
      });
      continue;
    }
    // No Node to show (a tenant Node of the name that the engine did not make: its Skip says so).
    if (bindable.has(need.bind)) due.push({ hostPod, tenantPod, node: need.bind });
  }
  await runPool(
    due,
    bounds.budget.concurrency,
    async ({ hostPod, tenantPod, node }) => {
      const { namespace = '', name } = tenantPod.metadata;
      await stepWrite(ctx, {
        rule,
        tenantRef: { namespace, name },
        hostRef: { namespace: hostNamespace, name: hostPod.metadata.name },
        send: () => bind(podBinding(tenantPod, node, hostPod)),
        // Deleted since it was read, or bound meanwhile (the next pass reads which node).
        changedMeanwhile: ['NotFound', 'Conflict'],
      });
    },
    () => bounds.isStopped(),
  );
}
