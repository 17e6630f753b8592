/**
 * Shared set-up of the engine's integration tests: one isolated tenant per test (its own
 * TenantCluster, host namespace and tenant namespaces, never reused because namespaces never finish
 * terminating here), the real cluster clients, the real Events and log sinks, and ways to look at
 * what an operator sees (host objects, Events, status, kubectl).
 *
 * The tenant apiserver is shared by every integration test file, so each TenantCluster syncs only
 * the tenant objects labelled `tenantplane-test=<tenant>` (a per-kind `exclude.labelSelector`).
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { LogSink } from '../../../lib/adapters/log-sink.js';
import { type Budget, runPass } from '../../../lib/engine/index.js';
import {
  ClusterError,
  type KindRef,
  type KubeObject,
  type PassResult,
} from '../../../lib/ports/index.js';
import { type IntegrationClusters, integrationClusters } from '../support/clusters.js';

export const clusters: IntegrationClusters = integrationClusters();

/** Short and unique per run, so names stay readable and the files pass on a long-lived plane. */
export const RUN = Math.random().toString(36).slice(2, 7);

/** The label that scopes a tenant's sync to its own test objects. */
export const LABEL = 'tenantplane-test';

export const CONFIGMAP: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SECRET: KindRef = { apiVersion: 'v1', kind: 'Secret' };
export const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
export const NAMESPACE: KindRef = { apiVersion: 'v1', kind: 'Namespace' };
export const EVENT: KindRef = { apiVersion: 'v1', kind: 'Event' };
export const TENANT_CLUSTER: KindRef = {
  apiVersion: 'tenantplane.io/v1alpha1',
  kind: 'TenantCluster',
};
export const CRD: KindRef = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
};

/** The two real clusters, shared by the tests of one file. */
export interface Apis {
  tenantApi: KubeClusterApi;
  hostApi: KubeClusterApi;
}

export function openApis(): Apis {
  return { tenantApi: createClusterApi(clusters.tenant), hostApi: createClusterApi(clusters.host) };
}

export async function closeApis(apis: Apis | undefined): Promise<void> {
  await apis?.tenantApi.close();
  await apis?.hostApi.close();
}

/**
 * Opens the real cluster clients before the calling file's tests and closes them after they all
 * ran. Call it at the top level of a test file; the returned function gives the open clients (and
 * throws when called outside the tests, before they are open).
 */
export function useApis(): () => Apis {
  let apis: Apis | undefined;
  beforeAll(() => {
    apis = openApis();
  });
  afterAll(async () => {
    await closeApis(apis);
    apis = undefined;
  });
  return () => {
    if (!apis) throw new Error('the cluster clients are open only while the tests run');
    return apis;
  };
}

export async function ensureNamespace(api: KubeClusterApi, name: string): Promise<void> {
  const existing = await api.get(NAMESPACE, undefined, name);
  if (!existing) await api.create({ ...NAMESPACE, metadata: { name } });
}

/** One isolated tenant: a TenantCluster on the host, its host namespace, its tenant namespaces. */
export interface Tenant extends Apis {
  /** The TenantCluster name. */
  name: string;
  hostNamespace: string;
  /** Tenant namespaces made for this tenant: `<name>-a`, `<name>-b`. */
  vns: { a: string; b: string };
}

export interface TenantOptions {
  /**
   * The kinds to sync, each scoped to this tenant's labelled objects; `'default'` leaves `toHost`
   * out (ConfigMaps and Secrets, unscoped: the whole shared tenant cluster).
   */
  toHost?: KindRef[] | 'default';
  /** Extra tenant namespaces to create (e.g. `kube-system` exists already). */
  extraNamespaces?: string[];
  /** Share this host namespace (another tenant's) instead of making `h-<name>`. */
  hostNamespace?: string;
  /** `spec.workloads` of the TenantCluster. */
  workloads?: Record<string, unknown>;
}

/** Creates a fresh tenant: `<base>-<run>` with its own namespaces on both clusters. */
export async function createTenant(
  apis: Apis,
  base: string,
  options: TenantOptions = {},
): Promise<Tenant> {
  const name = `${base}-${RUN}`;
  const hostNamespace = options.hostNamespace ?? `h-${name}`;
  const vns = { a: `${name}-a`, b: `${name}-b` };
  const toHost = options.toHost ?? [CONFIGMAP];
  const spec: Record<string, unknown> = { hostNamespace };
  if (options.workloads) spec.workloads = options.workloads;
  if (toHost !== 'default') {
    spec.toHost = toHost.map((k) => ({
      apiVersion: k.apiVersion,
      kind: k.kind,
      exclude: { labelSelector: `${LABEL}!=${name}` },
    }));
  }
  await ensureNamespace(apis.hostApi, hostNamespace);
  for (const ns of [vns.a, vns.b, ...(options.extraNamespaces ?? [])]) {
    await ensureNamespace(apis.tenantApi, ns);
  }
  await apis.hostApi.create({ ...TENANT_CLUSTER, metadata: { name }, spec });
  return { ...apis, name, hostNamespace, vns };
}

