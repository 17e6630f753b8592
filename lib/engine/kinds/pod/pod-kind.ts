/**
 * The Pod kind's pass: the kind on its path, then what its host Pods say back, whatever the path:
 * the tenant tokens (renewal is due with time, not with changes), the tenant Nodes and bindings,
 * the Pod endings and the statuses.
 *
 * **Host Pods that changed on a resumed pass.** A host Pod's status changes while its tenant Pod
 * does not, and a resumed pass reads only the tenant Pods that changed. So every pass of the kind
 * (resumed ones too) lists the tenant's host Pods (label-selected, paged, overlapping the tenant
 * watch's wait for its bookmark), and the resume point remembers the highest host Pod
 * resourceVersion up to which the status back converged (`hostResourceVersion`). A host Pod with a
 * higher one changed since: its tenant Pod is read (a LIST by name: the tenant identity lists, never
 * gets) and compared like one the watch brought. resourceVersions of one resource are compared as
 * the integers they are (Kubernetes 1.35+, KEP-5504: comparable resource versions); a host whose
 * resourceVersions are not such integers records none, and host-only changes then show at the next
 * full pass, with starting Pods keeping the kind on full passes meanwhile.
 */
import { runPool } from '../../../common/index.js';
import { type KindRef, type KubeObject, POD, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { readKey } from '../../context/read-ahead.js';
import { attempt } from '../../errors.js';
import { ourCopySource } from '../../names/reverse-mapping.js';
import { type CompiledKindRule, isExcluded } from '../../policy/scope.js';
import type { ResumePoint } from '../../tenant/status.js';
import type { KindOutcome, KindTurn } from '../frame/kind-module.js';
import { ownCopies } from '../frame/status-back.js';
import type { PodFacts } from './facts.js';
import { podHostFacts } from './host-fields.js';
import { dropNodeReads, prefetchNodeReads } from './node/node-reads.js';
import { listHostPods, PodStatusBack } from './status-back.js';
import { syncPodTokens } from './tokens.js';

/**
 * Compares two resourceVersions of one resource as the decimal integers they are (KEP-5504): -1,
 * 0 or 1; `undefined` when either is not such an integer.
 */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  const valid = /^[1-9][0-9]*$/;
  if (!valid.test(a) || !valid.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** The highest resourceVersion of `objects`, `undefined` when one is not comparable. */
export function highestResourceVersion(objects: readonly KubeObject[]): string | undefined {
  let highest: string | undefined;
  for (const object of objects) {
    const rv = object.metadata.resourceVersion;
    if (typeof rv !== 'string' || compareResourceVersions(rv, rv) === undefined) return undefined;
    if (highest === undefined || compareResourceVersions(rv, highest) === 1) highest = rv;
  }
  return highest;
}

/** The host Pod listing started with the resumed watches. */
const HOST_PODS = readKey<Promise<KubeObject[] | undefined>>('host-pods');

/**
 * Starts the listing of the tenant's host Pods for a Pod kind that resumes from `point` with a
 * `hostResourceVersion`, so it overlaps the tenant watches' wait for their bookmarks.
 */
export function prefetchHostPods(ctx: PassContext, rule: KindRef, point: ResumePoint): void {
  if (point.hostResourceVersion === undefined || ctx.readAhead.has(HOST_PODS)) return;
  // Never an unhandled rejection: a PassError is thrown where the listing is awaited.
  ctx.readAhead.start(HOST_PODS, listHostPods(ctx, rule));
}

function takeHostPods(
  ctx: PassContext,
  rule: KindRef,
  point: ResumePoint,
): Promise<KubeObject[] | undefined> | undefined {
  prefetchHostPods(ctx, rule, point);
  return ctx.readAhead.take(HOST_PODS);
}

/**
 * The Pod kind's turn (see the module doc): before the path, the host Pods read ahead with a
 * resumed watch; while it runs, the tenant Pods it reads, the host address of the tenant DNS
 * Service when the policy names one (`tenant-dns.ts`) and, on a full path, its host listing
 * (which starts the tenant Nodes step's reads); after it, tokens, Nodes, bindings, endings and
 * statuses.
 */
export function podTurn(ctx: PassContext, compiled: CompiledKindRule): KindTurn<PodFacts> {
  const { rule } = compiled;
  const plan = ctx.memory.resume.plan(rule);
  const resuming = 'resume' in plan;
  const since = resuming ? plan.resume.hostResourceVersion : undefined;
  const status = new PodStatusBack(ctx, rule, !resuming);
  // The host Pods, read while the tenant watches wait for their bookmarks (started with them).
  const early =
    'resume' in plan && since !== undefined ? takeHostPods(ctx, rule, plan.resume) : undefined;
  let listed: readonly KubeObject[] | undefined;
  // Facts keep a kind's objects off the in-sync memo: only those it needs (`host-fields.ts`).
  const hostFacts = podHostFacts(ctx, compiled, !resuming);
  return {
    observe: status.note,
    ...(hostFacts ? { hostFacts } : {}),
    listedHost: (hostObjects) => {
      listed = hostObjects;
      // The tenant Nodes step's reads, while the kind takes in its tenant pages (`node-reads.ts`).
      prefetchNodeReads(ctx, ownCopies(ctx, rule, hostObjects));
    },
    ...(early ? { hostCopies: early } : {}),
    async afterKind(outcome) {
      try {
        await afterPods(ctx, compiled, { resuming, since, status, early, listed }, outcome);
      } finally {
        await dropNodeReads(ctx); // Node reads started ahead and not taken: no request outlives it
      }
    },
  };
}

/** What the Pod kind's turn learnt before and during its path. */
interface PodPath {
  resuming: boolean;
  since: string | undefined;
  status: PodStatusBack;
  early: Promise<KubeObject[] | undefined> | undefined;
  listed: readonly KubeObject[] | undefined;
}

async function afterPods(
  ctx: PassContext,
  compiled: CompiledKindRule,
  { resuming, since, status, early, listed }: PodPath,
  { wrote, troubledSince: troubled }: KindOutcome,
): Promise<void> {
  const { rule } = compiled;
  const minting = ctx.scope.tenantApi.createToken !== undefined || status.bindsNodes;
  // A full path's host listing, when the kind wrote no Pod since, is what a listing would show.
  const current = listed !== undefined && !wrote ? ownCopies(ctx, rule, listed) : undefined;
  let pods: KubeObject[] | undefined;
  if (current) pods = current;
  else if (early && !wrote) pods = await early;
  else if ((minting && (!resuming || wrote)) || status.pending || early)
    pods = await listHostPods(ctx, rule);
  const changed =
    pods && since !== undefined ? await noteChanged(ctx, compiled, status, pods, since) : 0;
  // Host Pods listed in a pass that wrote none: no Secret to write unless one mounts a token.
  const steady = pods !== undefined && !wrote && (pods === current || early !== undefined);
  await syncPodTokens(
    ctx,
    pods === undefined ? { listPods: false } : { listPods: true, pods, steady },
  );
  // Apart from every spec write of the kind: a refused one never holds a status back. The tenant
  // Nodes follow the host Pods when a full path read them all, a Pod was written or changed on the
  // host, or a tenant Pod the pass read waits for its binding.
  if (pods !== undefined && (!resuming || status.pending || wrote)) {
    const nodes = !resuming || wrote || changed > 0 || status.needsBinding(pods);
    await status.write(pods, nodes);
  }
  // Host Pods read every pass: a starting one's status shows without a full pass.
  const tracked = pods !== undefined ? highestResourceVersion(pods) : undefined;
  const unfinished =
    tracked === undefined ? status.unfinished : status.unfinished - status.starting;
  if (troubled() || unfinished > 0) {
    ctx.memory.resume.clear(rule);
    return;
  }
  if (tracked !== undefined) ctx.memory.resume.hostSeen(rule, tracked, changed > 0);
}

/**
 * Takes note of the tenant Pods of the host Pods that changed after `since` (and that the pass
 * did not read already), read by name; returns how many host Pods changed.
 */
async function noteChanged(
  ctx: PassContext,
  compiled: CompiledKindRule,
  status: PodStatusBack,
  pods: readonly KubeObject[],
  since: string,
): Promise<number> {
  const { tenantApi, tenant, bounds } = ctx.scope;
  // Changed after `since`; one whose resourceVersion cannot be compared counts as changed.
  const changed = pods.filter((pod) => {
    const rv = pod.metadata.resourceVersion;
    return typeof rv !== 'string' || (compareResourceVersions(rv, since) !== -1 && rv !== since);
  });
  const unread = changed
    .filter((pod) => status.tenantPodOf(pod) === undefined)
    .map((pod) => ourCopySource(pod, { tenant, kind: 'Pod' }))
    .filter((source) => source !== undefined);
  if (unread.length === 0) return changed.length;
  const read = await attempt(() =>
    withRequestDeadline(workDeadline(bounds.budget), () =>
      runPool(unread, bounds.budget.concurrency, async (source) => {
        const page = await tenantApi.list(POD, {
          namespace: source.virtualNamespace,
          fieldSelector: `metadata.name=${source.virtualName}`,
          limit: 1,
        });
        // One the policy leaves out now is not this engine's to end or to show a status on.
        for (const pod of page.items) {
          const item = { ...POD, ...pod };
          if (!isExcluded(compiled, item)) status.note(item);
        }
      }),
    ),
  );
  if (!read.ok) {
    const why = 'the status of host Pods that changed waits';
    ctx.ledger.errors.listingFailed(POD, 'tenant', read.error, why);
  }
  return changed.length;
}
