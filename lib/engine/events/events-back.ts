/**
 * Events back: after the kinds (its reads start with them), the host Events about this tenant's
 * copies of Pods, claims, Services and Ingresses become Events on the tenant objects, so
 * `kubectl describe pod` in the tenant explains what the host did (FailedScheduling, BackOff...),
 * in tenant names.
 *
 * Each host Event is copied once, under a name derived from its uid; a copy records the digest of
 * what it follows, so a later pass updates it (count, times, series) only when the host Event
 * changed, and a steady pass writes nothing in the tenant. An Event is copied only when its
 * involved object is this tenant's copy (its reverse mapping, never its name), is that very host
 * object (its uid), and copies the tenant object that exists now (the copy's `virtual-uid` is
 * the tenant object's uid): another tenant's copies, foreign objects and Events older than the
 * tenant object stay on the host. At most {@link MAX_EVENTS_BACK_PER_PASS} writes a pass (flood
 * control); a Skip says when that held Events back. A failure is that Event's error, never the
 * pass's end.
 */
import { runPool } from '../../common/index.js';
import {
  type ClusterApi,
  EVENT,
  isClusterError,
  type KindRef,
  type KubeObject,
  type ObjectRef,
} from '../../ports/index.js';
import type { DecisionInput } from '../context/ledger.js';
import type { PassContext } from '../context/pass-context.js';
import { passWrite } from '../context/step-write.js';
import { attempt } from '../errors.js';
import { EventBackKeys } from '../names/metadata.js';
import { ourCopySource, type TenantSource } from '../names/reverse-mapping.js';
import {
  addRename,
  followedCopy,
  hostEventDigest,
  involvedObjectOf,
  lastSeenMs,
  recordedDigest,
  ruleFor,
  tenantEventCopy,
  tenantEventName,
  timesSeen,
} from './event-copy.js';
import {
  dropEventReads,
  eventsBackScope,
  listCopyMetadata,
  takeEventReads,
  tenantObjectUid,
} from './event-reads.js';

/**
 * Tenant Event writes per pass, at most. client-go's recorder allows a burst of 25 per object;
 * 100 a pass lets a 20-Pod rollout (about 5 Events a Pod) show in one pass, and a flood of host
 * Events reach the tenant over several passes instead of at once.
 */
export const MAX_EVENTS_BACK_PER_PASS = 100;

/** One host Event that needs a write in the tenant: its rule, its source, its copy if any. */
interface Due {
  hostEvent: KubeObject;
  rule: KindRef;
  source: TenantSource;
  observed: KubeObject | undefined;
}

