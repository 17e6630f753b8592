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
  /** What invoked it: a tick or a wake (its first pass; a follow's passes are not recorded). */
  trigger: Invocation | undefined;
}

/** What one invocation of a tenant's function was. */
export type Invocation = 'scheduled' | 'wake';

/**
 * One followed change, in ms from its tenant write's request: what that tenant's function was
 * doing when the wake came (`behind`), when the woken invocation began (after the one before it,
 * reserved concurrency 1) and when the host watch saw the copy. A copy seen before the woken
 * invocation began was written by the invocation it waited behind.
 */
export interface ProbeRecord {
  behind: Invocation | 'none';
  /** The invocation running was following (past its first pass) when the wake came. */
  behindFollowing: boolean;
  /** The tenant write's response. */
  writtenMs?: number;
  startedMs?: number;
  seenMs: number;
}

/** `api` with each request's start and end written to `trace`. */
function timed(api: ClusterApi, side: string, trace: string[], t0: number): ClusterApi {
  return new Proxy(api, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const start = performance.now() - t0;
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(out instanceof Promise)) return out;
        const what = (args[0] as { kind?: string } | undefined)?.kind ?? '';
        return out.finally(() =>
          trace.push(
            `${side} ${String(key)} ${what} ${Math.round(start)}-${Math.round(performance.now() - t0)}`,
          ),
        );
      };
    },
  });
}

interface Slot {
  tenant: FleetTenant;
  handler: SyncHandler;
  busy: Promise<void> | undefined;
  running: Invocation | undefined;
  /** The running invocation's first pass has ended: it is following, or about to end. */
  passed: boolean;
}

export class Fleet {
  phase = 'warm-up';
  readonly passes: PassRecord[] = [];
  readonly probes: ProbeRecord[] = [];
  /** Each woken first pass's requests: side, method, start and end in ms from the pass's start. */
  readonly wokenTraces: Array<{ ms: number; trace: string[] }> = [];
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
        const slot = this.slots.get(tenant.name);
        const trigger = slot?.running;
        const trace: string[] = [];
        const t0 = performance.now();
        const traced =
          trigger === 'wake'
            ? {
                ...options,
                tenantApi: timed(options.tenantApi, 'tenant', trace, t0),
                hostApi: timed(options.hostApi, 'host', trace, t0),
              }
            : options;
        const result = await runPass(traced);
        if (trigger === 'wake') this.wokenTraces.push({ ms: result.durationMs, trace });
        if (slot) slot.passed = true;
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
          trigger,
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
      this.slots.set(tenant.name, {
        tenant,
        handler,
        busy: undefined,
        running: undefined,
        passed: false,
      });
    }
  }

  /** One invocation of `tenant`'s function; a scheduled one is dropped while another runs. */
  invoke(
    name: string,
    event: { wake?: boolean } = {},
    onStart?: (at: number) => void,
  ): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no tenant ${name}`);
    if (slot.busy && !event.wake) {
      this.dropped += 1;
      return slot.busy;
    }
    const timeout = slot.tenant.followed ? TIMEOUT_SECONDS.followed : TIMEOUT_SECONDS.scheduled;
    const run = async () => {
      slot.running = event.wake ? 'wake' : 'scheduled';
      onStart?.(performance.now());
      try {
        await slot.handler(
          { tenant: name, ...event },
          syncFunctionContext(name, Date.now() + timeout * 1000),
        );
      } catch (error) {
        this.failures += 1;
        this.log(`${name}: invocation failed: ${(error as Error).message}`);
      } finally {
        slot.running = undefined;
        slot.passed = false;
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

  /** What `name`'s function is doing now: its invocation, and whether it is past its first pass. */
  running(name: string): { invocation: Invocation | undefined; passed: boolean } {
    const slot = this.slots.get(name);
    return { invocation: slot?.running, passed: slot?.passed ?? false };
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

interface Pending {
  t0: number;
  behind: Invocation | 'none';
  behindFollowing: boolean;
  writtenAt?: number;
  startedAt?: number;
}

/**
 * The followed tenants' change latency: every `everyMs`, a ConfigMap written in each followed
 * tenant's apiserver, then that tenant woken as the wake endpoint wakes it (the audit webhook's
 * batch of at most 250 ms is not in the figure), timed until a watch on the tenant's host
 * namespace shows the copy.
 */
export class FollowProbes {
  private observers: Observer[] = [];
  private timers: NodeJS.Timeout[] = [];
  private readonly written = new Map<string, Pending>();
  private readonly apis = new Map<string, KubeClusterApi>();
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly fleet: Fleet,
    private readonly tenants: FleetTenant[],
    private readonly hostApi: ClusterApi,
  ) {}

  /**
   * Probes every followed tenant each `everyMs`: each at its own offset in the interval
   * (`together` false), as independent tenants' changes come, or all at the same instant.
   * Together, their woken invocations start at once in this one process, all building their
   * clients and opening their connections together, which deployed functions, each a process of
   * its own, never do: the first requests of the last ones waited 200 to 300 ms at 100 tenants.
   */
  start(everyMs: number, together = false): void {
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
            const key = `${t.hostNamespace}/${change.object.metadata.name}`;
            const pending = this.written.get(key);
            if (pending === undefined) return;
            this.written.delete(key);
            this.fleet.probes.push({
              behind: pending.behind,
              behindFollowing: pending.behindFollowing,
              ...(pending.writtenAt === undefined
                ? {}
                : { writtenMs: pending.writtenAt - pending.t0 }),
              ...(pending.startedAt === undefined
                ? {}
                : { startedMs: pending.startedAt - pending.t0 }),
              seenMs: at - pending.t0,
            });
          },
        ),
      );
    }
    if (together) {
      this.timers.push(setInterval(() => void this.probe(this.tenants), everyMs));
      return;
    }
    this.tenants.forEach((t, i) => {
      const first = setTimeout(
        () => this.timers.push(setInterval(() => void this.probe([t]), everyMs)),
        (everyMs * i) / this.tenants.length,
      );
      this.timers.push(first);
    });
  }

  private async probe(tenants: FleetTenant[]): Promise<void> {
    await Promise.all(
      tenants.map(async (t) => {
        const seq = (this.seqs.get(t.name) ?? 0) + 1;
        this.seqs.set(t.name, seq);
        const api = this.apis.get(t.apiserver.server) as KubeClusterApi;
        const name = `probe-${t.name}-${seq}`;
        const pending: Pending = { t0: performance.now(), behind: 'none', behindFollowing: false };
        this.written.set(
          `${t.hostNamespace}/${hostName(name, probeNamespace(t.name), t.name)}`,
          pending,
        );
        await api.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: probeNamespace(t.name), labels: { [PROBE_LABEL]: t.name } },
          data: { seq: String(seq) },
        });
        pending.writtenAt = performance.now();
        const running = this.fleet.running(t.name);
        pending.behind = running.invocation ?? 'none';
        pending.behindFollowing = running.passed;
        void this.fleet.invoke(t.name, { wake: true }, (at) => {
          pending.startedAt = at;
        });
      }),
    ).catch((error: Error) => console.error(`[fleet] probe failed: ${error.message}`));
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await Promise.all(this.observers.map((o) => o.stop()));
    await Promise.all([...this.apis.values()].map((a) => a.close()));
  }
}
