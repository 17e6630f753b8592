/**
 * The fault matrix, restarts, on a small control plane of this file's own (never the run's
 * shared one): the host kube-apiserver SIGKILLed in the middle of a pass's applies and started
 * again; etcd SIGKILLed in the middle of a pass and started again while the pass waits. The
 * fault proxy's hook kills the daemon exactly between two writes of the pass.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { type Apis, closeApis } from '../engine/support.js';
import {
  type DedicatedPlane,
  killDaemon,
  restartDaemon,
  startDedicatedPlane,
} from '../support/daemons.js';
import { FaultProxy } from '../support/fault-proxy.js';
import {
  expectConverges,
  expectNoWrongfulChange,
  faultedPass,
  recordRow,
  type Scenario,
  scenario,
} from './support.js';

let plane: DedicatedPlane;
let apis: Apis;
let hostProxy: FaultProxy;

beforeAll(async () => {
  plane = await startDedicatedPlane();
  const kubeconfig = async (path: string) => ({ text: await readFile(path, 'utf8'), origin: path });
  const tenant = await kubeconfig(plane.state.clusters.tenant.kubeconfig);
  const host = await kubeconfig(plane.state.clusters.host.kubeconfig);
  apis = { tenantApi: createClusterApi(tenant), hostApi: createClusterApi(host) };
  hostProxy = await FaultProxy.start(host, plane.state.stateDir);
}, 180_000);

afterAll(async () => {
  await hostProxy?.close();
  await closeApis(apis);
  await plane?.stop();
});

function proxiedHost(s: Scenario) {
  return { tenantApi: s.t.tenantApi, hostApi: createClusterApi(hostProxy.kubeconfig()) };
}

const secondCreate = (s: Scenario) => ({
  method: 'POST',
  path: new RegExp(`^/api/v1/namespaces/${s.t.hostNamespace}/configmaps$`),
});

describe('fault matrix: restarts', () => {
  it('the host apiserver SIGKILLed mid-pass and restarted: errors, no wrongful write, then converges', async () => {
    const s = await scenario(apis, 'kill-api', {
      hostKubeconfig: plane.state.clusters.host.kubeconfig,
    });
    hostProxy.setRules({
      match: secondCreate(s),
      skip: 1,
      times: 1,
      action: { kind: 'hook', run: () => killDaemon(plane.state, 'host') },
    });
    const proxied = proxiedHost(s);
    let run: Awaited<ReturnType<typeof faultedPass>>;
    try {
      run = await faultedPass(s, proxied, { deadline: Date.now() + 20_000 });
    } finally {
      hostProxy.clear();
      await proxied.hostApi.close();
      await restartDaemon(plane.state, 'host');
    }
    // The pass either ends with errors or fails as a whole (its bookkeeping write could not reach
    // the host): either way what it could not do is reported, and it wrote nothing else.
    const reported = run.result
      ? run.result.errors.map((e) => e.message)
      : [(run.failure as Error).message];
    expect(reported.length).toBeGreaterThan(0);
    // The proxy sees its upstream refuse and drops the pass's connection: "other side closed".
    expect(reported.every((m) => m.startsWith(`cannot reach ${hostProxy.url}: `))).toBe(true);
    expect(run.result?.complete ?? false).toBe(false);
    const changes = await expectNoWrongfulChange(s);
    recordRow('host apiserver SIGKILLed mid-pass, restarted', run, changes);
    await expectConverges(s);
  });

  it('etcd SIGKILLed mid-pass and restarted: the pass waits it out, nothing is lost', async () => {
    const s = await scenario(apis, 'kill-etcd', {
      hostKubeconfig: plane.state.clusters.host.kubeconfig,
    });
    let restarted: Promise<void> | undefined;
    hostProxy.setRules({
      match: secondCreate(s),
      skip: 1,
      times: 1,
      action: {
        kind: 'hook',
        run: async () => {
          await killDaemon(plane.state, 'etcd');
          // etcd comes back while the create waits in the apiserver.
          restarted = new Promise((r) => setTimeout(r, 500)).then(() =>
            restartDaemon(plane.state, 'etcd'),
          );
        },
      },
    });
    const proxied = proxiedHost(s);
    const run = await faultedPass(s, proxied, { deadline: Date.now() + 30_000 });
    hostProxy.clear();
    await proxied.hostApi.close();
    await restarted;
    expect(run.failure).toBeUndefined();
    const changes = await expectNoWrongfulChange(s);
    recordRow('etcd SIGKILLed mid-pass, restarted', run, changes);
    await expectConverges(s);
  });
});
