/**
 * `tenantplane sync` against a tenant cluster that does not answer (a kubeconfig pointing at a
 * closed port): exit 1 with the error, and the TenantCluster's Ready condition False with a
 * reason; `tenantplane plan` (a dry run) writes nothing even then; `tenantplane status` shows the
 * conditions; the next good sync makes Ready True again.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import type { Condition } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';
import { seedTenant } from '../support/seed.js';
import { expectExit, tenantplane } from './support.js';

const TENANT = 'cli-cond';
const HOST_NS = 'cli-cond-host';
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

let hostApi: KubeClusterApi;
let tmp: string;
let good: string[];
let down: string[];

async function tenantCluster(): Promise<KubeObject> {
  const tc = await hostApi.get(TENANT_CLUSTER, undefined, TENANT);
  if (!tc) throw new Error(`TenantCluster ${TENANT} is gone`);
  return tc;
}

async function ready(): Promise<Condition | undefined> {
  const status = (await tenantCluster()).status as { conditions?: Condition[] } | undefined;
  return status?.conditions?.find((c) => c.type === 'Ready');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  const clusters = integrationClusters();
  hostApi = createClusterApi(clusters.host);
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-cli-cond-'));
  const doc = parse(await readFile(clusters.tenantKubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: { server: string } }>;
  };
  const port = await closedPort();
  for (const c of doc.clusters) c.cluster.server = `https://127.0.0.1:${port}`;
  const unreachable = join(tmp, 'tenant-down.kubeconfig');
  await writeFile(unreachable, stringify(doc));
  const host = ['--host-kubeconfig', clusters.hostKubeconfigPath];
  good = ['--tenant-kubeconfig', clusters.tenantKubeconfigPath, ...host];
  down = ['--tenant-kubeconfig', unreachable, ...host];

  await seedTenant({ hostApi, tenant: TENANT, hostNamespace: HOST_NS, kinds: [CONFIGMAP] });
});

afterAll(async () => {
  await hostApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('conditions through the tenantplane command', () => {
  it('a good sync makes Ready True and status shows it', async () => {
    expectExit(await tenantplane(['sync', TENANT, ...good]), 0);
    expect(await ready()).toMatchObject({ status: 'True', reason: 'Converged' });
    const status = await tenantplane(['status', TENANT, ...good]);
    expectExit(status, 0);
    expect(status.stdout).toMatch(/^Ready:\s+True \(Converged\) since \S+Z$/m);
    expect(status.stdout).toMatch(/^Degraded:\s+False \(Converged\) since \S+Z$/m);
  });

  it('plan with an unreachable tenant cluster fails and writes nothing', async () => {
    const before = await tenantCluster();
    const run = await tenantplane(['plan', TENANT, ...down]);
    expectExit(run, 1);
    expect(run.stderr).toMatch(/^error: the tenant cluster is unreachable\b.*\n$/);
    expect((await tenantCluster()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('sync with an unreachable tenant cluster exits 1 and makes Ready False with a reason', async () => {
    const run = await tenantplane(['sync', TENANT, ...down]);
    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: the tenant cluster is unreachable\b.*\n$/);
    expect(await ready()).toMatchObject({
      status: 'False',
      reason: 'TenantClusterUnreachable',
      message: expect.stringContaining('the tenant cluster is unreachable'),
    });
    const status = await tenantplane(['status', TENANT, ...good]);
    expect(status.stdout).toMatch(/^Ready:\s+False \(TenantClusterUnreachable\) since /m);
    expect(status.stdout).toMatch(/^\s+the pass failed: the tenant cluster is unreachable/m);

    // The same failure again: no status write.
    const before = (await tenantCluster()).metadata.resourceVersion;
    expectExit(await tenantplane(['sync', TENANT, ...down]), 1);
    expect((await tenantCluster()).metadata.resourceVersion).toBe(before);
  });

  it('the next good sync makes Ready True again', async () => {
    expectExit(await tenantplane(['sync', TENANT, ...good]), 0);
    expect(await ready()).toMatchObject({ status: 'True', reason: 'Converged' });
  });
});
