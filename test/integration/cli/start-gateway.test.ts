/**
 * The kubelet gateway `npm start` runs (lib/cli/start-gateway.ts) is the tenant's
 * `metrics.k8s.io` while it runs: on the real clusters, `kubectl top pod` in the tenant shows the
 * simulated usage of a synced Pod through it, as a new user of `npm start -- --follow` would try
 * (README); once it stops, the registration is gone, so no discovery in the tenant fails on it.
 */
import { mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { type LocalGateway, startLocalGateway } from '../../../lib/cli/start-gateway.js';
import { hostName } from '../../../lib/engine/index.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import type { KindRef } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  pass,
  RUN,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import { kubectl } from '../gateway/support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';
const inTenant = (...args: string[]) => kubectl(clusters.tenantKubeconfigPath, args);

describe('the local gateway of npm start', () => {
  it('registers the tenant’s metrics.k8s.io while it runs: kubectl top pod shows a synced Pod’s usage; stopped, the registration is gone', async () => {
    const state = await readRunningControlPlane(stateDir);
    if (!state) throw new Error('the integration control plane state is missing');
    // A state directory of its own for the gateway's files, with the plane's certificates.
    const dir = await mkdtemp(join(tmpdir(), 'tenantplane-start-gateway-'));
    await symlink(join(stateDir, 'pki'), join(dir, 'pki'));
    const said: string[] = [];
    const name = `sg-${RUN}`;
    let local: LocalGateway | undefined;
    try {
      local = await startLocalGateway(
        dir,
        clusters.hostKubeconfigPath,
        state.clusters.tenant.server,
        (line) => said.push(line),
        { name, hostNamespace: `h-${name}` },
      );
      expect(said).toEqual([]);
      expect(local?.metrics).toBe(true);
      const port = local?.port ?? 0;
      const t = await createTenant(apis(), 'sg', {
        toHost: [POD],
        workloads: { kubeletGateway: { address: '127.0.0.1', port } },
      });
      expect(t.name).toBe(name);
      const ns = t.vns.a;
      const pod = tenantObject(t, POD, ns, 'web', {
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'app', image: 'nginx:1' }],
        },
      });
      pod.metadata.annotations = {
        'kwok.x-k8s.io/usage-cpu': '150m',
        'kwok.x-k8s.io/usage-memory': '48Mi',
      };
      await t.tenantApi.create(pod);
      expect((await pass(t)).result.errors).toEqual([]);
      await waitFor(
        'the host Pod Running',
        async () => {
          const host = await t.hostApi.get(POD, t.hostNamespace, hostName('web', ns, t.name));
          return (host?.status as { phase?: string } | undefined)?.phase === 'Running'
            ? host
            : undefined;
        },
        60_000,
      );
      expect((await pass(t, { full: true })).result.errors).toEqual([]);
      // metrics-server needs two scrapes of a Pod for its CPU rate.
      const row = await waitFor(
        'kubectl top pod showing the Pod',
        async () => {
          const out = await inTenant('top', 'pod', '-n', ns, '--no-headers').catch(() => '');
          return out.split('\n').find((line) => line.startsWith('web '));
        },
        120_000,
      );
      const [, cpu, memory] = row.trim().split(/\s+/);
      expect(Number.parseInt(cpu ?? '', 10)).toBeGreaterThanOrEqual(140);
      expect(Number.parseInt(cpu ?? '', 10)).toBeLessThanOrEqual(160);
      expect(memory).toBe('48Mi');
    } finally {
      await local?.close();
    }
    // Stopped: both APIServices are gone, and the tenant's discovery lists no metrics group.
    const services = await inTenant('get', 'apiservices', '-o', 'name');
    expect(services).not.toContain('metrics.k8s.io');
  });
});
