/**
 * The local clusters run workloads like real ones: on the host a scheduler places Pods on kwok's
 * simulated nodes, which take them to Running with an IP; Services get EndpointSlices; claims
 * bind. In the tenant a controller manager (and no scheduler) makes ReplicaSets and Pods that
 * stay Pending, publishes `kube-root-ca.crt`, and namespaces finish deleting.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
} from '@kubernetes/client-node';
import { type ControlPlaneState, kwokNodeNames } from '../../../lib/localcluster/index.js';
import { integrationClusters } from '../support/clusters.js';

const clusters = integrationClusters();
const RUN = Math.random().toString(36).slice(2, 7);

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

/** Polls `read` until `done` holds for what it returns; fails with the last value seen. */
async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${what} did not happen within ${timeoutMs / 1000} s; last seen: ${JSON.stringify(last ?? String(lastError))}`,
  );
}

const gone = async (read: () => Promise<unknown>): Promise<boolean> => {
  try {
    await read();
    return false;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return true;
    throw error;
  }
};

const container = {
  name: 'app',
  image: 'registry.invalid/app:1',
  resources: { requests: { cpu: '100m', memory: '64Mi' } },
};

describe('the host cluster', () => {
  const kc = kubeConfig(clusters.host.text);
  const core = kc.makeApiClient(CoreV1Api);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const namespace = `sched-host-${RUN}`;

  it('schedules a Pod to a kwok node, runs it with an IP, and serves it behind a Service', async () => {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'web-0', labels: { app: 'web' } },
        spec: { containers: [container] },
      },
    });
    const pod = await eventually(
      'the Pod running with an IP',
      () => core.readNamespacedPod({ name: 'web-0', namespace }),
      (p) => p.status?.phase === 'Running' && Boolean(p.status.podIP),
    );
    expect(kwokNodeNames()).toContain(pod.spec?.nodeName);
    expect(pod.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(pod.status?.containerStatuses?.[0]?.resources?.requests).toEqual({
      cpu: '100m',
      memory: '64Mi',
    });

    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const slices = await eventually(
      "the Service's EndpointSlice with the Pod's IP",
      () =>
        discovery.listNamespacedEndpointSlice({
          namespace,
          labelSelector: 'kubernetes.io/service-name=web',
        }),
      (list) =>
        list.items.some((s) =>
          s.endpoints?.some((e) => e.addresses.includes(pod.status?.podIP ?? '')),
        ),
    );
    const endpoint = slices.items.flatMap((s) => s.endpoints ?? [])[0];
    expect(endpoint?.conditions?.ready).toBe(true);
    expect(endpoint?.nodeName).toBe(pod.spec?.nodeName);
  });

  it('binds a claim without a class through the default StorageClass', async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const claim = await eventually(
      'the claim Bound',
      () => core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace }),
      (c) => c.status?.phase === 'Bound',
    );
    expect(claim.spec?.storageClassName).toBe('standard');
    const volume = await core.readPersistentVolume({ name: claim.spec?.volumeName ?? '' });
    expect(volume.spec?.claimRef?.name).toBe('data');
  });

  it('finishes deleting a namespace with a running Pod in it', async () => {
    await core.deleteNamespace({ name: namespace });
    await eventually(
      'the namespace gone',
      () => gone(() => core.readNamespace({ name: namespace })),
      Boolean,
    );
  });
});

describe('the tenant cluster', () => {
  const kc = kubeConfig(clusters.tenant.text);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const namespace = `sched-tenant-${RUN}`;

  it('publishes kube-root-ca.crt and a default service account that can get a token', async () => {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const ca = await eventually(
      'kube-root-ca.crt in the new namespace',
      () => core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace }),
      (cm) => Boolean(cm.data?.['ca.crt']),
    );
    expect(ca.data?.['ca.crt']).toContain('BEGIN CERTIFICATE');
    await eventually(
      'the default service account',
      () => core.readNamespacedServiceAccount({ name: 'default', namespace }),
      Boolean,
    );
    const token = await core.createNamespacedServiceAccountToken({
      name: 'default',
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const review = await kc.makeApiClient(AuthenticationV1Api).createTokenReview({
      body: { spec: { token: token.status?.token ?? '' } },
    });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${namespace}:default`);
  });

  it('makes a ReplicaSet and Pods of a Deployment, which stay Pending without a scheduler', async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'app' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'app' } },
          template: { metadata: { labels: { app: 'app' } }, spec: { containers: [container] } },
        },
      },
    });
    const sets = await eventually(
      'a ReplicaSet of the Deployment',
      () => apps.listNamespacedReplicaSet({ namespace }),
      (l) => l.items.length === 1,
    );
    expect(sets.items[0]?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'app',
    });
    const pods = await eventually(
      'two Pods of the ReplicaSet',
      () => core.listNamespacedPod({ namespace, labelSelector: 'app=app' }),
      (l) => l.items.length === 2,
    );
    await new Promise((r) => setTimeout(r, 2000));
    const later = await core.listNamespacedPod({ namespace, labelSelector: 'app=app' });
    expect(later.items.map((p) => p.metadata?.name).sort()).toEqual(
      pods.items.map((p) => p.metadata?.name).sort(),
    );
    for (const p of later.items) {
      expect(p.status?.phase).toBe('Pending');
      expect(p.spec?.nodeName).toBeUndefined();
    }
  });

  it('finishes deleting a namespace, Deployment and all', async () => {
    await core.deleteNamespace({ name: namespace });
    await eventually(
      'the namespace gone',
      () => gone(() => core.readNamespace({ name: namespace })),
      Boolean,
    );
  });
});

describe('the workload components', () => {
  it('are tied to the test run like the apiservers, so a killed run leaves none behind', () => {
    const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';
    const state = JSON.parse(
      readFileSync(join(stateDir, 'state.json'), 'utf8'),
    ) as ControlPlaneState;
    expect(state.components.map((c) => `${c.cluster}/${c.name}`).sort()).toEqual([
      'host/kube-controller-manager',
      'host/kube-scheduler',
      'host/kwok',
      'host/metrics-server',
      'tenant/coredns',
      'tenant/kube-controller-manager',
    ]);
    // The status JSON gives the tenant DNS's address: CoreDNS's own port, on loopback.
    const dns = state.components.find((c) => c.name === 'coredns');
    expect(state.clusters.tenant.dns).toBe(`127.0.0.1:${dns?.port}`);
    const reaperArgs = readFileSync(`/proc/${state.reaperPid}/cmdline`, 'utf8').split('\0');
    for (const c of state.components) expect(reaperArgs).toContain(String(c.pid));
  });
});