/** A tenant object of `kind` labelled for `tenant`. */
export function tenantObject(
  tenant: Tenant,
  kind: KindRef,
  namespace: string,
  name: string,
  body: Record<string, unknown> = {},
  metadata: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return {
    ...kind,
    ...body,
    metadata: {
      ...metadata,
      name,
      namespace,
      labels: { ...(metadata.labels ?? {}), [LABEL]: tenant.name },
    },
  };
}

export function tenantConfigMap(
  tenant: Tenant,
  namespace: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
  metadata: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return tenantObject(tenant, CONFIGMAP, namespace, name, { data }, metadata);
}

/** What one pass returned, plus what the sinks did. */
export interface PassRun {
  result: PassResult;
  logs: Record<string, unknown>[];
  events: KubernetesEventsSink;
}

export interface PassRunOptions {
  budget?: Partial<Budget>;
  dryRun?: boolean;
  /** A full two-sided pass (`--full`): the one that repairs drift on host copies. */
  full?: boolean;
}

/** Runs one pass with the real Events sink and log sink, as the Lambda function does. */
export async function pass(tenant: Tenant, options: PassRunOptions = {}): Promise<PassRun> {
  const logs: Record<string, unknown>[] = [];
  const events = new KubernetesEventsSink({ hostApi: tenant.hostApi, tenant: tenant.name });
  const result = await runPass({
    tenant: tenant.name,
    tenantApi: tenant.tenantApi,
    hostApi: tenant.hostApi,
    sinks: [events, new LogSink((r) => logs.push(r))],
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.full ? { path: 'full' as const } : {}),
    // The tests' own passes run one at a time: no lease, so a lease a faulted pass could not
    // release does not hold back the pass that checks convergence (the lease has its own tests).
    lease: false,
  });
  return { result, logs, events };
}

/** Every object of `kind` in the tenant's host namespace (all pages). */
export async function hostObjects(
  tenant: Tenant,
  kind: KindRef = CONFIGMAP,
): Promise<KubeObject[]> {
  return listAll(tenant.hostApi, kind, tenant.hostNamespace);
}

export async function listAll(
  api: KubeClusterApi,
  kind: KindRef,
  namespace: string | undefined,
  fieldSelector?: string,
): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let continueToken: string | undefined;
  do {
    const page = await api.list(kind, {
      ...(namespace ? { namespace } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      limit: 500,
      ...(continueToken ? { continueToken } : {}),
    });
    items.push(...page.items);
    continueToken = page.continueToken;
  } while (continueToken);
  return items;
}

export function byName(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((o) => [o.metadata.name, o]));
}

/** name -> resourceVersion of `objects`, to prove nothing was written. */
export function versions(objects: readonly KubeObject[]): Record<string, string | undefined> {
  return Object.fromEntries(
    [...objects]
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((o) => [o.metadata.name, o.metadata.resourceVersion]),
  );
}

/** The Events in `default` about the tenant's TenantCluster. */
export async function tenantEvents(tenant: Tenant): Promise<KubeObject[]> {
  const events = await listAll(
    tenant.hostApi,
    EVENT,
    'default',
    `involvedObject.kind=TenantCluster,involvedObject.name=${tenant.name}`,
  );
  return events.filter((e) => {
    const involved = e.involvedObject as { kind?: string; name?: string } | undefined;
    return involved?.kind === 'TenantCluster' && involved.name === tenant.name;
  });
}

/** Events plus the sum of their counts: a bumped Event changes the sum, a new one both. */
export async function eventTally(tenant: Tenant): Promise<{ events: number; total: number }> {
  const events = await tenantEvents(tenant);
  const total = events.reduce((n, e) => n + (typeof e.count === 'number' ? e.count : 1), 0);
  return { events: events.length, total };
}

