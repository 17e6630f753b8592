/** Shared builders for the engine's pass tests. */

import { type Budget, effectiveBudget, PassBounds } from '../../../lib/engine/bounds/budget.js';
import { dryRunClient } from '../../../lib/engine/context/dry-run.js';
import { newPassContext, type PassContext } from '../../../lib/engine/context/pass-context.js';
import { hostName } from '../../../lib/engine/index.js';
import {
  isSensitiveKind,
  kindModule,
  referencedKinds,
} from '../../../lib/engine/kinds/registry.js';
import { TenantLister } from '../../../lib/engine/listing/tenant-listing.js';
import { TenantClusterKeys } from '../../../lib/engine/names/metadata.js';
import { toHostObject } from '../../../lib/engine/object/transform.js';
import type { SyncPolicy } from '../../../lib/engine/policy/policy.js';
import type {
  Clock,
  Decision,
  DecisionSink,
  KindRef,
  KubeObject,
  PassResult,
} from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { MemoryCluster, type MemoryClusterOptions } from '../fakes/memory-cluster.js';

export const TENANT = 'dev';
export const HOST_NS = 'tenant-dev';
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SECRET = { apiVersion: 'v1', kind: 'Secret' };

/**
 * An established TenantCluster: it carries the engine's finalizer and remembers the kinds and
 * host namespace of its spec, as after its first pass, so a test pass makes no bookkeeping writes.
 * `fresh` gives one no pass has seen yet.
 */
export function tenantCluster(
  spec: Record<string, unknown> = {},
  name = TENANT,
  fresh = false,
): KubeObject {
  const full = { hostNamespace: HOST_NS, ...spec };
  if (fresh) return { ...TENANT_CLUSTER, metadata: { name }, spec: full };
  const toHost = Array.isArray(spec.toHost) ? (spec.toHost as KindRef[]) : [CONFIGMAP, SECRET];
  return {
    ...TENANT_CLUSTER,
    metadata: { name, finalizers: [TenantClusterKeys.HostCleanupFinalizer] },
    spec: full,
    status: {
      syncedKinds: toHost
        .filter((k) => typeof k?.apiVersion === 'string' && typeof k?.kind === 'string')
        .map((k) => ({ apiVersion: k.apiVersion, kind: k.kind })),
      hostNamespaces: [full.hostNamespace],
    },
  };
}

