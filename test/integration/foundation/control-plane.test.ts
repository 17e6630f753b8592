import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type V1ConfigMap,
  VersionApi,
} from '@kubernetes/client-node';
import { KUBERNETES_VERSION } from '../../../lib/localcluster/versions.js';
import { integrationClusters } from '../support/clusters.js';

const run = promisify(execFile);
const clusters = integrationClusters();

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

describe.each([
  ['tenant', clusters.tenant.text],
  ['host', clusters.host.text],
] as const)('the %s kube-apiserver', (name, text) => {
  const kc = kubeConfig(text);
  const core = kc.makeApiClient(CoreV1Api);
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const ns = `smoke-${name}`;

  it('reports its release on /version: the pinned one, or for the host the one picked', async () => {
    const version = await kc.makeApiClient(VersionApi).getCode();
    // TENANTPLANE_KUBERNETES_VERSION picks the host's release (docs/versions.md); the tenant's is pinned.
    const expected = name === 'host' ? clusters.version || KUBERNETES_VERSION : KUBERNETES_VERSION;
    expect(version.gitVersion).toBe(`v${expected}`);
  });

  it('creates, lists with limit/continue, updates and deletes ConfigMaps', async () => {
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (let i = 0; i < 7; i++) {
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
      });
    }

    const names: string[] = [];
    let pages = 0;
    let token: string | undefined;
    do {
      const page = await objects.list<V1ConfigMap>(
        'v1',
        'ConfigMap',
        ns,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        3,
        token,
      );
      pages++;
      names.push(...page.items.map((i) => i.metadata?.name ?? ''));
      token = page.metadata?._continue || undefined;
    } while (token);
    expect(pages).toBe(3);
    expect(names.filter((n) => n.startsWith('cm-')).sort()).toEqual(
      Array.from({ length: 7 }, (_, i) => `cm-${i}`),
    );

    const cm = await core.readNamespacedConfigMap({ name: 'cm-3', namespace: ns });
    cm.data = { i: 'three' };
    const updated = await core.replaceNamespacedConfigMap({
      name: 'cm-3',
      namespace: ns,
      body: cm,
    });
    expect(updated.data).toEqual({ i: 'three' });
    expect(updated.metadata?.resourceVersion).not.toBe(cm.metadata?.resourceVersion);

    await core.deleteNamespacedConfigMap({ name: 'cm-3', namespace: ns });
    await expect(
      core.readNamespacedConfigMap({ name: 'cm-3', namespace: ns }),
    ).rejects.toMatchObject({
      code: 404,
    });
  });
});

describe('the TenantCluster CRD on the host', () => {
  const kc = kubeConfig(clusters.host.text);
  const objects = KubernetesObjectApi.makeApiClient(kc);

  it('accepts a TenantCluster and kubectl describes it', async () => {
    await objects.create({
      apiVersion: 'tenantplane.io/v1alpha1',
      kind: 'TenantCluster',
      metadata: { name: 'smoke-dev' },
      spec: { hostNamespace: 'tenant-smoke-dev' },
    });
    const { stdout } = await run(clusters.kubectl, [
      '--kubeconfig',
      clusters.hostKubeconfigPath,
      'describe',
      'tenantcluster',
      'smoke-dev',
    ]);
    expect(stdout).toMatch(/^Name:\s+smoke-dev$/m);
    expect(stdout).toMatch(/Kind:\s+TenantCluster/);
    expect(stdout).toMatch(/Host Namespace:\s+tenant-smoke-dev/);
  });

  it('rejects a TenantCluster that breaks the schema', async () => {
    await expect(
      objects.create({
        apiVersion: 'tenantplane.io/v1alpha1',
        kind: 'TenantCluster',
        metadata: { name: 'smoke-bad' },
        spec: { hostNamespace: 'Not A DNS Label' },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('is not present on the tenant cluster', async () => {
    const tenantObjects = KubernetesObjectApi.makeApiClient(kubeConfig(clusters.tenant.text));
    await expect(
      tenantObjects.list('tenantplane.io/v1alpha1', 'TenantCluster'),
    ).rejects.toBeDefined();
  });
});

describe('service-account tokens', () => {
  it('each apiserver signs with its own key: a token of one is refused by the other', async () => {
    const mint = async (text: string) => {
      const core = kubeConfig(text).makeApiClient(CoreV1Api);
      const minted = await core.createNamespacedServiceAccountToken({
        name: 'default',
        namespace: 'default',
        body: { spec: { audiences: [], expirationSeconds: 600 } },
      });
      return minted.status?.token ?? '';
    };
    const asToken = (text: string, token: string) => {
      const kc = kubeConfig(text);
      const cluster = kc.getCurrentCluster();
      const user = { name: 'probe', token };
      const probe = new KubeConfig();
      probe.loadFromOptions({
        clusters: [cluster],
        users: [user],
        contexts: [{ name: 'probe', cluster: cluster?.name ?? '', user: 'probe' }],
        currentContext: 'probe',
      });
      return probe.makeApiClient(VersionApi);
    };
    const tenantToken = await mint(clusters.tenant.text);
    const hostToken = await mint(clusters.host.text);
    expect(tenantToken).not.toBe('');
    // Each token works where it was issued (/version is open to every authenticated user).
    await expect(asToken(clusters.tenant.text, tenantToken).getCode()).resolves.toBeDefined();
    await expect(asToken(clusters.host.text, hostToken).getCode()).resolves.toBeDefined();
    // And never on the other side: 401, not a forbidden authenticated user.
    await expect(asToken(clusters.host.text, tenantToken).getCode()).rejects.toMatchObject({
      code: 401,
    });
    await expect(asToken(clusters.tenant.text, hostToken).getCode()).rejects.toMatchObject({
      code: 401,
    });
  });
});
