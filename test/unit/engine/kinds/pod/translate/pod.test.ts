/** The Pod translator: references renamed, host access refused, no host credentials, tenant identity. */
import { describe, expect, it } from '@jest/globals';
import { scopeSelectorMap } from '../../../../../../lib/engine/kinds/frame/selectors.js';
import { referencesOf, translate } from '../../../../../../lib/engine/kinds/registry.js';
import { Annotations } from '../../../../../../lib/engine/names/metadata.js';
import { hostName, tokenSecretName } from '../../../../../../lib/engine/names/naming.js';
import { reverseMappingLabels } from '../../../../../../lib/engine/names/reverse-mapping.js';
import { compileKeyExclusions } from '../../../../../../lib/engine/policy/key-exclusions.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { selects } from '../../../../../fixtures/label-selectors.js';
import { HOST_NAMESPACE, hostOf, TENANT, tenantObject, translated } from '../../support.js';
import { CSI_ALLOWED, EVERY_REFERENCE } from './fixtures.js';

const h = (name: string) => hostName(name, 'shop', TENANT);
// Opted out of the token unless a case says otherwise: the volume a Pod that does not opt out
// gets is the subject of pod-token.test.ts, not of these tables.
const pod = (spec: Record<string, unknown>, metadata: Partial<KubeObject['metadata']> = {}) =>
  tenantObject('v1', 'Pod', { spec: { automountServiceAccountToken: false, ...spec } }, metadata);
const web = { name: 'web', image: 'nginx:1' };
const HARDENED = {
  automountServiceAccountToken: false,
  enableServiceLinks: false,
  hostname: 'web',
};

