/**
 * How a Pod ends, both ways. The tenant has no kubelets, so the engine does what a tenant Pod's
 * kubelet would:
 *
 * - **Deleted in the tenant.** A bound tenant Pod deleted with a grace period stays `Terminating`
 *   until its kubelet confirms the end. Its host copy is deleted with the same grace period (GC:
 *   `TenantView.ending`), and once the copy is gone the engine finishes the tenant Pod's deletion
 *   (grace period 0, uid precondition), as the kubelet would.
 * - **Ended by the host.** A host copy deleted or evicted by the host leaves its tenant Pod bound
 *   to a node where nothing runs it: the tenant Pod ends the way a Pod on a lost node ends (deleted
 *   at once), so a tenant ReplicaSet replaces it. It is never made anew on the host under the same
 *   identity (the apply step refuses that create: `ApplyItem.noRecreate`).
 *
 * Which tenant Pods ran on the host is told by the binding (`binding.ts`), which records the
 * host copy's uid on the tenant Pod ({@link Annotations.BoundHostPod}): a Pod the tenant bound
 * itself was never the host's, and its copy is created like any other.
 */
import { runPool } from '../../../common/index.js';
import { isClusterError, type KindRef, type KubeObject, POD } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { passWrite } from '../../context/step-write.js';
import { Annotations } from '../../names/metadata.js';
import { hostName } from '../../names/naming.js';
import { sourceKey } from '../../names/provenance.js';
import { ourCopySource } from '../../names/reverse-mapping.js';
import { nodeNameOf } from './node/node-copy.js';

/** The grace period a tenant object was deleted with (`metadata.deletionGracePeriodSeconds`). */
export function gracePeriodOf(object: KubeObject): number | undefined {
  const grace = object.metadata.deletionGracePeriodSeconds;
  return typeof grace === 'number' && Number.isInteger(grace) && grace >= 0 ? grace : undefined;
}

/** The host copy uid a tenant Pod was bound for, when the engine bound it. */
function boundHostPod(pod: KubeObject): string | undefined {
  const uid = pod.metadata.annotations?.[Annotations.BoundHostPod];
  return typeof uid === 'string' && uid !== '' && nodeNameOf(pod) !== undefined ? uid : undefined;
}

/**
 * Why tenant Pod `pod` must not get a new host copy, or `undefined`: it ran on the host (the
 * engine bound it for a host copy), so a missing copy was deleted or evicted by the host.
 */
export function lostPodReason(pod: KubeObject): string | undefined {
  if (boundHostPod(pod) === undefined) return undefined;
  return `the tenant Pod ran on host node "${nodeNameOf(pod)}" and its host copy is gone (deleted or evicted by the host): it is not made anew under the same identity; it ends as on a lost node, so its controller replaces it`;
}

/** What the endings keep of a tenant Pod. */
interface EndingPod {
  namespace: string;
  name: string;
  uid: string;
  node: string;
  /** The grace period it was deleted with; absent for a Pod the host ended. */
  grace?: number | undefined;
  deleting: boolean;
}

function endingPod(pod: KubeObject): EndingPod | undefined {
  const { namespace, name, uid } = pod.metadata;
  const node = nodeNameOf(pod);
  // An unbound Pod being deleted is held by a finalizer, not by a kubelet: not the engine's to end.
  if (!namespace || !uid || node === undefined) return undefined;
  const deleting = Boolean(pod.metadata.deletionTimestamp);
  return { namespace, name, uid, node, deleting, grace: gracePeriodOf(pod) };
}

/** The tenant Pods of a pass that may have to end, and their ending (see the module doc). */
export class PodEndings {
  private readonly deleting = new Map<string, EndingPod>();
  private readonly bound = new Map<string, EndingPod>();
  /**
   * Pods still waiting for their host copy to go, and Pods ended by this pass (the tenant Nodes
   * they were bound to may be needed no more): either way the next pass must look again, in full.
   */
  waiting = 0;

