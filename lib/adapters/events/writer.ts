/**
 * The Kubernetes Events sink: Decisions become core/v1 Events about the tenant's `TenantCluster`
 * on the host, so that `kubectl describe tenantcluster <tenant>` answers "why does this host
 * object exist?".
 *
 * Per pass: at most `maxEventsPerPass` decision Events (see {@link selectDecisionEvents}) and one
 * `PassSummary` Event when the pass made decisions or had errors; a clean pass that decided
 * nothing stays silent. Events are named after what they are about, so repeats bump `count`.
 *
 * Dry-run passes write no Events. Write failures never throw into the pass: they go to `onError`
 * and to {@link KubernetesEventsSink.lastReport}.
 */
import { errorMessage, runPool } from '../../common/index.js';
import { EventAnnotations } from '../../engine/index.js';
import {
  type Clock,
  type ClusterApi,
  type Decision,
  type DecisionSink,
  type PassResult,
  systemClock,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { createOrBumpEvent } from './create-or-bump.js';
import {
  decisionEventSpec,
  type EventSpec,
  passSummaryEventSpec,
  type TenantClusterRef,
  warningEventSpec,
} from './event-object.js';
import { DEFAULT_MAX_EVENTS_PER_PASS, selectDecisionEvents } from './flood-control.js';

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

/** A {@link DecisionSink} that writes each pass's Decisions as Events on the TenantCluster. */
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
    // A pass that found another pass holding the tenant's lease writes nothing, Events included.
    if (result.dryRun || quiet || result.leaseHeld) return;
    try {
      await this.writeEvents(result, decisions, report);
    } catch (error) {
      this.fail(report, 'writing Events', error);
    }
  }

  private fail(report: EventsReport, what: string, error: unknown): void {
    const message = `${what} for TenantCluster ${this.tenant}: ${errorMessage(error)}`;
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
      (await this.hostApi.get(TENANT_CLUSTER, undefined, this.tenant))?.metadata.uid;
    if (!uid) {
      this.fail(
        report,
        'writing Events',
        new Error('the TenantCluster does not exist on the host'),
      );
      return;
    }
    const about: TenantClusterRef = { tenant: this.tenant, uid };
    const { selected, notEmitted } = selectDecisionEvents(decisions, this.max);
    report.notEmitted = notEmitted;

    const specs = [
      ...(result.warnings ?? []).map((w) => warningEventSpec(about, w, result.passId)),
      ...selected.map((group) => decisionEventSpec(about, group)),
    ];
    await runPool(specs, this.concurrency, async (spec: EventSpec) => {
      try {
        const outcome = await createOrBumpEvent(this.hostApi, this.clock, spec, about);
        if (outcome === 'created') report.created += 1;
        else report.bumped += 1;
      } catch (error) {
        this.fail(
          report,
          `writing Event ${spec.reason} ${spec.annotations[EventAnnotations.HostRef]}`,
          error,
        );
      }
    });

    const summary = passSummaryEventSpec(about, result, decisions.length, notEmitted, this.max);
    try {
      report.summary = await createOrBumpEvent(this.hostApi, this.clock, summary, about);
    } catch (error) {
      this.fail(report, 'writing the PassSummary Event', error);
    }
  }
}
