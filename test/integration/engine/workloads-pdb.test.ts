/**
 * PodDisruptionBudgets on the real clusters: a tenant budget's host copy protects exactly its
 * tenant's and virtual namespace's host Pods. The host's own disruption controller
 * (kube-controller-manager) counts only those (`status.expectedPods`), although the shared host
 * namespace holds more Pods labelled `app: web` (the same tenant's in another virtual namespace,
 * and another tenant's); the host's eviction API (`pods/eviction`) refuses to evict one of the
 * protected copies with 429 because of that budget, and evicts the unprotected Pods.
 *
 * Proving the negative: a budget written on the host directly with the tenant's selector as the
 * tenant wrote it counts every one of those Pods, so the copy's count is its scoping, not an
 * empty namespace.
 */
import { describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  decisionLines,
  pass,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const PDB: KindRef = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
const WEB = { app: 'web' };

interface BudgetStatus {
  observedGeneration?: number;
  expectedPods?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptionsAllowed?: number;
}

/** The host's core API through the standard client, for the eviction subresource. */
function hostCore(): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromString(clusters.host.text);
  return kc.makeApiClient(CoreV1Api);
}

/** What the eviction API answered: the HTTP status and, for a refusal, its Status body. */
interface EvictionAnswer {
  code: number;
  message?: string;
  causes?: Array<{ reason?: string; message?: string }>;
}

/** POSTs a policy/v1 Eviction for a host Pod (`pods/eviction`), as `kubectl drain` does. */
async function evict(core: CoreV1Api, namespace: string, name: string): Promise<EvictionAnswer> {
  try {
    await core.createNamespacedPodEviction({
      name,
      namespace,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
    });
    return { code: 201 };
  } catch (error) {
    const { code, body } = error as { code?: number; body?: unknown };
    if (typeof code !== 'number') throw error;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as {
      message?: string;
      details?: { causes?: EvictionAnswer['causes'] };
    };
    return { code, message: status.message, causes: status.details?.causes ?? [] };
  }
}

const webPod = (t: Tenant, namespace: string, name: string): KubeObject =>
  tenantObject(
    t,
    POD,
    namespace,
    name,
    {
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'web', image: 'nginx:1' }],
      },
    },
    { labels: WEB },
  );

const phaseOf = (pod: KubeObject | undefined) =>
  (pod?.status as { phase?: string } | undefined)?.phase;

/** Waits until every named host Pod runs (kwok takes scheduled Pods to Running and Ready). */
async function running(t: Tenant, names: readonly string[]): Promise<void> {
  await waitFor(
    `host Pods ${names.join(', ')} Running`,
    async () => {
      for (const name of names) {
        if (phaseOf(await t.hostApi.get(POD, t.hostNamespace, name)) !== 'Running') return;
      }
      return true;
    },
    60_000,
  );
}