describe('Pod translator: toHost', () => {
  const cases = [
    {
      name: 'every reference names the host copy of what it refers to',
      tenantState: pod(EVERY_REFERENCE),
      expectedHostState: {
        ...HARDENED,
        volumes: [
          { name: 'config', configMap: { name: h('storefront') } },
          { name: 'creds', secret: { secretName: h('db'), optional: true } },
          { name: 'data', persistentVolumeClaim: { claimName: h('data') } },
          {
            name: 'bundle',
            projected: {
              sources: [{ configMap: { name: h('extra') } }, { secret: { name: h('tls') } }],
            },
          },
          { name: 'csi', csi: { driver: 'x', nodePublishSecretRef: { name: h('csi-creds') } } },
        ],
        initContainers: [
          { name: 'init', image: 'busybox', envFrom: [{ secretRef: { name: h('init-env') } }] },
        ],
        containers: [
          {
            name: 'web',
            image: 'nginx:1',
            env: [
              { name: 'A', valueFrom: { configMapKeyRef: { name: h('storefront'), key: 'a' } } },
              {
                name: 'B',
                valueFrom: { secretKeyRef: { name: h('db'), key: 'b', optional: true } },
              },
            ],
            envFrom: [{ configMapRef: { name: h('storefront') } }],
          },
        ],
        imagePullSecrets: [{ name: h('registry') }],
      },
    },
    {
      name: 'no host credentials: the token and CA sources come from the Pod’s tenant-token Secret',
      tenantState: pod({
        serviceAccountName: 'shop-sa',
        containers: [web],
        volumes: [
          {
            name: 'kube-api-access-x',
            projected: {
              sources: [
                { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
                {
                  configMap: {
                    name: 'kube-root-ca.crt',
                    items: [{ key: 'ca.crt', path: 'ca.crt' }],
                  },
                },
                {
                  downwardAPI: {
                    items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }],
                  },
                },
              ],
            },
          },
        ],
      }),
      expectedHostState: {
        ...HARDENED,
        containers: [web],
        volumes: [
          {
            name: 'kube-api-access-x',
            projected: {
              sources: [
                {
                  downwardAPI: {
                    items: [
                      {
                        path: 'namespace',
                        fieldRef: {
                          fieldPath: `metadata.annotations['${Annotations.VirtualNamespace}']`,
                        },
                      },
                    ],
                  },
                },
                {
                  secret: {
                    name: tokenSecretName(h('web')),
                    items: [
                      { key: 'token', path: 'token' },
                      { key: 'ca.crt', path: 'ca.crt' },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
    {
      name: 'downward API env reads the tenant name, namespace, uid and service account',
      tenantState: pod({
        containers: [
          {
            ...web,
            env: [
              'metadata.name',
              'metadata.namespace',
              'metadata.uid',
              'spec.serviceAccountName',
              'status.podIP',
            ].map((fieldPath, i) => ({ name: `F${i}`, valueFrom: { fieldRef: { fieldPath } } })),
          },
        ],
      }),
      expectedHostState: {
        ...HARDENED,
        containers: [
          {
            ...web,
            env: [
              `metadata.annotations['${Annotations.VirtualName}']`,
              `metadata.annotations['${Annotations.VirtualNamespace}']`,
              `metadata.annotations['${Annotations.VirtualUid}']`,
              `metadata.annotations['${Annotations.ServiceAccountName}']`,
              'status.podIP',
            ].map((fieldPath, i) => ({ name: `F${i}`, valueFrom: { fieldRef: { fieldPath } } })),
          },
        ],
      },
    },
    {
      name: 'host scheduling is the host’s: node, priority and overhead cleared; runtime class, node selector, tolerations kept',
      tenantState: pod({
        containers: [web],
        nodeName: 'tenant-node',
        priorityClassName: 'high',
        priority: 1000,
        preemptionPolicy: 'Never',
        overhead: { cpu: '10m' },
        runtimeClassName: 'gvisor',
        nodeSelector: { 'kubernetes.io/arch': 'arm64' },
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        ],
        subdomain: 'db',
        hostname: 'db-0',
      }),
      expectedHostState: {
        ...HARDENED,
        hostname: 'db-0',
        subdomain: h('db'),
        containers: [web],
        runtimeClassName: 'gvisor',
        nodeSelector: { 'kubernetes.io/arch': 'arm64' },
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        ],
      },
    },
    {
      name: 'ephemeral containers never reach a create',
      tenantState: pod({
        containers: [web],
        ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
      }),
      expectedHostState: { ...HARDENED, containers: [web] },
    },
  ];
  it.each(cases)('$name', ({ tenantState, expectedHostState }) => {
    const host = hostOf(tenantState, CSI_ALLOWED);
    expect(host.metadata.name).toBe(h('web'));
    expect(host.metadata.namespace).toBe(HOST_NAMESPACE);
    expect(host.spec).toEqual(expectedHostState);
  });

  it('records the tenant Pod’s containers (init, regular, ephemeral) for the kubelet gateway', () => {
    const spec = {
      initContainers: [{ name: 'migrate', image: 'm:1' }],
      containers: [web],
      ephemeralContainers: [{ name: 'debugger', image: 'd:1' }],
    };
    const host = hostOf(pod(spec));
    expect(host.metadata.annotations?.[Annotations.TenantContainers]).toBe(
      JSON.stringify(['migrate', web.name, 'debugger']),
    );
  });

  it('records the tenant service account for the downward API; the host Pod runs as the host’s', () => {
    const host = hostOf(pod({ serviceAccountName: 'shop-sa', containers: [web] }));
    expect(host.metadata.annotations?.[Annotations.ServiceAccountName]).toBe('shop-sa');
    expect(
      hostOf(pod({ containers: [web] })).metadata.annotations?.[Annotations.ServiceAccountName],
    ).toBe('default');
    const configured = translate(pod({ serviceAccountName: 'shop-sa', containers: [web] }), {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: { hostServiceAccountName: 'tenant-pods' },
    });
    expect('host' in configured && configured.host.spec).toMatchObject({
      serviceAccountName: 'tenant-pods',
    });
  });

  it('a long Pod name gives a hostname that is a DNS label', () => {
    const host = hostOf(pod({ containers: [web] }, { name: `${'a'.repeat(62)}-b.c` }));
    expect((host.spec as { hostname: string }).hostname).toBe(`${'a'.repeat(62)}`);
  });

  it('never mutates the tenant object', () => {
    const source = pod(EVERY_REFERENCE);
    const before = structuredClone(source);
    hostOf(source, CSI_ALLOWED);
    expect(source).toEqual(before);
  });

  it('lists the references of a Pod with a token volume without touching the tenant object', () => {
    const tokenVolume = {
      name: 'kube-api-access',
      projected: {
        sources: [
          { serviceAccountToken: { path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt' } },
          { configMap: { name: 'settings' } },
        ],
      },
    };
    const source = pod({ containers: [web], volumes: [tokenVolume] });
    const before = structuredClone(source);
    // The tenant CA beside the token is no reference; the other ConfigMap is.
    expect(referencesOf(source).map((r) => `${r.kind}/${r.name}`)).toEqual(['ConfigMap/settings']);
    expect(source).toEqual(before);
  });
});

describe('Pod translator: carried labels', () => {
  const ENGINE = reverseMappingLabels(TENANT, 'Pod', 'shop');
  const cases: Array<{
    name: string;
    tenantLabels: Record<string, string>;
    excludeLabelKeys?: string[];
    expectedHostLabels: Record<string, string>;
  }> = [
    {
      name: 'a Helm label is carried under the rewritten key; the engine’s managed-by stays',
      tenantLabels: { app: 'web', 'app.kubernetes.io/managed-by': 'Helm' },
      expectedHostLabels: {
        app: 'web',
        ...ENGINE,
        'app.kubernetes.io.carried.tenantplane.io/managed-by': 'Helm',
      },
    },
    {
      name: 'a tenant label under tenantplane.io is carried, never the engine’s own key',
      tenantLabels: { 'tenantplane.io/kind': 'Fake', 'tenantplane.io/tenant': 'other' },
      expectedHostLabels: { ...ENGINE, 'tenantplane.io.carried.tenantplane.io/kind': 'Fake' },
    },
    {
      name: 'a reserved key the policy excludes is not carried',
      tenantLabels: { app: 'web', 'app.kubernetes.io/managed-by': 'Helm' },
      excludeLabelKeys: ['app.kubernetes.io/*'],
      expectedHostLabels: { app: 'web', ...ENGINE },
    },
    {
      name: 'the node topology labels a tenant binding copied are not the tenant’s: left out',
      tenantLabels: {
        app: 'web',
        'topology.kubernetes.io/zone': 'eu-1a',
        'topology.kubernetes.io/region': 'eu-1',
      },
      expectedHostLabels: { app: 'web', ...ENGINE },
    },
    {
      name: 'no reserved keys, nothing carried',
      tenantLabels: { app: 'web' },
      expectedHostLabels: { app: 'web', ...ENGINE },
    },
  ];
  it.each(cases)('$name', ({ tenantLabels, excludeLabelKeys, expectedHostLabels }) => {
    const result = translate(pod({ containers: [web] }, { labels: tenantLabels }), {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      excludeKeys: compileKeyExclusions({ labelKeys: excludeLabelKeys }),
    });
    if (!('host' in result)) throw new Error(result.refused);
    expect(result.host.metadata.labels).toEqual(expectedHostLabels);
  });

  it('a Service selector on the Helm label, scoped by the same key function, selects the host Pod', () => {
    const host = hostOf(
      pod({ containers: [web] }, { labels: { 'app.kubernetes.io/managed-by': 'Helm' } }),
    );
    const scope = { tenant: TENANT, virtualNamespace: 'shop' };
    const selector = scopeSelectorMap({ 'app.kubernetes.io/managed-by': 'Helm' }, scope);
    expect(selects(selector, host.metadata.labels)).toBe(true);
    const other = hostOf(pod({ containers: [web] }, { labels: { app: 'web' } }));
    expect(selects(selector, other.metadata.labels)).toBe(false);
  });
});

describe('Pod translator: host access', () => {
  const cases = [
    { name: 'host network', spec: { hostNetwork: true, containers: [web] }, says: /hostNetwork/ },
    {
      name: 'host PID and IPC',
      spec: { hostPID: true, hostIPC: true, containers: [web] },
      says: /hostPID, hostIPC/,
    },
    {
      name: 'a hostPath volume',
      spec: { containers: [web], volumes: [{ name: 'logs', hostPath: { path: '/var/log' } }] },
      says: /hostPath volume "logs"/,
    },
    {
      name: 'a privileged container',
      spec: { containers: [{ ...web, securityContext: { privileged: true } }] },
      says: /privileged container "web"/,
    },
    {
      name: 'a host port',
      spec: { containers: [{ ...web, ports: [{ containerPort: 80, hostPort: 8080 }] }] },
      says: /host port 8080 of container "web"/,
    },
  ];
  it.each(cases)('$name is refused with a reason unless the policy allows it', ({ spec, says }) => {
    const refused = translated(pod(spec));
    expect(refused).toEqual({ refused: expect.stringMatching(says) });
    expect('refused' in refused && refused.refused).toMatch(/spec\.workloads\.allowHostAccess/);
    const allowed = translate(pod(spec), {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: { allowHostAccess: true },
    });
    expect('host' in allowed).toBe(true);
  });
});

describe('Pod translator: references', () => {
  it('lists every reference with its path, optional ones marked, the token CA not among them', () => {
    const refs = referencesOf(pod(EVERY_REFERENCE)).map(
      (r) => `${r.kind} ${r.name} ${r.path}${r.optional ? ' (optional)' : ''}`,
    );
    expect(refs).toEqual([
      'ConfigMap storefront spec.volumes[config].configMap',
      'Secret db spec.volumes[creds].secret (optional)',
      'PersistentVolumeClaim data spec.volumes[data].persistentVolumeClaim',
      'ConfigMap extra spec.volumes[bundle].projected.sources[0].configMap',
      'Secret tls spec.volumes[bundle].projected.sources[1].secret',
      'Secret csi-creds spec.volumes[csi].csi.nodePublishSecretRef',
      'Secret init-env spec.initContainers[init].envFrom[0].secretRef',
      'ConfigMap storefront spec.containers[web].env[A].valueFrom.configMapKeyRef',
      'Secret db spec.containers[web].env[B].valueFrom.secretKeyRef (optional)',
      'ConfigMap storefront spec.containers[web].envFrom[0].configMapRef',
      'Secret registry spec.imagePullSecrets[0] (optional)',
    ]);
  });

  it('kinds without references have none', () => {
    expect(referencesOf(tenantObject('v1', 'ConfigMap', { data: {} }))).toEqual([]);
  });
});
