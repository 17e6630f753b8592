/**
 * The resume's fallback on a small control plane of this file's own: the tenant kube-apiserver
 * is SIGKILLed and started again between two passes, which empties its watch cache, so the
 * stored resourceVersion is too old to resume from (an ERROR event with code 410). The pass
 * falls back to the full path in the same pass, makes exactly the writes the tenant's changes
 * call for, and the next pass resumes again.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../../lib/engine/index.js';
import { type Apis, closeApis } from '../engine/support.js';
import {
  type DedicatedPlane,
  killDaemon,
  restartDaemon,
  startDedicatedPlane,
} from '../support/daemons.js';
import { expectConverges, expectNoWrongfulChange, faultedPass, scenario } from './support.js';

let plane: DedicatedPlane;
let apis: Apis;
const kubeconfig = async (path: string) => ({ text: await readFile(path, 'utf8'), origin: path });

beforeAll(async () => {
  plane = await startDedicatedPlane();
  apis = {
    tenantApi: createClusterApi(await kubeconfig(plane.state.clusters.tenant.kubeconfig)),
    hostApi: createClusterApi(await kubeconfig(plane.state.clusters.host.kubeconfig)),
  };
}, 180_000);

afterAll(async () => {
  await closeApis(apis);
  await plane?.stop();
});

describe('resume fallback: the tenant apiserver restarted', () => {
  it('a watch cache emptied by a restart answers 410; the pass lists in full, converges, then resumes', async () => {
    const s = await scenario(apis, 'resume-restart', {
      hostKubeconfig: plane.state.clusters.host.kubeconfig,
    });
    const tc = await apis.hostApi.get(
      { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' },
      undefined,
      s.t.name,
    );
    const stored = ((tc?.status ?? {}) as { resume?: Record<string, { resourceVersion: string }> })
      .resume?.['v1/ConfigMap'];
    expect(stored?.resourceVersion).toMatch(/^[0-9]+$/);

    await killDaemon(plane.state, 'tenant');
    await restartDaemon(plane.state, 'tenant');
    const tenantApi = createClusterApi(await kubeconfig(plane.state.clusters.tenant.kubeconfig));
    try {
      const run = await faultedPass(s, { tenantApi, hostApi: apis.hostApi }, {}, { full: false });
      expect(run.failure).toBeUndefined();
      const result = run.result!;
      expect(result.path).toBe('full');
      expect(result.pathReason).toMatch(
        /ConfigMap: the resume failed: .*(410|too old|[Ee]xpired|Gone)/,
      );
      expect(result.errors).toEqual([]);
      // Exactly the writes the tenant's changes call for: 2 updates, 2 creates, 2 deletes.
      expect(result.counts).toEqual({ Create: 2, Update: 2, Delete: 2, Skip: 0 });
      await expectNoWrongfulChange(s);
      console.log(`[faults] resume after a tenant apiserver restart: ${result.pathReason}`);
    } finally {
      await tenantApi.close();
    }
    await expectConverges(s);
    const again = await runPass({ tenant: s.t.name, ...apis });
    expect(again.path).toBe('resumed');
    expect(again.decisions).toEqual([]);
  }, 240_000);
});
