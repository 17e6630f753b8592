/**
 * The Kubernetes Events sink: Decisions become core/v1 Events about the tenant's `TenantCluster`
 * on the host, so that `kubectl describe tenantcluster <tenant>` answers "why does this host
 * object exist?".
 *
 * The `TenantCluster` is cluster-scoped, so its Events live in `default` with an
 * `involvedObject` of `{apiVersion, kind, name, uid}` (no namespace). Reason = the action; type
 * `Warning` for Delete, `Normal` otherwise; the message names the tenant object (`Kind vns/name`),
 * the host target (`hostns/hostname`) and the reason.
 *
 * Flood control, after client-go's recorder (a burst of 25 per object):
 * - at most `maxEventsPerPass` (default 25) decision Events per pass, Deletes and Skips first;
 * - one `PassSummary` Event per pass that made decisions or had errors (counts, complete or why
 *   not, how many decisions are not shown as Events; the logs have all of them); none for a clean
 *   pass that decided nothing;
 * - an Event's name is a hash of what the decision is about (TenantCluster uid, action, kind,
 *   tenant ref, host ref, reason), so a decision that repeats every pass (a persistent Skip) finds
 *   its Event with one GET and bumps `count` and `lastTimestamp` instead of adding an Event.
 *
 * Dry-run passes write no Events. Write failures never throw into the pass: they go to `onError`
 * and to {@link KubernetesEventsSink.lastReport}.
 */
import { createHash } from 'node:crypto';
import {
  type Clock,
  type ClusterApi,
  ClusterError,
  ClusterErrorReason,
  type Decision,
  DecisionAction,
  type DecisionSink,
  type KindRef,
  type KubeObject,
  type PassResult,
  systemClock,
} from '../ports/index.js';

/** The Kind the Events are about (cluster-scoped, name = tenant). */
export const TENANT_CLUSTER_KIND: KindRef = {
  apiVersion: 'tenantplane.io/v1alpha1',
  kind: 'TenantCluster',
};
const EVENT_KIND: KindRef = { apiVersion: 'v1', kind: 'Event' };

/** `source.component` and `reportingComponent` of every Event. */
export const EVENT_COMPONENT = 'tenantplane-sync';
/** Namespace of the Events of a cluster-scoped object. */
export const EVENTS_NAMESPACE = 'default';
/** Default cap of decision Events per pass. */
export const DEFAULT_MAX_EVENTS_PER_PASS = 25;
/** Reason of the per-pass summary Event. */
export const PASS_SUMMARY_REASON = 'PassSummary';
/** Event messages are cut to this length (events.k8s.io's `note` limit). */
export const MAX_EVENT_MESSAGE = 1024;

/** Annotations on each decision Event, for tools that look Events up by host object. */
export const EventAnnotations = {
  TenantRef: 'tenantplane.io/tenant-ref',
  HostRef: 'tenantplane.io/host-ref',
  Kind: 'tenantplane.io/kind',
  PassId: 'tenantplane.io/pass-id',
} as const;

export interface KubernetesEventsSinkOptions {
  /** The host cluster, where the TenantCluster and its Events live. */
  hostApi: ClusterApi;
  /** Tenant cluster name (= the TenantCluster's name). */
  tenant: string;
  /** Decision Events per pass (default 25); the rest are counted in the summary Event. */
  maxEventsPerPass?: number;
  clock?: Clock;
  /** Called for each Event that could not be written; the pass never sees these failures. */
  onError?: (error: Error) => void;
  /** Parallel Event writes (default 4). */
  concurrency?: number;
}