  constructor(
    private readonly ctx: PassContext,
    private readonly rule: KindRef,
  ) {}

  /** Takes note of a tenant Pod the kind read (being deleted, or bound for a host copy). */
  note(pod: KubeObject): void {
    const key = sourceKey(pod.metadata.namespace ?? '', pod.metadata.name);
    if (pod.metadata.deletionTimestamp) {
      const ending = endingPod(pod);
      // Asked to end at once already (by the engine or the tenant): only a finalizer holds it.
      if (ending && ending.grace !== 0) this.deleting.set(key, ending);
      return;
    }
    if (boundHostPod(pod) === undefined) return;
    const ending = endingPod(pod);
    if (ending) this.bound.set(key, ending);
  }

  /** Whether any tenant Pod may have to end. */
  get pending(): boolean {
    return this.deleting.size > 0 || this.bound.size > 0;
  }

  /**
   * Ends the noted tenant Pods whose host copy is not among `hostPods` (every host Pod of the
   * tenant, listed after the kind's writes and deletes); counts those still waiting for theirs.
   */
  async finish(hostPods: readonly KubeObject[]): Promise<void> {
    if (!this.pending) return;
    const owner = { tenant: this.ctx.scope.tenant, kind: POD.kind };
    const copies = new Map<string, string | undefined>();
    for (const hostPod of hostPods) {
      const source = ourCopySource(hostPod, owner);
      if (source) {
        copies.set(sourceKey(source.virtualNamespace, source.virtualName), source.virtualUid);
      }
    }
    // A copy of the tenant Pod itself (not of an earlier Pod of the name) is still there.
    const hasCopy = (key: string, pod: EndingPod) =>
      copies.has(key) && (copies.get(key) ?? pod.uid) === pod.uid;
    const due: Array<{ pod: EndingPod; reason: string }> = [];
    for (const [key, pod] of this.deleting) {
      if (hasCopy(key, pod)) this.waiting += 1;
      else {
        const grace = pod.grace === undefined ? '' : ` (grace period ${pod.grace} s)`;
        due.push({
          pod,
          reason: `the tenant Pod was deleted${grace} and its host copy is gone: its deletion is finished in the tenant, as its kubelet would confirm it`,
        });
      }
    }
    for (const [key, pod] of this.bound) {
      if (copies.has(key)) continue;
      due.push({
        pod,
        reason: `the host copy of the tenant Pod, which ran on node "${pod.node}", is gone (deleted or evicted by the host): the tenant Pod ends as on a lost node (deleted at once), so its controller replaces it`,
      });
    }
    const { bounds } = this.ctx.scope;
    await runPool(
      due,
      bounds.budget.concurrency,
      (item) => this.end(item.pod, item.reason),
      () => bounds.isStopped(),
    );
  }

  private async end(pod: EndingPod, reason: string): Promise<void> {
    const { tenantApi, hostNamespace, tenant } = this.ctx.scope;
    const refs = {
      tenantRef: { namespace: pod.namespace, name: pod.name },
      hostRef: { namespace: hostNamespace, name: hostName(pod.name, pod.namespace, tenant) },
    };
    await passWrite(this.ctx, {
      whenSpent: () => {
        this.waiting += 1;
      },
      send: () =>
        tenantApi.delete(POD, pod.namespace, pod.name, { uid: pod.uid }, { gracePeriodSeconds: 0 }),
      decide: (deleted) => {
        const error = deleted.ok ? undefined : deleted.error;
        // A Pod recreated under the name since it was read is another Pod: never ended by mistake.
        if (isClusterError(error, 'Conflict')) return;
        const gone = isClusterError(error, 'NotFound');
        const failure = gone ? undefined : error;
        if (failure === undefined) this.waiting += 1;
        return {
          action: 'Delete',
          rule: this.rule,
          ...refs,
          reason: gone ? `${reason}; the tenant Pod was already gone` : reason,
          error: failure,
          alreadyGone: gone,
        };
      },
    });
  }
}
