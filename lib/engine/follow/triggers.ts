/**
 * What wakes a follow: held watches (`ClusterApi.holdWatch`) of what a pass reads.
 *
 * - On the tenant, every kind the policy syncs, in every namespace: a tenant write (one a pass
 *   drops unread, in a system or excluded namespace or of an excluded name, wakes nothing).
 * - On the host, in the host namespace, the tenant's copies of each kind whose status comes back
 *   (label-selected: other tenants' Pods never wake this one), and the Warning Events about
 *   objects whose names can be this tenant's copies (what Events back copies by default).
 * - The TenantCluster itself, by name: a policy edit (a new generation) or a deletion.
 *
 * Each watch starts at the resourceVersion of a one-item LIST made before the follow's first
 * pass, so every change after that LIST wakes a pass, and everything before it is that pass's.
 * A watch the server ends (its timeout) is opened again from the last resourceVersion it saw:
 * an idle follow costs one request per watch per {@link HELD_WATCH_SECONDS}. A watch that fails
 * (410 Expired, a refused grant, a cut or a stall the client timed out) may have missed a change:
 * it reports a gap, which the follow answers with a pass, and opens again from a new LIST after a
 * back-off.
 */
import {
  type ClusterApi,
  EVENT,
  type KindRef,
  TENANT_CLUSTER,
  type WatchChange,
} from '../../ports/index.js';
import { involvedObjectOf } from '../events/event-copy.js';
import { kindModule } from '../kinds/registry.js';
import { tenantCopySelector } from '../names/copy-selector.js';
import { mayBeHostName } from '../names/naming.js';
import { resourceKey } from '../names/resource-key.js';
import type { SyncPolicy } from '../policy/policy.js';
import { compileKindRule, isStaticallyExcluded } from '../policy/scope.js';
import type { FollowedChanges } from './followed-changes.js';

/** How long the server holds each watch before the follow opens the next one. */
export const HELD_WATCH_SECONDS = 60;

/** Back-off of a watch that failed, doubling from the first to the last. */
const BACKOFF_MS = { first: 500, last: 30_000 } as const;

/** One held watch of a follow. */
export interface Trigger {
  side: 'tenant' | 'host';
  kind: KindRef;
  /** Where the watch starts (the kind's recorded resume point); absent: a one-item LIST says. */
  startAt?: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Whether a change is one the follow converges (echoes of its own status writes are not). */
  wakes?: (change: WatchChange) => boolean;
  /**
   * A deletion asks for a full pass: a resumed pass reads the host copies that changed, not
   * those that went (a host Pod the host deleted ends its tenant Pod only on a full pass).
   */
  fullOnDelete?: boolean;
}

/** The watches that follow `tenant` under `policy` (see the module doc). */
export function followTriggers(
  tenant: string,
  policy: SyncPolicy,
  generation: number,
  resume: Readonly<Record<string, { resourceVersion: string } | undefined>> = {},
): Trigger[] {
  const { hostNamespace } = policy;
  const triggers: Trigger[] = policy.toHost.map((rule) => {
    const startAt = resume[resourceKey(rule)]?.resourceVersion;
    const kind = { apiVersion: rule.apiVersion, kind: rule.kind };
    const compiled = compileKindRule(rule);
    // From the recorded point: the passes resume from it, and the watch proves their changes.
    // A change a pass drops unread (a system or excluded namespace, an excluded name, the
    // tenant's own credentials) converges nothing: it neither wakes the follow nor keeps it from
    // going quiet (a controller's lease or status in kube-system would keep it running for ever).
    return {
      side: 'tenant',
      kind,
      ...(startAt === undefined ? {} : { startAt }),
      wakes: ({ object }) => !isStaticallyExcluded(compiled, object),
    };
  });
  let eventsBack = false;
  for (const rule of policy.toHost) {
    const module = kindModule(rule);
    eventsBack ||= module.eventsBack === true;
    if (module.statusBack === undefined && module.hostChanges !== true) continue;
    const kind = { apiVersion: rule.apiVersion, kind: rule.kind };
    triggers.push({
      side: 'host',
      kind,
      namespace: hostNamespace,
      labelSelector: tenantCopySelector(tenant, rule.kind),
      fullOnDelete: true,
    });
  }
  if (eventsBack) {
    triggers.push({
      side: 'host',
      kind: EVENT,
      namespace: hostNamespace,
      fieldSelector: 'type=Warning',
      wakes: ({ object }) => {
        const involved = involvedObjectOf(object);
        return involved.name !== undefined && mayBeHostName(involved.name, tenant);
      },
    });
  }
  triggers.push({
    side: 'host',
    kind: TENANT_CLUSTER,
    fieldSelector: `metadata.name=${tenant}`,
    // A pass writes its status: only a new generation (a policy edit) or a deletion wakes.
    wakes: ({ object }) =>
      Number(object.metadata.generation ?? generation) !== generation ||
      object.metadata.deletionTimestamp !== undefined,
  });
  return triggers;
}

