/**
 * The fault-injection harness itself, on the real host apiserver: the proxy forwards faithfully
 * (as the admin, or impersonating a restricted client certificate), and each rule does what it
 * says: chosen statuses with a Status body and headers, stall, latency, a cut after N bytes, a
 * reset, a hook in the window, "after N requests"; TLS failures (expired client certificate,
 * unknown CA) fail like the real apiserver does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import { ClusterError, type KindRef } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy, Faults } from '../support/fault-proxy.js';
import { expiredClientKubeconfig, unknownCaKubeconfig } from '../support/test-pki.js';

const clusters = integrationClusters();
const NS: KindRef = { apiVersion: 'v1', kind: 'Namespace' };
const CM: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };

async function failure(promise: Promise<unknown>): Promise<ClusterError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ClusterError) return error;
    throw error;
  }
  throw new Error('expected a ClusterError');
}

let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await FaultProxy.start(clusters.host);
});

afterAll(async () => {
  await proxy.close();
});

describe('the fault proxy', () => {
  it('forwards faithfully and logs every request', async () => {
    proxy.clear();
    const api = createClusterApi(proxy.kubeconfig());
    try {
      expect(await api.get(NS, undefined, 'default')).toMatchObject({
        metadata: { name: 'default' },
      });
      expect(
        proxy.log.some((e) => e.path === '/api/v1/namespaces/default' && e.status === 200),
      ).toBe(true);
    } finally {
      await api.close();
    }
  });

  it('answers chosen requests with chosen statuses, after N requests, a given number of times', async () => {
    proxy.setRules(
      {
        match: { method: 'GET', path: /\/configmaps$/, query: { continue: true } },
        action: Faults.status(410, 'Expired', { message: 'continue token too old' }),
      },
      {
        match: { method: 'GET', path: /\/configmaps$/ },
        skip: 1,
        times: 1,
        action: Faults.status(429, 'TooManyRequests', { headers: { 'Retry-After': '7' } }),
      },
    );
    const api = createClusterApi(proxy.kubeconfig());
    try {
      await api.list(CM, { namespace: 'default' }); // skipped by the 429 rule
      const throttled = await failure(api.list(CM, { namespace: 'default' }));
      expect(throttled).toMatchObject({
        reason: 'TooManyRequests',
        status: 429,
        retryAfterSeconds: 7,
      });
      await api.list(CM, { namespace: 'default' }); // times: 1
      const gone = await failure(api.list(CM, { namespace: 'default', continueToken: 'x' }));
      expect(gone).toMatchObject({ status: 410, message: 'continue token too old' });
      expect(proxy.fired()).toEqual([1, 1]);
    } finally {
      await api.close();
    }
  });

  it('stalls, delays, cuts after N bytes and resets', async () => {
    const api = createClusterApi(proxy.kubeconfig(), { requestTimeoutMs: 500 });
    try {
      proxy.setRules({ match: { path: /\/namespaces\/default$/ }, action: Faults.stall() });
      const t0 = Date.now();
      const stalled = await failure(api.get(NS, undefined, 'default'));
      expect(stalled.reason).toBe('Transport');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(450);

      proxy.setRules({ action: { kind: 'delay', ms: 300 } });
      const t1 = Date.now();
      await api.get(NS, undefined, 'default');
      expect(Date.now() - t1).toBeGreaterThanOrEqual(290);

      proxy.setRules({ match: { path: /\/configmaps$/ }, action: { kind: 'cut', afterBytes: 20 } });
      expect((await failure(api.list(CM))).reason).toBe('Transport');

      proxy.setRules({ action: { kind: 'reset' } });
      expect((await failure(api.get(NS, undefined, 'default'))).reason).toBe('Transport');
    } finally {
      proxy.clear();
      await api.close();
    }
  });

  it('runs a hook in the window before forwarding', async () => {
    const seen: string[] = [];
    proxy.setRules({
      match: { method: 'GET', path: /\/namespaces\// },
      times: 1,
      action: { kind: 'hook', run: async (r) => void seen.push(`${r.method} ${r.path}`) },
    });
    const api = createClusterApi(proxy.kubeconfig());
    try {
      await api.get(NS, undefined, 'kube-system');
      expect(seen).toEqual(['GET /api/v1/namespaces/kube-system']);
    } finally {
      proxy.clear();
      await api.close();
    }
  });

  it('impersonates a restricted client certificate, so RBAC still applies', async () => {
    const state = await readRunningControlPlane(process.env.TENANTPLANE_TEST_STATE_DIR ?? '');
    if (!state) throw new Error('no control plane');
    const user = await issueUserKubeconfig(state, 'host', `proxy-user-${Date.now()}`);
    const api = createClusterApi(proxy.kubeconfig(user.text));
    try {
      expect((await failure(api.get(NS, undefined, 'default'))).reason).toBe('Forbidden');
    } finally {
      await api.close();
    }
  });

  it('fails TLS like the apiserver: an expired client certificate is 401, an unknown CA a Transport error', async () => {
    for (const kubeconfig of [await expiredClientKubeconfig(clusters.host)]) {
      for (const text of [kubeconfig.text, proxy.kubeconfig(kubeconfig.text).text]) {
        const api = createClusterApi({ text, origin: 'expired' });
        try {
          expect((await failure(api.get(NS, undefined, 'default'))).reason).toBe('Unauthorized');
        } finally {
          await api.close();
        }
      }
    }
    const unknown = createClusterApi(await unknownCaKubeconfig(clusters.host));
    try {
      const error = await failure(unknown.get(NS, undefined, 'default'));
      expect(error.reason).toBe('Transport');
      expect(error.message).toMatch(/certificate/i);
    } finally {
      await unknown.close();
    }
  });
});
