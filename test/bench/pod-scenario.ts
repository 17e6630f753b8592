/**
 * The Pod scenario of `compare.bench.ts --pods N` (issue 18's target): next to the N ConfigMaps of
 * `scenario.ts` (`cm-<i>`), N tenant Pods (`pod-<i>`, each taking its ConfigMap `cm-<i>` with
 * `envFrom`, in the same namespace) and N/10 Services (`svc-<j>`, each selecting the 10 Pods
 * labelled `app: svc-<j>`, all in its own namespace). The Pods opt out of the tenant token
 * (`automountServiceAccountToken: false`): token minting is a cost of its own, every ~48 minutes
 * per Pod, not of a steady pass.
 *
 * The host's three simulated nodes hold 110 Pods each; the bench adds nodes of its own (kwok
 * manages every node with its annotation) so every host Pod is scheduled and runs: a Pod that
 * stays Pending makes the Pod kind's next passes full for its first 10 minutes
 * (docs/workloads.md), which is not the steady state measured here.
 */
import { KWOK_NODE_ANNOTATION } from '../../lib/localcluster/workload-daemons.js';
import type { ClusterApi, KindRef, KubeObject } from '../../lib/ports/index.js';
import { NAMESPACES, pool } from './scenario.js';

export const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
export const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };

/** Pods per bench node: kwok gives each what its status says, and a /16 of Pod IPs. */
const PODS_PER_NODE = 1000;

/** The Services of N Pods: one per 10 Pods. */
export function serviceCount(pods: number): number {
  return Math.max(1, Math.floor(pods / 10));
}

/** Tenant Pod `pod-<i>`: its ConfigMap `cm-<i>` as environment, selected by `svc-<i % S>`. */
export function benchPod(i: number, services: number): KubeObject {
  return {
    ...POD,
    metadata: {
      name: `pod-${i}`,
      namespace: NAMESPACES[i % NAMESPACES.length],
      labels: { app: `svc-${i % services}` },
    },
    spec: {
      automountServiceAccountToken: false,
      containers: [
        { name: 'app', image: 'nginx:1', envFrom: [{ configMapRef: { name: `cm-${i}` } }] },
      ],
    },
  };
}

/** Tenant Service `svc-<j>`, in the namespace of the Pods it selects (S is a multiple of 10). */
export function benchService(j: number): KubeObject {
  return {
    ...SERVICE,
    metadata: { name: `svc-${j}`, namespace: NAMESPACES[j % NAMESPACES.length] },
    spec: { selector: { app: `svc-${j}` }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`[bench] timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Adds simulated host nodes for `pods` host Pods (twice over: the kubectl peer's copies too),
 * each with room for {@link PODS_PER_NODE} Pods and a Pod CIDR of its own.
 */
export async function addBenchNodes(hostApi: ClusterApi, pods: number): Promise<void> {
  const count = Math.ceil((2 * pods) / PODS_PER_NODE);
  const room = { cpu: '1000', memory: '4Ti', pods: String(PODS_PER_NODE) };
  for (let i = 0; i < count; i += 1) {
    const name = `kwok-bench-${i}`;
    const cidr = `10.${100 + i}.0.0/16`;
    await hostApi.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
        labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', type: 'kwok' },
      },
      spec: { podCIDR: cidr, podCIDRs: [cidr] },
    });
  }
  // kwok's node stage keeps a node's allocatable and capacity once set, but its initialize stage
  // may land after the patch (then the node has room for 110 Pods): patched until the room has
  // held on two reads in a row.
  const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
  for (let i = 0; i < count; i += 1) {
    const name = `kwok-bench-${i}`;
    let held = 0;
    await waitUntil(
      `room on node ${name}`,
      async () => {
        const node = await hostApi.get(NODE, undefined, name);
        const pods = (node?.status as { allocatable?: { pods?: string } } | undefined)?.allocatable
          ?.pods;
        // The apiserver prints a quantity in its canonical form: 1000 Pods is "1k".
        if (pods?.replace(/k$/, '000') === room.pods) {
          held += 1;
          return held >= 2;
        }
        held = 0;
        await hostApi.patchStatus(NODE, undefined, name, { allocatable: room, capacity: room });
        return false;
      },
      60_000,
    );
  }
}

/** Seeds the Pods and Services (the ConfigMaps are the scenario's), once the tenant can take them. */
export async function seedPods(tenantApi: ClusterApi, pods: number): Promise<void> {
  // The tenant's ServiceAccount admission refuses a Pod before its namespace's `default` exists.
  await waitUntil(
    'the tenant default service accounts',
    async () => {
      for (const ns of NAMESPACES) {
        if (!(await tenantApi.get(SERVICE_ACCOUNT, ns, 'default'))) return false;
      }
      return true;
    },
    60_000,
  );
  const t0 = performance.now();
  const services = serviceCount(pods);
  const indexes = (n: number) => Array.from({ length: n }, (_, i) => i);
  await pool(indexes(services), 32, async (j) => {
    await tenantApi.create(benchService(j));
  });
  await pool(indexes(pods), 32, async (i) => {
    await tenantApi.create(benchPod(i, services));
  });
  console.error(
    `[bench] seeded ${pods} tenant Pods and ${services} Services in ${Math.round(performance.now() - t0)} ms`,
  );
}

/** Where the host Pods in `namespace` stand: how many run, and a sample of one that does not. */
async function podPhases(hostApi: ClusterApi, namespace: string) {
  let running = 0;
  let other: unknown;
  let continueToken: string | undefined;
  do {
    const page = await hostApi.list(POD, {
      namespace,
      limit: 500,
      ...(continueToken ? { continueToken } : {}),
    });
    for (const item of page.items) {
      if ((item.status as { phase?: string } | undefined)?.phase === 'Running') running += 1;
      else other ??= { name: item.metadata.name, status: item.status };
    }
    continueToken = page.continueToken;
  } while (continueToken);
  return { running, other };
}

/** Waits until `pods` host Pods of `namespace` run (scheduled, then made Running by kwok). */
export async function waitForRunningPods(
  hostApi: ClusterApi,
  namespace: string,
  pods: number,
): Promise<void> {
  const t0 = performance.now();
  let last: Awaited<ReturnType<typeof podPhases>> | undefined;
  try {
    await waitUntil(
      `${pods} running host Pods in ${namespace}`,
      async () => {
        last = await podPhases(hostApi, namespace);
        return last.running >= pods;
      },
      Math.max(120_000, pods * 200),
    );
  } catch (error) {
    // What the host says of a Pod that does not run tells why (unschedulable, refused, ...).
    console.error(
      `[bench] ${last?.running ?? 0} of ${pods} run; one that does not:`,
      JSON.stringify(last?.other),
    );
    throw error;
  }
  console.error(
    `[bench] ${pods} host Pods in ${namespace} running after ${Math.round(performance.now() - t0)} ms`,
  );
}
