/**
 * What the least-privilege files share: the kinds they name, the admin clients, a pass as a
 * restricted identity, and the checks (Forbidden, clean, the verbs RBAC grants). The kinds each
 * file syncs are rows of `kinds.ts`.
 */
import { readFile } from 'node:fs/promises';
import { expect } from '@jest/globals';
import { KubernetesEventsSink } from '../../../../lib/adapters/events/index.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../../../lib/engine/index.js';
import { readRunningControlPlane } from '../../../../lib/localcluster/index.js';
import {
  isClusterError,
  type KindRef,
  type KubeObject,
  type PassResult,
} from '../../../../lib/ports/index.js';
import { integrationClusters } from '../../support/clusters.js';
import { kubectlApply, rbacFile } from '../../support/rbac.js';

export const clusters = integrationClusters();

/** A suffix of this run's names, so runs and files never collide. */
export const RUN = Math.random().toString(36).slice(2, 7);
/** The label that keeps a tenant's policy to its own objects on the shared tenant apiserver. */
export const LABEL = 'tenantplane-test';

export const CONFIGMAP: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SECRET: KindRef = { apiVersion: 'v1', kind: 'Secret' };
export const NAMESPACE: KindRef = { apiVersion: 'v1', kind: 'Namespace' };
export const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
export const TENANT_CLUSTER: KindRef = {
  apiVersion: 'tenantplane.io/v1alpha1',
  kind: 'TenantCluster',
};
export const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
export const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
export const ENDPOINT_SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
export const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
export const INGRESS: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
export const NETWORK_POLICY: KindRef = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
};
export const PDB: KindRef = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
export const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
export const EVENT: KindRef = { apiVersion: 'v1', kind: 'Event' };
export const SERVICE_CIDR: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR' };
export const CLUSTER_ROLE: KindRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
};
export const CLUSTER_ROLE_BINDING: KindRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
};

/** A tenant and its host client pair. */
export type Apis = { tenant: KubeClusterApi; host: KubeClusterApi };

/** Clients with the clusters' admin credentials (what the operators apply the manifests with). */
export function adminApis(): Apis {
  return { tenant: createClusterApi(clusters.tenant), host: createClusterApi(clusters.host) };
}

/** The running control plane, whose CA issues the restricted identities. */
export async function controlPlane() {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  const state = stateDir ? await readRunningControlPlane(stateDir) : undefined;
  if (!state) throw new Error('the integration control plane state is missing');
  return state;
}

/** Applies one manifest of deploy/rbac to the tenant apiserver, as an operator would. */
export async function applyTenantManifest(file: string): Promise<void> {
  await kubectlApply(clusters.tenantKubeconfigPath, await readFile(rbacFile(file), 'utf8'));
}

/** Runs `request` and fails unless the apiserver answered Forbidden. */
export async function expectForbidden(
  what: string,
  request: () => Promise<unknown>,
): Promise<void> {
  let failure: unknown;
  try {
    await request();
  } catch (error) {
    failure = error;
  }
  if (!isClusterError(failure, 'Forbidden')) {
    throw new Error(`${what}: expected Forbidden, got ${failure ? String(failure) : 'success'}`);
  }
}

/** Polls until the RBAC authorizer's cache has the new bindings (it is eventually consistent). */
export async function eventually(what: string, check: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${String(error)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A tenant object of `tenant` in `namespace`, labelled so only that tenant's policy syncs it. */
export function tenantObject(
  kind: KindRef,
  name: string,
  body: Record<string, unknown>,
  tenant: string,
  namespace: string,
): KubeObject {
  return { ...kind, metadata: { name, namespace, labels: { [LABEL]: tenant } }, ...body };
}

/** One pass of `tenant` as the identities `apis`, its Events written to the host. */
export async function pass(
  tenant: string,
  apis: Apis,
  path?: 'full',
): Promise<{ result: PassResult; events: KubernetesEventsSink }> {
  const events = new KubernetesEventsSink({ hostApi: apis.host, tenant });
  const result = await runPass({
    tenant,
    tenantApi: apis.tenant,
    hostApi: apis.host,
    sinks: [events],
    lease: true,
    ...(path ? { path } : {}),
  });
  return { result, events };
}

/** The decisions of a pass as `<action> <kind> <tenant name>`, sorted. */
export function lines(result: PassResult): string[] {
  return result.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`).sort();
}

/**
 * {@link lines} without the Skip of the slices the tenant's controller makes (random names) and
 * the copies of the host's own Events (the scheduler's, the claim binder's: their timing is the
 * host's; the Events back test makes its own), and the tenant Nodes (which pass first sees the
 * host Pod scheduled is the host scheduler's timing; the Nodes test checks them).
 */
export function workloadLines(result: PassResult): string[] {
  return lines(result).filter((line) => !/^Skip EndpointSlice web-|^\w+ (Event|Node) /.test(line));
}

/** A pass with zero errors, complete, its status and Events written, its Lease released. */
export async function expectClean(
  run: { result: PassResult; events: KubernetesEventsSink },
  tenant: string,
  admin: Apis,
): Promise<void> {
  expect(run.result.errors).toEqual([]);
  expect(run.result.complete).toBe(true);
  expect(run.result.statusWritten).toBe(true);
  // The tenant's Lease was taken and released with these grants alone.
  expect(run.result.warnings ?? []).toEqual([]);
  expect(run.events.lastReport?.failures).toEqual([]);
  const tc = await admin.host.get(TENANT_CLUSTER, undefined, tenant);
  const lastPass = (tc?.status as { lastPass?: { passId?: string } } | undefined)?.lastPass;
  expect(lastPass?.passId).toBe(run.result.passId);
}
