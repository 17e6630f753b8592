/**
 * The smoke of an older host (`npm run test:versions`, docs/versions.md): the host runs the
 * release `TENANTPLANE_KUBERNETES_VERSION` picks (1.33 by default there), the tenant the pinned
 * one. One tenant syncs an object of every kind; its workloads run on kwok nodes and their status
 * comes back; a second pass writes nothing; and the TenantCluster says, once, in its
 * `HostFeatures` condition, which of the APIs an older release may lack this host serves. The
 * gateway (logs, exec), DNS, Services and Pods in depth are the integration files this project
 * runs beside it (jest.versions.config.js).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../lib/engine/index.js';
import { KUBERNETES_VERSION } from '../../lib/localcluster/versions.js';
import type { KindRef, KubeObject } from '../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  pass,
  SECRET,
  SERVICE,
  tenantClusterObject,
  tenantConfigMap,
  tenantObject,
  useApis,
  waitFor,
} from '../integration/engine/support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const CONFIGMAP: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };
const PVC: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
const INGRESS: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const NETWORK_POLICY: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };
const PDB: KindRef = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
const EVERY_KIND = [
  CONFIGMAP,
  SECRET,
  SERVICE_ACCOUNT,
  PVC,
  SERVICE,
  POD,
  INGRESS,
  NETWORK_POLICY,
  PDB,
];
const SUFFIX = '.versions.example.com';

/** The server's `gitVersion` of the host or the tenant, as kubectl reads `/version`. */
async function gitVersion(kubeconfig: string): Promise<string> {
  const run = promisify(execFile);
  const { stdout } = await run(clusters.kubectl, [
    '--kubeconfig',
    kubeconfig,
    'version',
    '-o',
    'json',
  ]);
  return (
    (JSON.parse(stdout) as { serverVersion?: { gitVersion?: string } }).serverVersion?.gitVersion ??
    ''
  );
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe(`a host of Kubernetes v${clusters.version} under a tenant of v${KUBERNETES_VERSION}`, () => {
  it('the host runs the release asked for, the tenant the pinned one', async () => {
    expect(clusters.version).toMatch(/^1\.\d+\.\d+$/);
    expect(await gitVersion(clusters.hostKubeconfigPath)).toBe(`v${clusters.version}`);
    expect(await gitVersion(clusters.tenantKubeconfigPath)).toBe(`v${KUBERNETES_VERSION}`);
  });

  it('a pass of every kind: copies land, workloads run on kwok nodes, status comes back, then nothing is written; HostFeatures says what the host serves', async () => {
    const t = await createTenant(apis(), 'versions', {
      toHost: EVERY_KIND,
      workloads: { ingresses: { hostSuffixes: [SUFFIX], classes: ['public'] } },
    });
    const ns = t.vns.a;
    const labels = { app: 'web' };
    const objects: KubeObject[] = [
      tenantConfigMap(t, ns, 'settings', { color: 'blue' }),
      tenantObject(t, SECRET, ns, 'creds', { type: 'Opaque', data: { k: 'dg==' } }),
      tenantObject(t, SERVICE_ACCOUNT, ns, 'runner'),
      tenantObject(t, PVC, ns, 'data', {
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      }),
      tenantObject(t, SERVICE, ns, 'web', {
        spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      }),
      tenantObject(
        t,
        POD,
        ns,
        'web',
        {
          spec: {
            automountServiceAccountToken: false,
            containers: [
              {
                name: 'web',
                image: 'nginx:1',
                envFrom: [{ configMapRef: { name: 'settings' } }],
                resources: { requests: { cpu: '100m', memory: '64Mi' } },
              },
            ],
          },
        },
        { labels },
      ),
      tenantObject(t, INGRESS, ns, 'web', {
        spec: {
          ingressClassName: 'public',
          rules: [
            {
              host: `shop${SUFFIX}`,
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'web', port: { number: 80 } } },
                  },
                ],
              },
            },
          ],
        },
      }),
      tenantObject(t, NETWORK_POLICY, ns, 'web', {
        spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress'] },
      }),
      tenantObject(t, PDB, ns, 'web', {
        spec: { minAvailable: 1, selector: { matchLabels: labels } },
      }),
    ];
    for (const object of objects) await t.tenantApi.create(object);

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(first.result.decisions.filter((d) => d.action === 'Skip')).toEqual([]);
    for (const object of objects) {
      const copy = await t.hostApi.get(
        object,
        t.hostNamespace,
        hostName(object.metadata.name, ns, t.name),
      );
      expect({ kind: object.kind, copied: copy !== undefined }).toEqual({
        kind: object.kind,
        copied: true,
      });
    }

    // The host schedules the Pod onto a kwok node, which runs it; a pass brings its status back.
    const hostPod = hostName('web', ns, t.name);
    await waitFor(
      'the host Pod Running',
      async () => {
        const p = await t.hostApi.get(POD, t.hostNamespace, hostPod);
        return (p?.status as { phase?: string } | undefined)?.phase === 'Running' ? p : undefined;
      },
      180_000,
    );
    const back = await pass(t);
    expect(back.result.errors).toEqual([]);
    const shown = (await t.tenantApi.get(POD, ns, 'web'))?.status as {
      phase?: string;
      podIP?: string;
    };
    expect(shown.phase).toBe('Running');
    expect(shown.podIP).toMatch(/^10\.244\./);

    // Then steady: a full pass writes nothing on the host (the older host kept what was written).
    let steady = await pass(t, { full: true });
    if (steady.result.requests.tenant.writes > 0) steady = await pass(t, { full: true });
    expect(steady.result.errors).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
    expect(steady.result.decisions.filter((d) => d.kind !== 'Node')).toEqual([]);

    // Said once: the condition a full pass read from the host's discovery.
    const status = (await tenantClusterObject(t)).status as { conditions?: Condition[] };
    const features = status.conditions?.find((c) => c.type === 'HostFeatures');
    const minor = Number(clusters.version.split('.')[1]);
    // ServiceCIDR v1 and pods/resize are both served from 1.33 on; the Pod fields of the
    // engine's tables (those of the pinned release) only by a host of that release
    // (docs/versions.md): a 1.33 host lacks spec.hostnameOverride, among others.
    expect(features).toMatchObject(
      minor >= 37
        ? { status: 'True', reason: 'AllServed' }
        : { status: 'False', reason: 'FeaturesMissing' },
    );
    // True names the APIs served; False what the host lacks (on 1.33: Pod fields only).
    expect(features?.message).toContain(minor >= 37 ? 'pods/resize' : 'the Pod fields');
    if (minor < 34) expect(features?.message).toContain('spec.hostnameOverride');
    if (minor < 37) {
      expect(features?.message).toContain(`the host (Kubernetes v${clusters.version})`);
    }
  }, 600_000);
});