export async function tenantClusterObject(tenant: Tenant): Promise<KubeObject> {
  const tc = await tenant.hostApi.get(TENANT_CLUSTER, undefined, tenant.name);
  if (!tc) throw new Error(`TenantCluster ${tenant.name} is gone`);
  return tc;
}

/** Runs the built kubectl against the host cluster. */
export function kubectl(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      clusters.kubectl,
      ['--kubeconfig', clusters.hostKubeconfigPath, ...args],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Action tenantNs/name -> hostName lines, sorted. Without the copies of the host's own Events
 * (the scheduler's `Scheduled`, the claim binder's): they come back when the host writes them,
 * which a test does not control; `events-back.test.ts` checks them. Nor the tenant Nodes: which
 * pass first sees a host Pod scheduled, and whether another test's tenant made the Node already,
 * is not the test's either; `workloads-nodes.test.ts` checks them.
 */
export function decisionLines(result: PassResult): string[] {
  return result.decisions
    .filter((d) => d.kind !== 'Event' && d.kind !== 'Node')
    .map(
      (d) =>
        `${d.action} ${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> ${d.hostRef.name}`,
    )
    .sort();
}

export interface AdmissionPolicyOptions {
  /** The policy's and its binding's name. */
  name: string;
  operations: string[];
  resources: string[];
  /** The one validation: its expression, message (or messageExpression) and reason. */
  validation: Record<string, unknown>;
  /** ConfigMap data the policy denies, to probe that it took effect. */
  probeData: Record<string, string>;
  /** Text the denial carries. */
  denial: string;
}

/**
 * A ValidatingAdmissionPolicy and its Deny binding, scoped to the tenant's host namespace; waits
 * until the apiserver (which loads policies asynchronously) denies a probe. Returns both objects.
 */
export async function admissionPolicy(
  t: Tenant,
  options: AdmissionPolicyOptions,
): Promise<KubeObject[]> {
  const vap: KindRef = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
  };
  const { name } = options;
  const policy = await t.hostApi.create({
    ...vap,
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: options.operations,
            resources: options.resources,
          },
        ],
      },
      validations: [options.validation],
    },
  });
  const binding = await t.hostApi.create({
    ...vap,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      matchResources: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': t.hostNamespace } },
      },
    },
  });
  await waitFor('the ValidatingAdmissionPolicy to take effect', async () => {
    const probe = { ...CONFIGMAP, metadata: { name: 'vap-probe', namespace: t.hostNamespace } };
    try {
      const made = await t.hostApi.create({ ...probe, data: options.probeData });
      await t.hostApi.delete(CONFIGMAP, t.hostNamespace, 'vap-probe', {
        uid: made.metadata.uid as string,
      });
      return undefined;
    } catch (error) {
      if (error instanceof ClusterError && error.message.includes(options.denial)) return true;
      throw error;
    }
  });
  return [policy, binding];
}

/** `Kind/name` -> `uid@resourceVersion` of the objects in a namespace. */
export type Snapshot = Map<string, string>;

export interface SnapshotDiff {
  created: string[];
  changed: string[];
  deleted: string[];
}

/** The keys created, changed (another uid or resourceVersion) and deleted between two snapshots, each sorted. */
export function diffSnapshots(before: Snapshot, after: Snapshot): SnapshotDiff {
  const created: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [key, value] of after) {
    const was = before.get(key);
    if (was === undefined) created.push(key);
    else if (was !== value) changed.push(key);
  }
  for (const key of before.keys()) if (!after.has(key)) deleted.push(key);
  return { created: created.sort(), changed: changed.sort(), deleted: deleted.sort() };
}

const NODE_KIND: KindRef = { apiVersion: 'v1', kind: 'Node' };

/**
 * A host node of a test's own, which kwok plays (it plays the nodes annotated
 * `kwok.x-k8s.io/node=fake`): named, with its pod range and taint, labelled with its hostname,
 * os and `type: kwok` plus `labels`.
 */
export function kwokNode(
  name: string,
  podCIDR: string,
  taint: Record<string, string>,
  labels: Record<string, string> = {},
): KubeObject {
  return {
    ...NODE_KIND,
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        type: 'kwok',
        ...labels,
      },
    },
    spec: { podCIDR, podCIDRs: [podCIDR], taints: [taint] },
  };
}

/** Deletes the host node `name` a test made, if it is still there. */
export async function removeNode(api: KubeClusterApi, name: string): Promise<void> {
  const node = await api.get(NODE_KIND, undefined, name);
  if (node?.metadata.uid) await api.delete(NODE_KIND, undefined, name, { uid: node.metadata.uid });
}