/** The namespace and selectors of a trigger's LIST and WATCH, those it sets. */
function whereOf({ namespace, labelSelector, fieldSelector }: Trigger) {
  return {
    ...(namespace === undefined ? {} : { namespace }),
    ...(labelSelector === undefined ? {} : { labelSelector }),
    ...(fieldSelector === undefined ? {} : { fieldSelector }),
  };
}

/** What the held watches tell the follow. */
export interface TriggerListener {
  /** A change that wakes the follow, as it arrived. */
  changed(trigger: Trigger, change: WatchChange): void;
  /** A watch failed and may have missed a change (`reason` in plain words). */
  gap(trigger: Trigger, reason: string): void;
}

/** The held watches of one follow: opened together, each kept open until {@link stop}. */
export class TriggerWatches {
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly apis: { tenantApi: ClusterApi; hostApi: ClusterApi },
    private readonly triggers: readonly Trigger[],
    private readonly listener: TriggerListener,
    /** How long the server holds each watch (default {@link HELD_WATCH_SECONDS}). */
    private readonly watchSeconds = HELD_WATCH_SECONDS,
    /** Hears what the tenant watches deliver, as the proof of the passes' resumed watches. */
    private readonly followed?: FollowedChanges,
  ) {}

  /**
   * Reads where each watch starts (one LIST each) and opens them all; resolves once every start
   * is read, so the follow's first pass reads what no watch will report.
   * @throws the first LIST failure (the follow cannot start without its watches).
   */
  async open(): Promise<void> {
    const starts = await Promise.all(this.triggers.map((t) => this.startOf(t)));
    this.triggers.forEach((trigger, i) => {
      this.loops.push(this.hold(trigger, starts[i] as string));
    });
  }

  /** Stops every watch and waits until none is open. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }

  private api(trigger: Trigger): ClusterApi {
    return trigger.side === 'tenant' ? this.apis.tenantApi : this.apis.hostApi;
  }

  private async startOf(trigger: Trigger): Promise<string> {
    if (trigger.startAt !== undefined) return trigger.startAt;
    const page = await this.api(trigger).list(trigger.kind, {
      limit: 1,
      ...whereOf(trigger),
    });
    if (page.resourceVersion === undefined) {
      throw new Error(`the LIST of ${trigger.kind.kind} answered no resourceVersion`);
    }
    return page.resourceVersion;
  }

  private async hold(trigger: Trigger, from: string): Promise<void> {
    const api = this.api(trigger);
    const { signal } = this.abort;
    let resourceVersion = from;
    let backoffMs: number = BACKOFF_MS.first;
    const proof = trigger.side === 'tenant' ? this.followed : undefined;
    proof?.opened(trigger.kind, from);
    while (!signal.aborted) {
      if (!api.holdWatch) {
        this.listener.gap(trigger, `the ${trigger.side} client cannot hold a watch`);
        return;
      }
      const end = await api.holdWatch(trigger.kind, {
        resourceVersion,
        ...whereOf(trigger),
        timeoutSeconds: this.watchSeconds,
        signal,
        onChange: (change) => {
          proof?.changed(trigger.kind, change);
          if (trigger.wakes?.(change) ?? true) this.listener.changed(trigger, change);
        },
        onBookmark: (at) => proof?.bookmarked(trigger.kind, at),
      });
      if (end.ended !== 'failed') {
        resourceVersion = end.resourceVersion;
        backoffMs = BACKOFF_MS.first;
        continue;
      }
      if (signal.aborted) return;
      proof?.broken(trigger.kind);
      resourceVersion = await this.reopen(trigger, end.reason, backoffMs);
      proof?.opened(trigger.kind, resourceVersion);
      backoffMs = Math.min(backoffMs * 2, BACKOFF_MS.last);
    }
  }

  /**
   * After a failure: a pause, then a new start read before the gap is told, so the pass that
   * answers the gap reads everything the reopened watch will not report. A start that cannot be
   * read is tried again, with a longer pause each time, until the follow stops.
   */
  private async reopen(trigger: Trigger, reason: string, firstMs: number): Promise<string> {
    const { signal } = this.abort;
    let backoffMs = firstMs;
    for (;;) {
      await pause(backoffMs, signal);
      if (signal.aborted) return '';
      try {
        const start = await this.startOf({ ...trigger, startAt: undefined });
        this.listener.gap(trigger, reason);
        return start;
      } catch {
        backoffMs = Math.min(backoffMs * 2, BACKOFF_MS.last);
      }
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