/** The budget's status once the host disruption controller has seen its latest generation. */
async function settledStatus(
  t: Tenant,
  name: string,
  done: (status: BudgetStatus) => boolean,
): Promise<BudgetStatus> {
  let last: BudgetStatus | undefined;
  try {
    return await waitFor(
      `the host disruption controller to count the Pods of budget ${name}`,
      async () => {
        const budget = await t.hostApi.get(PDB, t.hostNamespace, name);
        const status = (budget?.status ?? {}) as BudgetStatus;
        last = status;
        const observed = status.observedGeneration === budget?.metadata.generation;
        return observed && done(status) ? status : undefined;
      },
      60_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status: ${JSON.stringify(last)}`);
  }
}

describe('PodDisruptionBudgets on the host', () => {
  it('the copy counts and protects exactly its tenant’s and virtual namespace’s Pods: eviction refused with 429, other Pods evicted', async () => {
    const t = await createTenant(apis(), 'wl-pdb', { toHost: [POD, PDB] });
    // A second, real tenant syncing Pods into the same host namespace.
    const other = await createTenant(apis(), 'wl-pdb-other', {
      toHost: [POD],
      hostNamespace: t.hostNamespace,
    });
    const ns = t.vns.a;
    const h = (name: string, vns = ns) => hostName(name, vns, t.name);
    const protectedPods = ['web-0', 'web-1', 'web-2'];

    await t.tenantApi.create(
      tenantObject(t, PDB, ns, 'web', {
        spec: { minAvailable: 3, selector: { matchLabels: WEB } },
      }),
    );
    for (const name of protectedPods) await t.tenantApi.create(webPod(t, ns, name));
    // The same labels in the tenant's other virtual namespace, and in the other tenant.
    await t.tenantApi.create(webPod(t, t.vns.b, 'web-b'));
    for (const name of ['web-0', 'web-1']) {
      await other.tenantApi.create(webPod(other, other.vns.a, name));
    }

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual(
      [
        `Create PodDisruptionBudget ${ns}/web -> ${h('web')}`,
        ...protectedPods.map((n) => `Create Pod ${ns}/${n} -> ${h(n)}`),
        `Create Pod ${t.vns.b}/web-b -> ${h('web-b', t.vns.b)}`,
      ].sort(),
    );
    const theirs = await pass(other);
    expect(theirs.result.errors).toEqual([]);
    expect(decisionLines(theirs.result)).toEqual(
      ['web-0', 'web-1'].map(
        (n) => `Create Pod ${other.vns.a}/${n} -> ${hostName(n, other.vns.a, other.name)}`,
      ),
    );

    const copy = await t.hostApi.get(PDB, t.hostNamespace, h('web'));
    expect(copy?.spec).toEqual({
      minAvailable: 3,
      selector: {
        matchLabels: {
          app: 'web',
          'tenantplane.io/tenant': t.name,
          'tenantplane.io/virtual-namespace': ns,
        },
      },
    });

    const otherHost = ['web-0', 'web-1'].map((n) => hostName(n, other.vns.a, other.name));
    const allHost = [...protectedPods.map((n) => h(n)), h('web-b', t.vns.b), ...otherHost];
    await running(t, allHost);

    // Prove the negative first: the tenant's selector as written, on the host, counts all six.
    // (Deleted again before any eviction: a Pod under two budgets cannot be evicted at all.)
    const control = await t.hostApi.create({
      ...PDB,
      metadata: { name: 'unscoped-control', namespace: t.hostNamespace },
      spec: { minAvailable: 0, selector: { matchLabels: WEB } },
    });
    const unscoped = await settledStatus(t, 'unscoped-control', (s) => s.expectedPods === 6);
    expect(unscoped.expectedPods).toBe(6);
    await t.hostApi.delete(PDB, t.hostNamespace, 'unscoped-control', {
      uid: control.metadata.uid as string,
    });
    await waitFor('the control budget gone', async () =>
      (await t.hostApi.get(PDB, t.hostNamespace, 'unscoped-control')) ? undefined : true,
    );

    // The copy: the host disruption controller counts exactly the three Pods of web's namespace.
    const status = await settledStatus(t, h('web'), (s) => s.currentHealthy === 3);
    expect(status).toMatchObject({
      expectedPods: 3,
      currentHealthy: 3,
      desiredHealthy: 3,
      disruptionsAllowed: 0,
    });

    // A converged tenant writes nothing, the host's status on the copy notwithstanding.
    const steady = await pass(t, { full: true });
    expect(steady.result.errors).toEqual([]);
    expect(steady.result.decisions.filter((d) => d.kind === 'PodDisruptionBudget')).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);

    const core = hostCore();
    const refused = await evict(core, t.hostNamespace, h('web-0'));
    expect(refused).toEqual({
      code: 429,
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${h('web')} needs 3 healthy pods and has 3 currently`,
        },
      ],
    });
    const kept = await t.hostApi.get(POD, t.hostNamespace, h('web-0'));
    expect(kept?.metadata.deletionTimestamp).toBeUndefined();
    expect(phaseOf(kept)).toBe('Running');

    // Not protected by it: the same tenant's Pod of another virtual namespace, another tenant's.
    expect(await evict(core, t.hostNamespace, h('web-b', t.vns.b))).toEqual({ code: 201 });
    expect(await evict(core, t.hostNamespace, otherHost[0] as string)).toEqual({ code: 201 });
    const after = await settledStatus(t, h('web'), (s) => s.currentHealthy === 3);
    expect(after).toMatchObject({ expectedPods: 3, disruptionsAllowed: 0 });
  });
});
