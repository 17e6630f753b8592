import { type KindRef, type KubeObject, POD } from '../../../ports/index.js';
import { objectVersion } from '../../context/in-sync-memo.js';
import type { PassContext } from '../../context/pass-context.js';
import { sourceKey } from '../../names/provenance.js';
import {
  listHostCopies,
  NotedObjects,
  STARTING_MS,
  type StatusDue,
  writeStatuses,
} from '../frame/status-back.js';
import { bindToNodes } from './binding.js';
import { PodEndings } from './endings.js';
import { bindingNeed } from './node/node-copy.js';
import { CONTAINER_LISTS } from './translate/references.js';
import { podStatusPatch, podStatusSettled } from './translate/status.js';

/**
 * What the status back keeps of a tenant Pod: its identity, its container names, its node (for
 * its binding: `binding.ts`) and its status; the rest of its spec is not needed, and a pass
 * may see thousands of Pods.
 */
function slimPod(pod: KubeObject): KubeObject {
  const { namespace, name, uid, resourceVersion } = pod.metadata;
  const spec: Record<string, unknown> = {};
  const full = pod.spec;
  if (typeof full === 'object' && full !== null) {
    const { nodeName } = full as { nodeName?: unknown };
    if (typeof nodeName === 'string' && nodeName !== '') spec.nodeName = nodeName;
    for (const list of CONTAINER_LISTS) {
      const items = (full as Record<string, unknown>)[list];
      if (!Array.isArray(items)) continue;
      spec[list] = items.map((item: unknown) =>
        typeof item === 'object' && item !== null
          ? { name: (item as { name?: unknown }).name }
          : {},
      );
    }
  }
  return {
    apiVersion: POD.apiVersion,
    kind: POD.kind,
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid ? { uid } : {}),
      // Its state, for the in-sync memo (`context/in-sync-memo.ts`).
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    spec,
    ...(pod.status === undefined ? {} : { status: pod.status }),
  };
}

/**
 * Every host Pod of the tenant (its copies, by the engine's labels), page by page; `undefined`
 * when they could not be listed (an error of the kind) or the pass is stopped.
 */
export function listHostPods(ctx: PassContext, rule: KindRef): Promise<KubeObject[] | undefined> {
  return listHostCopies(ctx, rule, 'its tokens and status back wait');
}

/** The tenant Pods the kind took in this pass, and their status written back from the host. */
export class PodStatusBack {
  private readonly seen: NotedObjects;
  /**
   * Noted Pods whose host copy is still starting ({@link STARTING_MS}): their next status shows
   * only to a pass that reads them again, so the caller makes the next pass full.
   */
  starting = 0;
  /** Tenant Pods being deleted, or that ran on the host, which may have to end (`endings.ts`). */
  private readonly endings: PodEndings;

  /**
   * @param full whether the kind lists every tenant Pod this pass (the full path): then the
   * in-sync memo of statuses keeps only the Pods seen.
   */
  constructor(
    private readonly ctx: PassContext,
    private readonly rule: KindRef,
    private readonly full = false,
  ) {
    this.endings = new PodEndings(ctx, rule);
    this.seen = new NotedObjects({ tenant: ctx.scope.tenant, kind: POD.kind }, slimPod);
  }

  /** Takes note of a tenant Pod the kind took in (what it shows now), or one being deleted. */
  readonly note = (pod: KubeObject): void => {
    this.endings.note(pod);
    this.seen.note(pod);
  };

  /**
   * Whether any tenant Pod was taken in or is ending (and can be written): only then can a status
   * or an ending be due.
   */
  get pending(): boolean {
    return this.seen.size > 0 || this.endings.pending;
  }

  /**
   * Tenant Pods whose next status or ending shows only to a pass that reads them again (a host
   * Pod still starting, a deleted Pod whose copy is still going): the caller makes the next pass
   * full.
   */
  get unfinished(): number {
    return this.starting + this.endings.waiting;
  }

  /**
   * Whether the tenant can bind Pods, so its Nodes follow the host Pods (`binding.ts`): like
   * the tokens, due whenever the host Pods are listed, not only when a tenant Pod changed.
   */
  get bindsNodes(): boolean {
    return this.ctx.scope.tenantApi.bind !== undefined;
  }

  /** Whether a tenant Pod the pass read is unbound while its host copy is scheduled. */
  needsBinding(hostPods: readonly KubeObject[]): boolean {
    return hostPods.some((hostPod) => {
      const tenantPod = this.tenantPodOf(hostPod);
      return tenantPod !== undefined && bindingNeed(hostPod, tenantPod) !== undefined;
    });
  }

  /** The tenant Pod the pass read whose current copy `hostPod` is, if any. */
  readonly tenantPodOf = (hostPod: KubeObject): KubeObject | undefined => this.seen.of(hostPod);

  /**
   * Converges the tenant Nodes and binds the noted tenant Pods to them (`binding.ts`), then
   * writes back the status of every noted tenant Pod whose host copy in `hostPods` (every host
   * Pod of the tenant) shows another. A failed write is an error of that Pod, never of the pass.
   */
  async write(hostPods: readonly KubeObject[], nodes = true): Promise<void> {
    // With every host Pod of the tenant at hand: the tenant Nodes follow them.
    if (nodes) await bindToNodes(this.ctx, this.rule, hostPods, this.tenantPodOf);
    // Ends what lost its copy before any status is written: an ending Pod shows none.
    await this.endings.finish(hostPods);
    if (this.seen.size === 0) return;
    const due: StatusDue[] = [];
    // A warm process's memo: a tenant Pod and host copy in the states found showing the same
    // status last time show it still (`context/in-sync-memo.ts`).
    const memo = this.ctx.memory.inSync?.kind({ ...this.rule, kind: `${this.rule.kind} status` });
    for (const hostPod of hostPods) {
      const tenantPod = this.tenantPodOf(hostPod);
      if (!tenantPod) continue;
      if (this.isStarting(hostPod)) this.starting += 1;
      const key = sourceKey(tenantPod.metadata.namespace ?? '', tenantPod.metadata.name);
      if (memo?.matches(key, tenantPod, hostPod)) continue;
      const patch = podStatusPatch(hostPod.status, tenantPod);
      if (patch !== undefined) due.push({ host: hostPod, tenant: tenantPod, patch });
      else memo?.record(key, objectVersion(tenantPod), hostPod);
    }
    memo?.end(this.full);
    // Deleted in the tenant since it was read: nothing left to show the status on. Any other
    // failure is recorded as the server answered (e.g. Forbidden without `pods/status`).
    await writeStatuses(this.ctx, this.rule, due, ['NotFound']);
  }

  private isStarting(hostPod: KubeObject): boolean {
    if (hostPod.metadata.deletionTimestamp || podStatusSettled(hostPod.status)) return false;
    const created = Date.parse(String(hostPod.metadata.creationTimestamp ?? ''));
    return Number.isFinite(created) && this.ctx.scope.clock.now() - created < STARTING_MS;
  }
}