export function cm(
  namespace: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
  metadata: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return {
    ...CONFIGMAP,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}`, ...metadata },
    data,
  };
}

export function secret(namespace: string, name: string, type = 'Opaque'): KubeObject {
  return {
    ...SECRET,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
    type,
    data: { password: 'c3VwZXItc2VjcmV0' },
  };
}

/** The host copy the engine would write for `source` (as a previous pass left it). */
export function hostCopyOf(source: KubeObject, tenant = TENANT): KubeObject {
  // As the registry's translate runs it: the kind's host-owned fields stripped.
  return toHostObject(
    source,
    { tenant, hostNamespace: HOST_NS },
    true,
    kindModule(source).hostOwned,
  );
}

export function hn(namespace: string, name: string, tenant = TENANT): string {
  return hostName(name, namespace, tenant);
}

export interface Clusters {
  tenantApi: MemoryCluster;
  hostApi: MemoryCluster;
}

/** A tenant and a host cluster; the host holds the TenantCluster plus `hostState`. */
export function clusters(
  tenantState: KubeObject[],
  hostState: KubeObject[],
  spec: Record<string, unknown> = {},
  options: { tenant?: MemoryClusterOptions; host?: MemoryClusterOptions } = {},
): Clusters {
  const tenantApi = new MemoryCluster('tenant', options.tenant).seed(...tenantState);
  const hostApi = new MemoryCluster('host', options.host).seed(tenantCluster(spec), ...hostState);
  return { tenantApi, hostApi };
}

/** A sink that remembers what it got. */
export class RecordingSink implements DecisionSink {
  readonly decisions: Decision[] = [];
  readonly results: PassResult[] = [];
  decision(decision: Decision): void {
    this.decisions.push(decision);
  }
  async passFinished(result: PassResult): Promise<void> {
    this.results.push(result);
  }
}

/** `Action tenantNs/name -> hostName` lines, sorted, for compact expectations. */
export function decisionLines(decisions: readonly Decision[]): string[] {
  return decisions
    .map(
      (d) =>
        `${d.action} ${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> ${d.hostRef.name}`,
    )
    .sort();
}

/** Host objects in the host namespace as `Kind name` plus their data, sorted. */
export function hostSummary(hostApi: MemoryCluster): Array<{ ref: string; data?: unknown }> {
  return hostApi
    .objects()
    .filter((o) => o.metadata.namespace === HOST_NS)
    .map((o) => ({
      ref: `${o.kind} ${o.metadata.name}`,
      ...(o.data === undefined ? {} : { data: o.data }),
    }))
    .sort((a, b) => a.ref.localeCompare(b.ref));
}

export interface PassContextOptions {
  hostApi?: MemoryCluster;
  tenantApi?: MemoryCluster;
  dryRun?: boolean;
  budget?: Partial<Budget>;
  /** Defaults to a clock stopped at 2030-01-01T00:00:00Z. */
  clock?: Clock;
  sinks?: DecisionSink[];
  /** As a pass during a host namespace move: the ledger keeps what complete listings wanted. */
  keepWanted?: boolean;
}

/**
 * The context one pass step runs in, as `runPass` builds it, for testing a step on its own:
 * tenant `dev`, host namespace `tenant-dev`, pass id `pass-1`.
 */
export function passContext(options: PassContextOptions = {}): PassContext {
  const budget = effectiveBudget(options.budget);
  const clock = options.clock ?? { now: () => Date.UTC(2030, 0, 1) };
  const tenantApi = options.tenantApi ?? new MemoryCluster('tenant');
  const host = options.hostApi ?? new MemoryCluster('host');
  const ctx = newPassContext({
    tenant: TENANT,
    passId: 'pass-1',
    // As runPass builds it: a dry run's host client answers writes without sending them.
    hostApi: options.dryRun ? dryRunClient(host) : host,
    tenantApi,
    tenantLister: new TenantLister(tenantApi, budget.pageSize),
    dryRun: options.dryRun === true,
    bounds: new PassBounds(budget, clock),
    sinks: options.sinks ?? [],
    tenantCluster: {
      apiVersion: 'tenantplane.io/v1alpha1',
      kind: 'TenantCluster',
      metadata: { name: TENANT },
      // A host namespace remembered besides this one: a move, so the ledger keeps what complete
      // listings wanted.
      ...(options.keepWanted ? { status: { hostNamespaces: [HOST_NS, 'tenant-dev-old'] } } : {}),
    },
    policy: {
      hostNamespace: HOST_NS,
      paused: false,
      toHost: [],
      deleteGuard: { maxPercent: 50, minCopies: 20 },
    } satisfies SyncPolicy,
    clock,
    path: 'full',
    referencedKinds,
    sensitiveKind: isSensitiveKind,
  });
  // The fake host holds no TenantCluster to re-read: the policy never changes under a step.
  return { ...ctx, memory: { ...ctx.memory, recheckPolicy: async () => undefined } };
}

/**
 * Host writes other than the failure report: a pass-level failure is reported on the
 * TenantCluster's conditions by `runPass` itself (one status patch, under the tenant's lease, so
 * with the lease's own writes); everything else is the pass.
 */
export function writesBesideFailureReport(hostApi: MemoryCluster): number {
  const report = hostApi
    .callsOf('patchStatus')
    .filter((c) => c.kind === TENANT_CLUSTER.kind).length;
  const lease = hostApi.calls.filter(
    (c) => c.kind === 'Lease' && c.method !== 'get' && c.method !== 'list',
  ).length;
  return hostApi.requestCount().writes - report - lease;
}
