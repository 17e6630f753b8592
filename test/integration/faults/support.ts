/**
 * The fault matrix's frame: a scenario (a tenant with copies that a pass must keep, update,
 * create and garbage-collect, next to a foreign object it must never touch), a pass run through
 * the fault proxy, and the proof that counts: a snapshot of uid + resourceVersion of every object
 * in the host namespace before and after, so any write or delete outside the expected set shows,
 * then a clean pass that converges (nothing lost) and a steady pass after it that writes nothing.
 */
import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { LogSink } from '../../../lib/adapters/log-sink.js';
import {
  type Budget,
  hostName,
  Labels,
  MANAGED_BY_VALUE,
  runPass,
} from '../../../lib/engine/index.js';
import type { ClusterApi, KubeObject, PassResult } from '../../../lib/ports/index.js';
import {
  type Apis,
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  clusters as engineClusters,
  hostObjects,
  kubectl,
  pass,
  type Snapshot,
  type SnapshotDiff,
  type Tenant,
  type TenantOptions,
  tenantConfigMap,
} from '../engine/support.js';
import type { FaultProxy } from '../support/fault-proxy.js';

/** The resources of each cluster, by kubeconfig ('' for the run's host): clusters differ in CRDs. */
const resources = new Map<string, Promise<string>>();

/** The built kubectl against `kubeconfig` (default: the run's host cluster). */
function kubectlOn(kubeconfig: string | undefined, args: string[]): Promise<string> {
  return kubeconfig === undefined ? kubectl(args) : kubectlAt(kubeconfig, args);
}

function kubectlAt(kubeconfig: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      engineClusters.kubectl,
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}

/** Every namespaced resource a cluster serves that can be listed, as one kubectl argument. */
function namespacedResources(kubeconfig: string | undefined): Promise<string> {
  const key = kubeconfig ?? '';
  let found = resources.get(key);
  if (!found) {
    const args = ['api-resources', '--namespaced=true', '--verbs=list', '-o', 'name'];
    found = kubectlOn(kubeconfig, args).then((out) =>
      out
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && l !== 'events' && l !== 'events.events.k8s.io')
        .join(','),
    );
    resources.set(key, found);
  }
  return found;
}

/** uid + resourceVersion of every object in `namespace` (Events excepted: they are not state). */
export async function snapshot(namespace: string, kubeconfig?: string): Promise<Snapshot> {
  const args = ['get', await namespacedResources(kubeconfig), '-n', namespace, '-o', 'json'];
  const out = await kubectlOn(kubeconfig, args);
  const items = (JSON.parse(out) as { items: KubeObject[] }).items;
  return new Map(
    items.map((o) => [
      `${o.kind}/${o.metadata.name}`,
      `${o.metadata.uid}@${o.metadata.resourceVersion}`,
    ]),
  );
}

export type { SnapshotDiff };

/** A tenant mid-life: copies to keep, update, create and delete, and a foreign object. */
export interface Scenario {
  t: Tenant;
  /** `Kind/name` of every host object the pass may write or delete (the lease included). */
  expected: Set<string>;
  /** `Kind/name` of the foreign object (never touched). */
  foreign: string;
  /** Host snapshot right before the faulted pass. */
  before: Snapshot;
  /** The host's kubeconfig file when it is not the run's shared host (a dedicated plane). */
  hostKubeconfig?: string;
}

/** The lease object of a tenant (`Lease/<name>`), written by any pass that writes. */
export function leaseKey(tenant: string): string {
  return `Lease/tenantplane-${tenant}`;
}

export interface ScenarioOptions extends TenantOptions {
  /** Copies of each sort (default 2): kept, changed, new, gone. */
  each?: number;
  /** The host's kubeconfig file, for a dedicated control plane. */
  hostKubeconfig?: string;
  /** Kinds expected to fail in every pass (not installed). */
  tolerate?: string[];
}

/**
 * A tenant converged by a clean pass, then changed so the next pass has every sort of write to
 * make: `keep-*` unchanged, `change-*` updated, `new-*` created, `gone-*` deleted (their copies are
 * GC candidates); plus a foreign ConfigMap in the host namespace.
 */
export async function scenario(
  apis: Apis,
  base: string,
  options: ScenarioOptions = {},
): Promise<Scenario> {
  const t = await createTenant(apis, base, options);
  const n = options.each ?? 2;
  const names = (prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  for (const name of [...names('keep'), ...names('change'), ...names('gone')]) {
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, name, { v: '1' }));
  }
  const foreign = await t.hostApi.create({
    ...CONFIGMAP,
    metadata: { name: `foreign-${t.name}`, namespace: t.hostNamespace },
    data: { owner: 'someone else' },
  });
  const first = await pass(t);
  expect(first.result.errors.filter((e) => !options.tolerate?.includes(e.kind))).toEqual([]);
  for (const name of names('change')) {
    const source = (await t.tenantApi.get(CONFIGMAP, t.vns.a, name)) as KubeObject;
    await t.tenantApi.update({ ...source, data: { v: '2' } });
  }
  for (const name of names('new')) {
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, name, { v: '2' }));
  }
  for (const name of names('gone')) {
    const source = (await t.tenantApi.get(CONFIGMAP, t.vns.a, name)) as KubeObject;
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, name, { uid: source.metadata.uid as string });
  }
  const expected = new Set([
    ...[...names('change'), ...names('new'), ...names('gone')].map(
      (name) => `ConfigMap/${hostName(name, t.vns.a, t.name)}`,
    ),
    leaseKey(t.name),
  ]);
  const before = await snapshot(t.hostNamespace, options.hostKubeconfig);
  const foreignKey = `ConfigMap/${foreign.metadata.name}`;
  const hostKubeconfig = options.hostKubeconfig;
  return {
    t,
    expected,
    foreign: foreignKey,
    before,
    ...(hostKubeconfig ? { hostKubeconfig } : {}),
  };
}

