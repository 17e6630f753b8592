import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import {
  type Decision,
  DecisionAction,
  type KubeObject,
  type PassResult,
  TENANT_CLUSTER as TENANT_CLUSTER_KIND,
} from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';

const run = promisify(execFile);
const clusters = integrationClusters();
const RUN = Date.now().toString(36);
const TENANT = `adapters-events-${RUN}`;
const HOST_NS = `adapters-events-host-${RUN}`;
const EVENT = { apiVersion: 'v1', kind: 'Event' };

function decision(action: DecisionAction, name: string, passId: string, reason?: string): Decision {
  return {
    action,
    tenant: TENANT,
    kind: 'ConfigMap',
    apiVersion: 'v1',
    tenantRef: { namespace: 'default', name },
    hostRef: { namespace: HOST_NS, name: `${name}-x-default-x-${TENANT}` },
    reason: reason ?? `${action} ${name}`,
    passId,
    dryRun: false,
  };
}

function result(passId: string, decisions: Decision[], dryRun = false): PassResult {
  const counts = { Create: 0, Update: 0, Delete: 0, Skip: 0 };
  for (const d of decisions) counts[d.action] += 1;
  return {
    passId,
    tenant: TENANT,
    dryRun,
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: 5,
    complete: true,
    counts,
    objectsSeen: { ConfigMap: decisions.length },
    errors: [],
    requests: { tenant: { reads: 1, writes: 0 }, host: { reads: 1, writes: 0 } },
    decisions,
  };
}

describe('KubernetesEventsSink on the real host cluster', () => {
  let host: KubeClusterApi;
  let tenantCluster: KubeObject;

  async function tenantEvents(): Promise<KubeObject[]> {
    const page = await host.list(EVENT, {
      namespace: 'default',
      fieldSelector: `involvedObject.kind=TenantCluster,involvedObject.name=${TENANT}`,
    });
    return page.items;
  }

  beforeAll(async () => {
    host = createClusterApi(clusters.host);
    tenantCluster = await host.create({
      ...TENANT_CLUSTER_KIND,
      metadata: { name: TENANT },
      spec: { hostNamespace: HOST_NS },
    });
  });

  afterAll(async () => {
    await host.close();
  });

  it('writes Events the API server accepts, and kubectl describe shows them', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: TENANT });
    const ds = [
      decision(DecisionAction.Create, 'app', 'p1'),
      decision(DecisionAction.Delete, 'old', 'p1', 'tenant source is gone'),
      decision(
        DecisionAction.Skip,
        'taken',
        'p1',
        'host name is occupied by an object tenantplane does not manage',
      ),
    ];
    await sink.passFinished(result('p1', ds));
    expect(sink.lastReport).toMatchObject({
      created: 3,
      bumped: 0,
      summary: 'created',
      failures: [],
    });

    const events = await tenantEvents();
    expect(events.map((e) => e.reason).sort()).toEqual(['Create', 'Delete', 'PassSummary', 'Skip']);
    for (const e of events) {
      expect(e.involvedObject).toMatchObject({ uid: tenantCluster.metadata.uid, name: TENANT });
    }
    expect(events.find((e) => e.reason === 'Delete')?.type).toBe('Warning');

    const { stdout } = await run(clusters.kubectl, [
      '--kubeconfig',
      clusters.hostKubeconfigPath,
      'describe',
      'tenantcluster',
      TENANT,
    ]);
    expect(stdout).toMatch(/Events:/);
    expect(stdout).toMatch(
      /Warning\s+Delete\s+.*tenantplane-sync\s+ConfigMap default\/old -> host/,
    );
    expect(stdout).toContain(`host ${HOST_NS}/old-x-default-x-${TENANT}: tenant source is gone`);
    expect(stdout).toMatch(/Normal\s+Skip\s+/);
    expect(stdout).toMatch(/Normal\s+PassSummary\s+/);
  });

  it('a decision repeated every pass bumps count of its Event instead of adding one', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: TENANT });
    const skip = (passId: string) =>
      decision(DecisionAction.Skip, 'persistent', passId, 'owned by another tenant source');
    await sink.passFinished(result('r1', [skip('r1')]));
    const before = await tenantEvents();
    await sink.passFinished(result('r2', [skip('r2')]));
    await sink.passFinished(result('r3', [skip('r3')]));
    expect(sink.lastReport).toMatchObject({ created: 0, bumped: 1, summary: 'bumped' });
    const after = await tenantEvents();
    expect(after).toHaveLength(before.length);
    const persistent = after.filter((e) => String(e.message).includes('default/persistent'));
    expect(persistent).toHaveLength(1);
    expect(persistent[0]!.count).toBe(3);

    const { stdout } = await run(clusters.kubectl, [
      '--kubeconfig',
      clusters.hostKubeconfigPath,
      'describe',
      'tenantcluster',
      TENANT,
    ]);
    expect(stdout).toMatch(/\(x3 over .*\).*default\/persistent/);
  });

  it('caps decision Events per pass and writes nothing for a dry run or an empty pass', async () => {
    const before = (await tenantEvents()).length;
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: TENANT, maxEventsPerPass: 5 });
    const many = Array.from({ length: 12 }, (_, i) =>
      decision(DecisionAction.Create, `many-${i}`, 'm1'),
    );
    await sink.passFinished(result('m1', many));
    expect(sink.lastReport).toMatchObject({ created: 5, notEmitted: 7, summary: 'created' });
    const afterCap = await tenantEvents();
    expect(afterCap.length).toBe(before + 6);
    const summary = afterCap.find(
      (e) => e.reason === 'PassSummary' && String(e.message).startsWith('Pass m1:'),
    );
    expect(summary?.message).toContain('7 of 12 decisions are not shown as Events');

    const requests = host.requestCount();
    await sink.passFinished(result('m2', []));
    await sink.passFinished(result('m3', [decision(DecisionAction.Create, 'dry', 'm3')], true));
    expect(host.requestCount()).toEqual(requests);
    expect((await tenantEvents()).length).toBe(before + 6);
  });
});