/** The Events back of one pass. */
class EventsBack {
  private readonly renames = new Map<string, string>();
  private readonly uids = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly ctx: PassContext,
    private readonly tenantApi: ClusterApi,
    private readonly rules: readonly KindRef[],
    private readonly warningsOnly: boolean,
  ) {}

  /** The host Events that need a write, in the order they are written. */
  async due(): Promise<Due[]> {
    const { ctx, rules } = this;
    const reads = takeEventReads(ctx, this.tenantApi, rules, this.warningsOnly);
    const { hostEvents, copies } = await reads;
    if (!hostEvents || hostEvents.length === 0 || !copies) return [];
    const byHostUid = new Map<string, KubeObject>();
    for (const copy of copies) {
      const uid = copy.metadata.annotations?.[EventBackKeys.HostEventUid];
      if (uid) byHostUid.set(uid, copy);
    }
    const changed = hostEvents.filter((event) => {
      const copy = byHostUid.get(event.metadata.uid ?? '');
      return copy === undefined || recordedDigest(copy) !== hostEventDigest(event);
    });
    if (changed.length === 0) return [];
    const hostCopies = await this.hostCopies(changed);
    const due: Due[] = [];
    for (const hostEvent of changed) {
      const involved = involvedObjectOf(hostEvent);
      const rule = ruleFor(rules, involved);
      const copy = rule && hostCopies.get(rule.kind)?.get(involved.name ?? '');
      if (!rule || !copy) continue; // not a copy of this tenant: another tenant's, or foreign
      // About an earlier host object of the name (a replaced copy): not the copy there now.
      if (involved.uid !== undefined && involved.uid !== copy.metadata.uid) continue;
      const source = ourCopySource(copy, { tenant: ctx.scope.tenant, kind: rule.kind });
      if (!source) continue;
      due.push({ hostEvent, rule, source, observed: byHostUid.get(hostEvent.metadata.uid ?? '') });
    }
    // Warnings first (what `kubectl describe` is asked about), then the latest first.
    return due.sort(
      (a, b) =>
        Number(b.hostEvent.type === 'Warning') - Number(a.hostEvent.type === 'Warning') ||
        lastSeenMs(b.hostEvent) - lastSeenMs(a.hostEvent) ||
        (a.hostEvent.metadata.name < b.hostEvent.metadata.name ? -1 : 1),
    );
  }

  /** This tenant's host copies, by kind and host name, of the kinds `events` are about. */
  private async hostCopies(events: readonly KubeObject[]) {
    const { ctx, rules } = this;
    const kinds = new Set(events.map((e) => ruleFor(rules, involvedObjectOf(e))?.kind));
    const byKind = new Map<string, Map<string, KubeObject>>();
    for (const rule of rules) {
      if (!kinds.has(rule.kind) || ctx.scope.bounds.isStopped()) continue;
      const copies = (await listCopyMetadata(ctx, rule)) ?? [];
      const byName = new Map<string, KubeObject>();
      for (const copy of copies) {
        const source = ourCopySource(copy, { tenant: ctx.scope.tenant, kind: rule.kind });
        if (!source) continue;
        byName.set(copy.metadata.name, copy);
        addRename(this.renames, ctx.scope.hostNamespace, copy.metadata.name, source);
      }
      byKind.set(rule.kind, byName);
    }
    return byKind;
  }

  /** The Decision refs of a tenant copy of `due.hostEvent`. */
  private refs(due: Due): { tenantRef: ObjectRef; hostRef: ObjectRef } {
    const { source, hostEvent, observed } = due;
    const name =
      observed?.metadata.name ?? tenantEventName(source.virtualName, hostEvent.metadata.uid ?? '');
    return {
      tenantRef: { namespace: source.virtualNamespace, name },
      hostRef: { namespace: this.ctx.scope.hostNamespace, name: hostEvent.metadata.name },
    };
  }

  private decision(
    due: Due,
    action: 'Create' | 'Update' | 'Skip',
    reason: string,
    error?: unknown,
  ): DecisionInput {
    return {
      action,
      rule: EVENT,
      ...this.refs(due),
      reason,
      ...(error === undefined ? {} : { error }),
    };
  }

  /** What the Event says of itself in a reason: `Warning FailedScheduling about Pod ns/name`. */
  private about(due: Due): string {
    const { hostEvent, rule, source } = due;
    const what = `${String(hostEvent.type ?? 'Normal')} ${String(hostEvent.reason ?? '')}`.trim();
    return `host Event "${what}" about ${rule.kind} ${source.virtualNamespace}/${source.virtualName}`;
  }

  /**
   * The uid of the tenant object `due` is about, read once a pass; `undefined` when it is gone
   * or could not be read (then that is its error).
   */
  private tenantUid(due: Due): Promise<string | undefined> {
    const { rule, source } = due;
    const key = `${rule.kind}/${source.virtualNamespace}/${source.virtualName}`;
    let uid = this.uids.get(key);
    if (!uid) {
      const { ctx, tenantApi } = this;
      const { virtualNamespace: namespace, virtualName: name } = source;
      uid = attempt(() => tenantObjectUid(ctx, tenantApi, rule, namespace, name)).then((read) => {
        if (read.ok) return read.value;
        ctx.ledger.errors.add(rule, read.error, { namespace, name });
        return undefined;
      });
      this.uids.set(key, uid);
    }
    return uid;
  }

  /** Writes one tenant copy; whether a write was sent (or taken from the budget). */
  async write(due: Due): Promise<boolean> {
    const { ctx, tenantApi } = this;
    const { tenant } = ctx.scope;
    const { bounds } = ctx.scope;
    if (bounds.writesLeft < 1) {
      bounds.defer();
      return false;
    }
    if (due.observed) {
      const from = timesSeen(due.observed);
      const to = timesSeen(due.hostEvent);
      const reason = `${this.about(due)} was seen again (count ${from} -> ${to}): its tenant copy follows`;
      const body = followedCopy(due.observed, due.hostEvent, this.renames, tenant);
      return this.send(due, 'Update', reason, () => tenantApi.update(body));
    }
    const uid = await this.tenantUid(due);
    // The copy was made from an earlier tenant object of the name: its Events are not this one's.
    if (uid === undefined || uid !== due.source.virtualUid) return false;
    const { source, rule } = due;
    const fieldPath = involvedObjectOf(due.hostEvent).fieldPath;
    const target = {
      rule,
      namespace: source.virtualNamespace,
      name: source.virtualName,
      uid,
      ...(fieldPath === undefined ? {} : { fieldPath }),
    };
    const body = tenantEventCopy(due.hostEvent, target, this.renames, tenant);
    const reason = `${this.about(due)}: copied to the tenant, in tenant names`;
    return this.send(due, 'Create', reason, () => tenantApi.create(body));
  }

  /** Sends one write of a copy under the budget; whether the budget took it. */
  private async send(
    due: Due,
    action: 'Create' | 'Update',
    reason: string,
    request: () => Promise<unknown>,
  ): Promise<boolean> {
    const sent = await passWrite(this.ctx, {
      send: request,
      decide: (answer) => {
        if (answer.ok) return this.decision(due, action, reason);
        const { error } = answer;
        // The tenant Event expired (its TTL) since it was listed: the next pass copies it anew.
        if (action === 'Update' && isClusterError(error, 'NotFound')) return;
        if (!(action === 'Create' && isClusterError(error, 'AlreadyExists')))
          return this.decision(due, action, reason, error);
        // A racing pass made it (the next pass finds it among the copies), or the tenant holds the
        // name with an Event of its own, which is never overwritten.
        const held = `${reason}, but a tenant Event of its name exists already (a concurrent pass's copy, or an Event the engine did not make, which is left untouched)`;
        return this.decision(due, 'Skip', held);
      },
    });
    return sent !== undefined;
  }

  /** Says that the per-pass cap held `held` Events back (one Skip, on the first of them). */
  capped(held: readonly Due[], max: number): void {
    const [first] = held;
    if (!first) return;
    const more = held.length - 1;
    this.ctx.ledger.decide(
      this.decision(
        first,
        'Skip',
        `at most ${max} host Events are copied to the tenant per pass (flood control): this one${more > 0 ? ` and ${more} more` : ''} wait for the next pass`,
      ),
    );
  }
}

/**
 * Copies the host Events about this tenant's copies into the tenant (see the module doc), for
 * the kinds of the policy whose Events come back. Runs after the kinds, on what the write budget
 * has left; `max` caps the tenant Event writes of the pass.
 */
export async function syncEventsBack(
  ctx: PassContext,
  max: number = MAX_EVENTS_BACK_PER_PASS,
): Promise<void> {
  const { bounds } = ctx.scope;
  const scope = eventsBackScope(ctx);
  if (!scope) return;
  // Stopped: reads started during the kinds are awaited all the same (no request outlives it).
  if (bounds.isStopped()) return void (await dropEventReads(ctx));
  const step = new EventsBack(ctx, scope.tenantApi, scope.rules, scope.warningsOnly);
  const due = await step.due();
  let slots = max;
  const held: Due[] = [];
  await runPool(
    due,
    bounds.budget.concurrency,
    async (item) => {
      if (slots <= 0) {
        held.push(item);
        return;
      }
      slots -= 1;
      if (!(await step.write(item))) slots += 1;
    },
    () => bounds.isStopped(),
  );
  step.capped(held, max);
}
