/**
 * The fleet's functions, in this process: one sync handler per tenant (`createHandler`, as the
 * deployed function builds it, so each pass holds its tenant's lease, writes its Events and
 * follows as the function does), invoked on the tenant's schedule. Each tenant's `rate(1 minute)`
 * tick fires somewhere in the flexible window the CDK gives it (infra/schedule.ts: half the
 * interval, at least 1 minute, so the whole minute), a uniform draw per tick as EventBridge
 * Scheduler's spread. Reserved concurrency 1 per tenant: a tick that comes while the tenant's
 * previous invocation still runs is dropped (counted), a wake waits for it. What runs is the
 * function's code; what does not is Lambda (one Node process here, not one per invocation: 300
 * processes do not fit 2 cores) and Secrets Manager (the kubeconfigs come from memory).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { createHandler, type SyncHandler } from '../../functions/sync/handler.js';
import { createClusterApi, type KubeClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { hostName, type PassOptions, runPass } from '../../lib/engine/index.js';
import type { ClusterApi, PassResult } from '../../lib/ports/index.js';
import { syncFunctionContext } from '../integration/support/lambda-context.js';
import { type FleetTenant, PROBE_LABEL, probeNamespace } from './fleet-tenants.js';
import { type Observer, observe } from './latency-watch.js';

/** The function timeouts infra/ gives an unfollowed and a followed tenant (seconds). */
const TIMEOUT_SECONDS = { scheduled: 120, followed: 900 } as const;
/** A followed tenant's `follow.quietSeconds` here. */
export const FOLLOW_QUIET_SECONDS = 10;

/** One pass of one tenant, as the bench saw it. */
export interface PassRecord {
  tenant: string;
  noisy: boolean;
  /** The fleet's phase when the pass started. */
  phase: string;
  ms: number;
  hostReads: number;
  hostWrites: number;
  tenantReads: number;
  complete: boolean;
  /** How the pass read its kinds (`resumed`, `full`, `resync`), and why a kind did not resume. */
  path: string;
  pathReason: string | undefined;
}

interface Slot {
  tenant: FleetTenant;
  handler: SyncHandler;
  busy: Promise<void> | undefined;
}