/** What the sink did for the last pass. */
export interface EventsReport {
  passId: string;
  /** Decision Events newly created. */
  created: number;
  /** Existing decision Events whose count was bumped. */
  bumped: number;
  /** Decisions not shown as their own Event (over the cap). */
  notEmitted: number;
  /** The summary Event: created, bumped, or none (no decisions, dry run, or it failed). */
  summary: 'created' | 'bumped' | 'none';
  /** Failed Event writes, in plain words. */
  failures: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** metav1.Time: RFC 3339 with whole seconds. */
function kubeTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function hash(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

function truncate(text: string, max = MAX_EVENT_MESSAGE): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const ACTION_PRIORITY: Record<DecisionAction, number> = {
  [DecisionAction.Delete]: 0,
  [DecisionAction.Skip]: 1,
  [DecisionAction.Create]: 2,
  [DecisionAction.Update]: 3,
};

/** The identity of a decision for Event de-duplication (what it is about, not when). */
export function decisionKey(d: Decision): readonly string[] {
  return [
    d.action,
    d.apiVersion,
    d.kind,
    d.tenantRef.namespace,
    d.tenantRef.name,
    d.hostRef.namespace,
    d.hostRef.name,
    d.reason,
  ];
}

/**
 * Deterministic Event name of a decision: `<tenant>.<16 hex>` over the TenantCluster's uid and
 * {@link decisionKey}. The uid makes a re-created TenantCluster start with fresh Events.
 */
export function decisionEventName(tenant: string, tenantClusterUid: string, d: Decision): string {
  return `${tenant}.${hash([tenant, tenantClusterUid, ...decisionKey(d)])}`;
}

/** The message of a decision Event. */
export function decisionEventMessage(d: Decision): string {
  const failed = d.error === undefined ? '' : ` (failed: ${d.error})`;
  return truncate(
    `${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> host ${d.hostRef.namespace}/${d.hostRef.name}: ${d.reason}${failed}`,
  );
}

/** A group of identical decisions of one pass: one Event. */
export interface DecisionGroup {
  decision: Decision;
  occurrences: number;
}

/**
 * Flood control: groups identical decisions, orders them Delete, Skip, Create, Update (failed ones
 * first within an action, else in pass order) and keeps the first `max` groups.
 */
export function selectDecisionEvents(
  decisions: readonly Decision[],
  max: number,
): { selected: DecisionGroup[]; notEmitted: number } {
  const groups = new Map<string, DecisionGroup>();
  for (const d of decisions) {
    const key = JSON.stringify(decisionKey(d));
    const group = groups.get(key);
    if (group) group.occurrences += 1;
    else groups.set(key, { decision: d, occurrences: 1 });
  }
  const ordered = [...groups.values()]
    .map((g, index) => ({ g, index }))
    .sort(
      (a, b) =>
        ACTION_PRIORITY[a.g.decision.action] - ACTION_PRIORITY[b.g.decision.action] ||
        Number(b.g.decision.error !== undefined) - Number(a.g.decision.error !== undefined) ||
        a.index - b.index,
    )
    .map(({ g }) => g);
  const selected = ordered.slice(0, Math.max(0, max));
  const shown = selected.reduce((n, g) => n + g.occurrences, 0);
  return { selected, notEmitted: decisions.length - shown };
}

/** The message of the summary Event. */
export function passSummaryMessage(
  result: PassResult,
  decisions: number,
  notEmitted: number,
  maxEventsPerPass: number = DEFAULT_MAX_EVENTS_PER_PASS,
): string {
  const c = result.counts;
  const state = result.complete
    ? 'complete'
    : `incomplete: ${result.incompleteReason ?? 'unknown reason'}`;
  const errors = result.errors.length;
  const shown =
    notEmitted === 0
      ? `Every decision has its own Event.`
      : `${notEmitted} of ${decisions} decisions are not shown as Events (at most ${maxEventsPerPass} per pass); the logs have all of them (passId ${result.passId}).`;
  return truncate(
    `Pass ${result.passId}: ${c.Create} Create, ${c.Update} Update, ${c.Delete} Delete, ${c.Skip} Skip, ${errors} error${errors === 1 ? '' : 's'}; ${state}. ${shown}`,
  );
}

interface EventSpec {
  name: string;
  reason: string;
  type: 'Normal' | 'Warning';
  message: string;
  occurrences: number;
  annotations: Record<string, string>;
}

export class KubernetesEventsSink implements DecisionSink {
  private readonly hostApi: ClusterApi;
  private readonly tenant: string;
  private readonly max: number;
  private readonly clock: Clock;
  private readonly onError: ((error: Error) => void) | undefined;
  private readonly concurrency: number;
  private readonly buffered = new Map<string, Decision[]>();
  private report: EventsReport | undefined;

  constructor(options: KubernetesEventsSinkOptions) {
    this.hostApi = options.hostApi;
    this.tenant = options.tenant;
    this.max = options.maxEventsPerPass ?? DEFAULT_MAX_EVENTS_PER_PASS;
    this.clock = options.clock ?? systemClock;
    this.onError = options.onError;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
  }

  /** What the sink did for the last pass it finished. */
  get lastReport(): EventsReport | undefined {
    return this.report;
  }

  decision(decision: Decision): void {
    // Kept in case the pass result carries no decision list; Events are written at the end.
    const list = this.buffered.get(decision.passId);
    if (list) list.push(decision);
    else this.buffered.set(decision.passId, [decision]);
  }

  async passFinished(result: PassResult): Promise<void> {
    const buffered = this.buffered.get(result.passId) ?? [];
    this.buffered.delete(result.passId);
    const decisions = result.decisions.length > 0 ? result.decisions : buffered;
    const report: EventsReport = {
      passId: result.passId,
      created: 0,
      bumped: 0,
      notEmitted: 0,
      summary: 'none',
      failures: [],
    };
    this.report = report;
    // A pass that decided nothing stays silent unless it failed somewhere: an operator reading
    // `kubectl describe` must see a pass whose listing or writes failed.
    const quiet = decisions.length === 0 && result.complete && result.errors.length === 0;
    if (result.dryRun || quiet) return;
    try {
      await this.writeEvents(result, decisions, report);
    } catch (error) {
      this.fail(report, 'writing Events', error);
    }
  }

  private fail(report: EventsReport, what: string, error: unknown): void {
    const message = `${what} for TenantCluster ${this.tenant}: ${error instanceof Error ? error.message : String(error)}`;
    report.failures.push(message);
    try {
      this.onError?.(new Error(message, { cause: error }));
    } catch {
      // A failing callback must not reach the pass either.
    }
  }

  private async writeEvents(
    result: PassResult,
    decisions: readonly Decision[],
    report: EventsReport,
  ): Promise<void> {
    // The pass already read the TenantCluster; read it only for a result that does not say.
    const uid =
      result.tenantClusterUid ??
      (await this.hostApi.get(TENANT_CLUSTER_KIND, undefined, this.tenant))?.metadata.uid;
    if (!uid) {
      this.fail(
        report,
        'writing Events',
        new Error('the TenantCluster does not exist on the host'),
      );
      return;
    }
    const { selected, notEmitted } = selectDecisionEvents(decisions, this.max);
    report.notEmitted = notEmitted;

    const specs: EventSpec[] = selected.map(({ decision: d, occurrences }) => ({
      name: decisionEventName(this.tenant, uid, d),
      reason: d.action,
      type: d.action === DecisionAction.Delete ? 'Warning' : 'Normal',
      message: decisionEventMessage(d),
      occurrences,
      annotations: {
        [EventAnnotations.TenantRef]: `${d.tenantRef.namespace}/${d.tenantRef.name}`,
        [EventAnnotations.HostRef]: `${d.hostRef.namespace}/${d.hostRef.name}`,
        [EventAnnotations.Kind]: d.kind,
        [EventAnnotations.PassId]: d.passId,
      },
    }));
    let next = 0;
    const worker = async () => {
      while (next < specs.length) {
        const spec = specs[next++]!;
        try {
          const outcome = await this.upsert(spec, uid);
          if (outcome === 'created') report.created += 1;
          else report.bumped += 1;
        } catch (error) {
          this.fail(
            report,
            `writing Event ${spec.reason} ${spec.annotations[EventAnnotations.HostRef]}`,
            error,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, specs.length) }, worker));

    const c = result.counts;
    const summaryKey = [
      PASS_SUMMARY_REASON,
      c.Create,
      c.Update,
      c.Delete,
      c.Skip,
      result.errors.length,
      result.complete,
      result.incompleteReason ?? '',
      notEmitted,
    ];
    const summary: EventSpec = {
      name: `${this.tenant}.${hash([this.tenant, uid, ...summaryKey])}`,
      reason: PASS_SUMMARY_REASON,
      type: result.complete && result.errors.length === 0 ? 'Normal' : 'Warning',
      message: passSummaryMessage(result, decisions.length, notEmitted, this.max),
      occurrences: 1,
      annotations: { [EventAnnotations.PassId]: result.passId },
    };
    try {
      report.summary = await this.upsert(summary, uid);
    } catch (error) {
      this.fail(report, 'writing the PassSummary Event', error);
    }
  }

  /** Creates the Event, or bumps count and lastTimestamp of the existing one (one retry on a race). */
  private async upsert(spec: EventSpec, uid: string): Promise<'created' | 'bumped'> {
    for (let attempt = 0; ; attempt++) {
      const now = kubeTime(this.clock.now());
      const existing = await this.hostApi.get(EVENT_KIND, EVENTS_NAMESPACE, spec.name);
      try {
        if (existing) {
          const count = typeof existing.count === 'number' ? existing.count : 1;
          await this.hostApi.update({
            ...existing,
            metadata: {
              ...existing.metadata,
              annotations: { ...(existing.metadata.annotations ?? {}), ...spec.annotations },
            },
            message: spec.message,
            count: count + spec.occurrences,
            lastTimestamp: now,
          });
          return 'bumped';
        }
        await this.hostApi.create(this.newEvent(spec, uid, now));
        return 'created';
      } catch (error) {
        const raced =
          error instanceof ClusterError &&
          (error.reason === ClusterErrorReason.Conflict ||
            error.reason === ClusterErrorReason.AlreadyExists ||
            error.reason === ClusterErrorReason.NotFound);
        if (!raced || attempt >= 1) throw error;
      }
    }
  }

  private newEvent(spec: EventSpec, uid: string, now: string): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: spec.name,
        namespace: EVENTS_NAMESPACE,
        labels: {
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': this.tenant,
        },
        annotations: spec.annotations,
      },
      involvedObject: {
        apiVersion: TENANT_CLUSTER_KIND.apiVersion,
        kind: TENANT_CLUSTER_KIND.kind,
        name: this.tenant,
        uid,
      },
      reason: spec.reason,
      message: spec.message,
      type: spec.type,
      count: spec.occurrences,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: EVENT_COMPONENT },
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: EVENT_COMPONENT,
    };
  }
}

/** True when `object` is an Event this sink wrote (for tests and tools). */
export function isTenantplaneEvent(object: KubeObject): boolean {
  const source = object.source;
  return isRecord(source) && source.component === EVENT_COMPONENT;
}