/** Clients of the scenario's tenant, each through a proxy when one is given. */
export function proxiedApis(
  proxies: { tenant?: FaultProxy; host?: FaultProxy },
  clusters: { tenant: { text: string; origin: string }; host: { text: string; origin: string } },
): { tenantApi: KubeClusterApi; hostApi: KubeClusterApi } {
  return {
    tenantApi: createClusterApi(proxies.tenant ? proxies.tenant.kubeconfig() : clusters.tenant),
    hostApi: createClusterApi(proxies.host ? proxies.host.kubeconfig() : clusters.host),
  };
}

export interface FaultedPass {
  result?: PassResult;
  /** The error when the pass failed as a whole. */
  failure?: unknown;
  ms: number;
  logs: Record<string, unknown>[];
}

/**
 * One full pass (unless `full: false`) of the scenario's tenant through the given clients, with the
 * real sinks and the tenant's lease, as the function and the command run it. Full, so every fault meets the two-sided
 * listing it aims at: a resumed pass falls back to this very path when its own requests fail
 * (`resume-restart.test.ts`), and stops as a full one does when the tenant stalls
 * (`matrix-connections.test.ts`).
 */
export async function faultedPass(
  s: Scenario,
  apis: { tenantApi: ClusterApi; hostApi: ClusterApi },
  budget: Partial<Budget> = {},
  { full = true }: { full?: boolean } = {},
): Promise<FaultedPass> {
  const logs: Record<string, unknown>[] = [];
  const sinks = [
    new KubernetesEventsSink({ hostApi: apis.hostApi, tenant: s.t.name }),
    new LogSink((r) => logs.push(r)),
  ];
  const t0 = Date.now();
  try {
    const result = await runPass({
      tenant: s.t.name,
      ...apis,
      sinks,
      budget,
      path: full ? 'full' : 'auto',
    });
    return { result, ms: Date.now() - t0, logs };
  } catch (failure) {
    return { failure, ms: Date.now() - t0, logs };
  }
}

/**
 * Asserts that the faulted pass changed nothing outside the expected set (no wrongful write), and
 * deleted nothing outside it (no wrongful delete); returns what it did change.
 */
export async function expectNoWrongfulChange(s: Scenario): Promise<SnapshotDiff> {
  const changes = diffSnapshots(s.before, await snapshot(s.t.hostNamespace, s.hostKubeconfig));
  const outside = (keys: string[]) => keys.filter((k) => !s.expected.has(k));
  expect({
    wrongfulWrites: outside([...changes.created, ...changes.changed]),
    wrongfulDeletes: outside(changes.deleted),
  }).toEqual({ wrongfulWrites: [], wrongfulDeletes: [] });
  return changes;
}

/**
 * A clean pass after the fault converges: complete, no errors; every tenant source has its copy
 * with the source's data (nothing lost), no copy without a source is left, the foreign object is
 * as it was; and a steady pass after it writes nothing.
 */
export async function expectConverges(s: Scenario, tolerate: string[] = []): Promise<void> {
  const clean = await pass(s.t);
  // A kind that stays broken (not installed) keeps its own error; nothing else may fail.
  const errors = clean.result.errors.filter((e) => !tolerate.includes(e.kind));
  const reasons = (clean.result.incompleteReason ?? '')
    .split('; ')
    .filter((r) => r !== '' && !tolerate.some((kind) => r.startsWith(`${kind}: `)));
  expect({ incomplete: reasons, errors }).toEqual({ incomplete: [], errors: [] });
  const sources = (
    await s.t.tenantApi.list(CONFIGMAP, { labelSelector: `tenantplane-test=${s.t.name}` })
  ).items;
  const copies = new Map((await hostObjects(s.t)).map((o) => [o.metadata.name, o]));
  for (const source of sources) {
    const copy = copies.get(
      hostName(source.metadata.name, source.metadata.namespace ?? '', s.t.name),
    );
    expect(copy?.data).toEqual(source.data);
  }
  const managed = [...copies.values()].filter(
    (o) => o.metadata.labels?.[Labels.ManagedBy] === MANAGED_BY_VALUE,
  );
  expect(managed).toHaveLength(sources.length);
  const after = await snapshot(s.t.hostNamespace, s.hostKubeconfig);
  expect(after.get(s.foreign)).toBe(s.before.get(s.foreign));
  const steady = await pass(s.t);
  expect(steady.result.requests.host.writes).toBe(0);
  expect(steady.result.complete || tolerate.length > 0).toBe(true);
}

/** One row of the fault matrix, appended to $TENANTPLANE_FAULT_MATRIX when set (for the README). */
export function recordRow(fault: string, run: FaultedPass, changes: SnapshotDiff): void {
  const file = process.env.TENANTPLANE_FAULT_MATRIX;
  if (!file) return;
  const r = run.result;
  const row = {
    fault,
    ms: run.ms,
    failure: run.failure instanceof Error ? run.failure.message : undefined,
    complete: r?.complete,
    incompleteReason: r?.incompleteReason,
    errors: r?.errors.map((e) => `${e.reason ?? ''}: ${e.message}`.slice(0, 160)),
    counts: r?.counts,
    writes: r?.requests.host.writes,
    changes,
  };
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}
