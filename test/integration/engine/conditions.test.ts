/**
 * Status conditions on the real host: `kubectl wait --for=condition=Ready` after a good pass, no
 * status write while nothing changes, a spec edit that decides nothing shown by
 * `observedGeneration`, an unreachable tenant cluster making Ready False with a reason (and the
 * next good pass flipping it back), and the printer columns by default and with `-o wide`.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { ClusterUnreachableError } from '../../../lib/engine/errors.js';
import { type Condition, runPass } from '../../../lib/engine/index.js';
import { reportPassFailure } from '../../../lib/engine/report/pass-failure.js';
import {
  clusters,
  createTenant,
  kubectl,
  pass,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  useApis,
} from './support.js';

const apis = useApis();

interface Status {
  observedGeneration?: number;
  conditions?: Condition[];
  lastPass?: Record<string, unknown>;
}

async function statusOf(t: Tenant): Promise<Status> {
  return ((await tenantClusterObject(t)).status ?? {}) as Status;
}

function condition(status: Status, type: string): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** A tenant kubeconfig whose server is a loopback port nothing listens on. */
async function closedPortKubeconfig(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  const doc = parse(clusters.tenant.text) as { clusters: { cluster: { server: string } }[] };
  for (const c of doc.clusters) c.cluster.server = `https://127.0.0.1:${port}`;
  return stringify(doc);
}

describe('status conditions', () => {
  it('a good pass makes Ready True; kubectl wait --for=condition=Ready succeeds', async () => {
    const t = await createTenant(apis(), 'cond-ready');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    const { result } = await pass(t);
    expect(result.complete).toBe(true);
    expect(result.statusWritten).toBe(true);

    const out = await kubectl([
      'wait',
      '--for=condition=Ready',
      `tenantcluster/${t.name}`,
      '--timeout=10s',
    ]);
    expect(out).toContain('condition met');
    const status = await statusOf(t);
    const generation = (await tenantClusterObject(t)).metadata.generation;
    expect(status.observedGeneration).toBe(generation);
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Converged',
      observedGeneration: generation,
    });
    expect(condition(status, 'Degraded')).toMatchObject({ status: 'False', reason: 'Converged' });
    expect(status.lastPass?.counts).toEqual({
      create: 1,
      update: 0,
      delete: 0,
      skip: 0,
      alreadyGone: 0,
    });
  });

  it('a second identical pass writes no status: resourceVersion unchanged', async () => {
    const t = await createTenant(apis(), 'cond-steady');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    await pass(t);
    const before = await tenantClusterObject(t);

    const { result } = await pass(t);
    expect(result.decisions).toEqual([]);
    expect(result.statusWritten).toBe(false);
    expect(result.requests.host.writes).toBe(0);
    const after = await tenantClusterObject(t);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.status).toEqual(before.status);
  });

  it('a spec edit that decides nothing shows as observedGeneration; transition times stay', async () => {
    const t = await createTenant(apis(), 'cond-gen');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    await pass(t);
    const before = await statusOf(t);

    const tc = await tenantClusterObject(t);
    const spec = tc.spec as { toHost: Array<{ exclude: Record<string, unknown> }> };
    spec.toHost[0]!.exclude.namespaces = ['no-such-namespace'];
    const edited = await t.hostApi.update(tc);
    const generation = edited.metadata.generation as number;
    expect(generation).toBeGreaterThan(before.observedGeneration as number);

    const { result } = await pass(t);
    expect(result.decisions).toEqual([]);
    expect(result.statusWritten).toBe(true);
    const after = await statusOf(t);
    expect(after.observedGeneration).toBe(generation);
    expect(condition(after, 'Ready')).toEqual({
      ...condition(before, 'Ready'),
      observedGeneration: generation,
    });
    expect((await pass(t)).result.statusWritten).toBe(false);
  });

  it('an unreachable tenant cluster makes Ready False with a reason; a good pass flips it back', async () => {
    const t = await createTenant(apis(), 'cond-down');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    await pass(t);
    const ready = condition(await statusOf(t), 'Ready');

    const down = createClusterApi({ text: await closedPortKubeconfig(), origin: 'closed-port' });
    let failure: unknown;
    try {
      // runPass reports its own failure on the TenantCluster before throwing it.
      await runPass({ tenant: t.name, tenantApi: down, hostApi: t.hostApi }).catch(
        (error: unknown) => {
          failure = error;
        },
      );
    } finally {
      await down.close();
    }
    expect(failure).toBeInstanceOf(ClusterUnreachableError);
    const failed = await statusOf(t);
    expect(condition(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'TenantClusterUnreachable',
      message: expect.stringMatching(/^the pass failed: the tenant cluster is unreachable: /),
    });
    expect(condition(failed, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'TenantClusterUnreachable',
    });
    const flipped = Date.parse(condition(failed, 'Ready')?.lastTransitionTime ?? '');
    expect(flipped).toBeGreaterThanOrEqual(Date.parse(ready?.lastTransitionTime ?? ''));
    await kubectl([
      'wait',
      '--for=condition=Ready=false',
      `tenantcluster/${t.name}`,
      '--timeout=10s',
    ]);
    // The same failure again writes nothing.
    expect(await reportPassFailure(t.hostApi, t.name, failure)).toBe(false);

    const { result } = await pass(t);
    expect(result.statusWritten).toBe(true);
    const recovered = await statusOf(t);
    expect(condition(recovered, 'Ready')).toMatchObject({ status: 'True', reason: 'Converged' });
    await kubectl(['wait', '--for=condition=Ready', `tenantcluster/${t.name}`, '--timeout=10s']);
  });

  it('kubectl get shows Host-Namespace, Ready, Last-Pass, Age; -o wide adds the rest', async () => {
    const t = await createTenant(apis(), 'cond-cols');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    await pass(t);
    const table = async (...extra: string[]) => {
      const out = await kubectl(['get', 'tenantclusters', t.name, ...extra]);
      const [header, row, ...rest] = out.trim().split('\n');
      expect(rest).toEqual([]);
      return { columns: header?.split(/\s{2,}/), cells: row?.split(/\s{2,}/) };
    };

    const narrow = await table();
    expect(narrow.columns).toEqual(['NAME', 'HOST-NAMESPACE', 'READY', 'LAST-PASS', 'AGE']);
    expect(narrow.cells?.slice(0, 3)).toEqual([t.name, t.hostNamespace, 'True']);
    const header = (await kubectl(['get', 'tenantclusters', t.name])).split('\n')[0] ?? '';
    expect(header.length).toBeLessThanOrEqual(80);

    const wide = await table('-o', 'wide');
    expect(wide.columns).toEqual([
      'NAME',
      'HOST-NAMESPACE',
      'READY',
      'LAST-PASS',
      'AGE',
      'REASON',
      'PAUSED',
      'COMPLETE',
      'FOLLOWED',
      'CREATED',
      'UPDATED',
      'DELETED',
      'SKIPPED',
      'FAILED',
      'ERRORS',
    ]);
    expect(wide.cells?.slice(5)).toEqual([
      'Converged',
      'false',
      'true',
      '1',
      '0',
      '0',
      '0',
      '0',
      '0',
    ]);
  });
});
