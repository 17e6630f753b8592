/**
 * The Deployments of `latency.bench.ts`: one in the tenant scaled up in steps (its Pods' Ready
 * latency), and a rolling update timed as `kubectl rollout status` waits for it, the same spec in
 * the tenant (followed) and in a host namespace of its own (native, no engine).
 */
import {
  type ClusterApi,
  isClusterError,
  type KindRef,
  type KubeObject,
} from '../../lib/ports/index.js';
import { observe, until } from './latency-watch.js';

export const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };

/** How long one rollout or one scale step may take before the bench gives up. */
const STEP_TIMEOUT_MS = 300_000;

/**
 * A Deployment of `replicas` Pods labelled `app: <name>`, image `image`. The default strategy
 * (25% surge, 25% unavailable), as most Deployments have it; no token, as kwok runs nothing.
 */
export function deployment(
  name: string,
  namespace: string,
  replicas: number,
  image: string,
): KubeObject {
  return {
    ...DEPLOYMENT,
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'app', image }],
        },
      },
    },
  };
}

interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
}

/**
 * What `kubectl rollout status` waits for: the controller saw this generation, every replica is
 * updated and available, and no old one is left.
 */
export function rolledOut(d: KubeObject | undefined): boolean {
  if (!d) return false;
  const want = (d.spec as { replicas?: number }).replicas ?? 1;
  const s = (d.status ?? {}) as DeploymentStatus;
  return (
    (s.observedGeneration ?? 0) >= Number(d.metadata.generation ?? 0) &&
    // The controller leaves a count out of the status when it is 0.
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want
  );
}

/** Waits until the namespace's `default` ServiceAccount exists (Pods are refused before). */
export async function defaultServiceAccount(api: ClusterApi, namespace: string): Promise<void> {
  await until(
    `the default ServiceAccount of ${namespace}`,
    async () => (await api.get(SERVICE_ACCOUNT, namespace, 'default')) !== undefined,
    60_000,
  );
}

/**
 * Writes `edit` of the Deployment and resolves when a watch of it, opened at the write's
 * resourceVersion, shows it rolled out: the time from the write's completion, ms.
 */
export async function timedRollout(
  api: ClusterApi,
  namespace: string,
  name: string,
  edit: (d: KubeObject) => KubeObject,
): Promise<number> {
  const written = await updated(api, namespace, name, edit);
  const t0 = performance.now();
  let done: ((atMs: number) => void) | undefined;
  const finished = new Promise<number>((resolve) => {
    done = resolve;
  });
  const observer = observe(
    api,
    DEPLOYMENT,
    { namespace, fieldSelector: `metadata.name=${name}` },
    ({ object }, atMs) => {
      if (rolledOut(object)) done?.(atMs);
    },
    written.metadata.resourceVersion,
  );
  const timeout = setTimeout(() => done?.(Number.NaN), STEP_TIMEOUT_MS);
  try {
    const at = await finished;
    if (Number.isNaN(at)) throw new Error(`[latency] rollout of ${namespace}/${name} timed out`);
    return at - t0;
  } finally {
    clearTimeout(timeout);
    await observer.stop();
  }
}

/**
 * Reads the Deployment and writes `edit` of it, read again on a conflict: its controller writes
 * its status between the read and the write.
 */
async function updated(
  api: ClusterApi,
  namespace: string,
  name: string,
  edit: (d: KubeObject) => KubeObject,
): Promise<KubeObject> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await api.get(DEPLOYMENT, namespace, name);
    if (!current) throw new Error(`no Deployment ${namespace}/${name}`);
    try {
      return await api.update(edit(current));
    } catch (error) {
      if (!isClusterError(error) || error.status !== 409 || attempt >= 10) throw error;
    }
  }
}

/** The Deployment's template with a new image: a rolling update. */
export function withImage(image: string) {
  return (d: KubeObject): KubeObject => {
    const spec = d.spec as { template: { spec: { containers: { image: string }[] } } };
    const containers = spec.template.spec.containers.map((c) => ({ ...c, image }));
    const template = { ...spec.template, spec: { ...spec.template.spec, containers } };
    return { ...d, spec: { ...spec, template } };
  };
}

/** The Deployment scaled to `replicas`. */
export function withReplicas(replicas: number) {
  return (d: KubeObject): KubeObject => ({
    ...d,
    spec: { ...(d.spec as Record<string, unknown>), replicas },
  });
}
