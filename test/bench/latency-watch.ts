/**
 * The observers of `latency.bench.ts`: held watches of the bench's own (on clients of their own,
 * so the engine's request counts stay the engine's), timestamping what each side shows as it
 * arrives, with `performance.now()` in this one process, so the two sides' times compare without
 * any clock skew. A watch's delivery delay (a few milliseconds on loopback) is in every figure, on
 * both sides alike.
 */
import { hostName } from '../../lib/engine/index.js';
import type { ClusterApi, KindRef, KubeObject, WatchChange } from '../../lib/ports/index.js';
import { BENCH_TENANT } from './scenario.js';

/** How long the server holds each of the bench's watches before the next one is opened. */
const OBSERVER_WATCH_SECONDS = 300;

/** A held watch of the bench's own, reopened until {@link Observer.stop}. */
export interface Observer {
  stop(): Promise<void>;
}

/**
 * Watches `kind` from now on (from `resourceVersion` when given), handing each change with its
 * arrival time to `onChange`. A failed watch is reopened from the current resourceVersion and
 * said on stderr: the bench then misses that window's changes and its counts say so.
 */
export function observe(
  api: ClusterApi,
  kind: KindRef,
  where: { namespace?: string; labelSelector?: string; fieldSelector?: string },
  onChange: (change: WatchChange, atMs: number) => void,
  resourceVersion?: string,
): Observer {
  const abort = new AbortController();
  const { signal } = abort;
  const loop = (async () => {
    let from = resourceVersion;
    while (!signal.aborted) {
      if (!api.holdWatch) throw new Error('the bench client cannot hold a watch');
      const end = await api.holdWatch(kind, {
        ...(from === undefined ? {} : { resourceVersion: from }),
        ...where,
        timeoutSeconds: OBSERVER_WATCH_SECONDS,
        signal,
        onChange: (change) => onChange(change, performance.now()),
      });
      if (end.ended === 'failed') {
        if (!signal.aborted) console.error(`[latency] observer of ${kind.kind}: ${end.reason}`);
        from = undefined;
      } else {
        from = end.resourceVersion;
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

/** Whether a Pod's Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: { type?: string; status?: string }[] })
    ?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * When each Pod was first seen Ready, on the host and in the tenant, keyed by the host Pod's name
 * (a tenant Pod's host name is `hostName` of its name and namespace).
 */
export class ReadyTimes {
  readonly host = new Map<string, number>();
  readonly tenant = new Map<string, number>();

  onHost = ({ object }: WatchChange, atMs: number) => {
    if (podReady(object) && !this.host.has(object.metadata.name)) {
      this.host.set(object.metadata.name, atMs);
    }
  };

  onTenant = ({ object }: WatchChange, atMs: number) => {
    const { name, namespace = '' } = object.metadata;
    const key = hostName(name, namespace, BENCH_TENANT);
    if (podReady(object) && !this.tenant.has(key)) this.tenant.set(key, atMs);
  };

  /** Host Ready to tenant Ready of each Pod seen Ready on both sides, ms. */
  latencies(): number[] {
    const out: number[] = [];
    for (const [key, tenantMs] of this.tenant) {
      const hostMs = this.host.get(key);
      if (hostMs !== undefined) out.push(tenantMs - hostMs);
    }
    return out;
  }
}

/** Nearest-rank percentile `p` (0..1) of `xs`, or NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

/** p50, p99 and max of `xs`, rounded to ms. */
export function spread(xs: readonly number[]) {
  const r = (v: number) => Math.round(v);
  return {
    n: xs.length,
    p50Ms: r(percentile(xs, 0.5)),
    p99Ms: r(percentile(xs, 0.99)),
    maxMs: r(percentile(xs, 1)),
  };
}

/** Resolves when `check` holds, polled every `everyMs`, or throws after `timeoutMs`. */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 250,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`[latency] timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