export class Fleet {
  phase = 'warm-up';
  readonly passes: PassRecord[] = [];
  readonly followLatencies: number[] = [];
  dropped = 0;
  failures = 0;
  private readonly slots = new Map<string, Slot>();
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    tenants: FleetTenant[],
    private readonly log: (line: string) => void,
  ) {
    // Every line the functions would write stays out of the bench's output.
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    for (const tenant of tenants) {
      const record = async (options: PassOptions): Promise<PassResult> => {
        const phase = this.phase;
        const result = await runPass(options);
        this.passes.push({
          tenant: tenant.name,
          noisy: tenant.noisy,
          phase,
          ms: result.durationMs,
          hostReads: result.requests.host.reads,
          hostWrites: result.requests.host.writes,
          tenantReads: result.requests.tenant.reads,
          complete: result.complete,
          path: result.path ?? 'unknown',
          pathReason: result.pathReason,
        });
        return result;
      };
      const handler = createHandler({
        env: {
          TENANT: tenant.name,
          TENANT_KUBECONFIG_SECRET_ID: `tenantplane/${tenant.name}/tenant`,
          HOST_KUBECONFIG_SECRET_ID: `tenantplane/${tenant.name}/host`,
          ...(tenant.followed ? { FOLLOW_QUIET_SECONDS: String(FOLLOW_QUIET_SECONDS) } : {}),
        },
        kubeconfigSource: () => ({
          load: async (role) =>
            role === 'tenant' ? tenant.tenantKubeconfig : tenant.hostKubeconfig,
        }),
        runPass: record,
        logger: new Logger({ serviceName: 'tenantplane-sync', logLevel: 'SILENT' }),
      });
      this.slots.set(tenant.name, { tenant, handler, busy: undefined });
    }
  }

  /** One invocation of `tenant`'s function; a scheduled one is dropped while another runs. */
  invoke(name: string, event: { wake?: boolean } = {}): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no tenant ${name}`);
    if (slot.busy && !event.wake) {
      this.dropped += 1;
      return slot.busy;
    }
    const timeout = slot.tenant.followed ? TIMEOUT_SECONDS.followed : TIMEOUT_SECONDS.scheduled;
    const run = async () => {
      try {
        await slot.handler(
          { tenant: name, ...event },
          syncFunctionContext(name, Date.now() + timeout * 1000),
        );
      } catch (error) {
        this.failures += 1;
        this.log(`${name}: invocation failed: ${(error as Error).message}`);
      }
    };
    const next = (slot.busy ?? Promise.resolve()).then(run);
    const tracked = next.finally(() => {
      if (slot.busy === tracked) slot.busy = undefined;
      this.inFlight.delete(tracked);
    });
    slot.busy = tracked;
    this.inFlight.add(tracked);
    return tracked;
  }

  /**
   * Ticks every tenant once per `minuteMs` (a compressed minute), each at a uniform draw in its
   * flexible window of one minute.
   */
  startSchedule(minuteMs: number): void {
    const tick = () => {
      for (const name of this.slots.keys()) {
        const t = setTimeout(() => {
          if (!this.stopped) void this.invoke(name);
        }, Math.random() * minuteMs);
        this.timers.push(t);
      }
    };
    tick();
    this.timers.push(setInterval(tick, minuteMs));
  }

  /** Stops ticking and waits for the invocations in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await Promise.all([...this.inFlight]);
  }

  /** Waits for the invocations in flight (the schedule goes on). */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }
}

/**
 * The followed tenants' change latency: every `everyMs`, a ConfigMap written in each followed
 * tenant's apiserver, then that tenant woken as the wake endpoint wakes it (the audit webhook's
 * batch of at most 250 ms is not in the figure), timed until a watch on the tenant's host
 * namespace shows the copy.
 */
export class FollowProbes {
  private observers: Observer[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly written = new Map<string, number>();
  private readonly apis = new Map<string, KubeClusterApi>();
  private seq = 0;

  constructor(
    private readonly fleet: Fleet,
    private readonly tenants: FleetTenant[],
    private readonly hostApi: ClusterApi,
  ) {}

  start(everyMs: number): void {
    for (const t of this.tenants) {
      if (!this.apis.has(t.apiserver.server))
        this.apis.set(t.apiserver.server, createClusterApi(t.tenantKubeconfig));
      this.observers.push(
        observe(
          this.hostApi,
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { namespace: t.hostNamespace },
          (change, at) => {
            if (change.type !== 'ADDED') return;
            const t0 = this.written.get(`${t.hostNamespace}/${change.object.metadata.name}`);
            if (t0 !== undefined) {
              this.fleet.followLatencies.push(at - t0);
              this.written.delete(`${t.hostNamespace}/${change.object.metadata.name}`);
            }
          },
        ),
      );
    }
    this.timer = setInterval(() => void this.probe(), everyMs);
  }

  private async probe(): Promise<void> {
    this.seq += 1;
    const seq = this.seq;
    await Promise.all(
      this.tenants.map(async (t) => {
        const api = this.apis.get(t.apiserver.server) as KubeClusterApi;
        const name = `probe-${t.name}-${seq}`;
        this.written.set(
          `${t.hostNamespace}/${hostName(name, probeNamespace(t.name), t.name)}`,
          performance.now(),
        );
        await api.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: probeNamespace(t.name), labels: { [PROBE_LABEL]: t.name } },
          data: { seq: String(seq) },
        });
        void this.fleet.invoke(t.name, { wake: true });
      }),
    ).catch((error: Error) => console.error(`[fleet] probe failed: ${error.message}`));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.observers.map((o) => o.stop()));
    await Promise.all([...this.apis.values()].map((a) => a.close()));
  }
}
