/**
 * In-cluster API access goes to the tenant: the token sources of a tenant Pod are served from its
 * token Secret, the API endpoint and DNS are the tenant's, and the Secret is renewed in time.
 */
import { describe, expect, it } from '@jest/globals';
import {
  type PodTokenNeed,
  podTokenNeed,
  tokenDue,
  tokenSecret,
} from '../../../../../../lib/engine/kinds/pod/translate/token-secret.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import {
  Annotations,
  Labels,
  TOKEN_SECRET_KIND,
} from '../../../../../../lib/engine/names/metadata.js';
import { hostName, tokenSecretName } from '../../../../../../lib/engine/names/naming.js';
import { parseSyncPolicy } from '../../../../../../lib/engine/policy/policy.js';
import {
  parseApiEndpoint,
  type WorkloadPolicy,
} from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

const SECRET_NAME = tokenSecretName(hostName('web', 'shop', TENANT));
const web = { name: 'web', image: 'nginx:1' };
/** The volume the tenant's ServiceAccount admission injects. */
const KUBE_API_ACCESS = {
  name: 'kube-api-access-x',
  projected: {
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ],
  },
};

function host(spec: Record<string, unknown>, workloads: WorkloadPolicy = {}): KubeObject {
  const result = translate(tenantObject('v1', 'Pod', { spec }), {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads,
  });
  if (!('host' in result)) throw new Error(result.refused);
  return result.host;
}
const specOf = (object: KubeObject) => object.spec as Record<string, unknown>;
const requestsOf = (object: KubeObject) =>
  JSON.parse(object.metadata.annotations?.[Annotations.TokenRequests] ?? '[]');

describe('Pod translator: the tenant token', () => {
  it.each([
    {
      name: 'the injected volume: token and CA from the token Secret, one default-audience request',
      spec: { serviceAccountName: 'default', containers: [web], volumes: [KUBE_API_ACCESS] },
      expectedSources: [
        {
          secret: {
            name: SECRET_NAME,
            items: [
              { key: 'token', path: 'token' },
              { key: 'ca.crt', path: 'ca.crt' },
            ],
          },
        },
      ],
      expectedRequests: [{ key: 'token', audiences: [], expirationSeconds: 3600 }],
    },
    {
      name: 'a projected source asking for an audience: a request of its own, its lifetime kept',
      spec: {
        serviceAccountName: 'default',
        containers: [web],
        volumes: [
          {
            name: 'vault',
            projected: {
              sources: [
                {
                  serviceAccountToken: {
                    path: 'vault-token',
                    audience: 'vault',
                    expirationSeconds: 1200,
                  },
                },
                { serviceAccountToken: { path: 'api-token' } },
              ],
            },
          },
        ],
      },
      expectedSources: [
        {
          secret: {
            name: SECRET_NAME,
            items: [
              { key: 'token', path: 'vault-token' },
              { key: 'token-1', path: 'api-token' },
            ],
          },
        },
      ],
      expectedRequests: [
        { key: 'token', audiences: ['vault'], expirationSeconds: 1200 },
        { key: 'token-1', audiences: [], expirationSeconds: 3600 },
      ],
    },
    {
      name: 'a Pod naming no service account (no tenant admission set it): a token not bound to it',
      spec: { containers: [web], volumes: [KUBE_API_ACCESS] },
      expectedSources: [
        {
          secret: {
            name: SECRET_NAME,
            items: [
              { key: 'token', path: 'token' },
              { key: 'ca.crt', path: 'ca.crt' },
            ],
          },
        },
      ],
      expectedRequests: [{ key: 'token', audiences: [], expirationSeconds: 3600, unbound: true }],
    },
    {
      name: 'a Pod (or service account) that opted out: the admission injected nothing, no token',
      spec: { automountServiceAccountToken: false, containers: [web] },
      expectedSources: undefined,
      expectedRequests: [],
    },
  ])('$name', ({ spec, expectedSources, expectedRequests }) => {
    const object = host(spec);
    const volumes = specOf(object).volumes as
      | Array<{ projected?: { sources: unknown[] } }>
      | undefined;
    expect(volumes?.[0]?.projected?.sources).toEqual(expectedSources);
    expect(requestsOf(object)).toEqual(expectedRequests);
    // The host's own token is never mounted, whatever the tenant asked.
    expect(specOf(object).automountServiceAccountToken).toBe(false);
    expect(JSON.stringify(object)).not.toContain('serviceAccountToken');
  });

  it.each([
    { text: 'https://10.0.0.1:6443', expected: { host: '10.0.0.1', port: '6443' } },
    { text: 'api.dev.example:8443', expected: { host: 'api.dev.example', port: '8443' } },
    { text: 'api.dev.example', expected: { host: 'api.dev.example', port: '443' } },
    { text: 'https://[fd00::1]:6443', expected: { host: 'fd00::1', port: '6443' } },
    { text: 'http://10.0.0.1:8080', expected: undefined },
    { text: '', expected: undefined },
  ])('parses the API endpoint $text', ({ text, expected }) => {
    expect(parseApiEndpoint(text)).toEqual(expected);
  });

  it('points KUBERNETES_SERVICE_HOST/PORT of every container at the tenant endpoint', () => {
    const spec = {
      initContainers: [{ name: 'init', image: 'busybox' }],
      containers: [
        {
          ...web,
          env: [
            { name: 'KUBERNETES_SERVICE_HOST', value: 'spoofed' },
            { name: 'A', value: 'a' },
          ],
        },
      ],
    };
    const object = host(spec, { tenantApiEndpoint: 'https://10.0.0.1:6443' });
    const envs = ['initContainers', 'containers'].map(
      (list) => (specOf(object)[list] as Array<{ env: unknown }>)[0]?.env,
    );
    const service = [
      { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
    ];
    expect(envs).toEqual([service, [{ name: 'A', value: 'a' }, ...service]]);
  });

  const dns = { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' };
  it.each([
    {
      name: 'cluster DNS (the default) becomes the tenant DNS with the virtual namespace searches',
      spec: { containers: [web] },
      expected: {
        dnsPolicy: 'None',
        dnsConfig: {
          nameservers: ['10.96.0.10'],
          searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
          options: [{ name: 'ndots', value: '5' }],
        },
      },
    },
    {
      name: 'the tenant’s own dnsConfig follows the tenant DNS',
      spec: {
        containers: [web],
        dnsConfig: { searches: ['corp.example'], options: [{ name: 'ndots', value: '2' }] },
      },
      expected: {
        dnsPolicy: 'None',
        dnsConfig: {
          nameservers: ['10.96.0.10'],
          searches: [
            'shop.svc.cluster.local',
            'svc.cluster.local',
            'cluster.local',
            'corp.example',
          ],
          options: [{ name: 'ndots', value: '2' }],
        },
      },
    },
    {
      name: 'dnsPolicy Default (the node’s DNS) is kept',
      spec: { containers: [web], dnsPolicy: 'Default' },
      expected: { dnsPolicy: 'Default' },
    },
  ])('$name', ({ spec, expected }) => {
    const { dnsPolicy, dnsConfig } = specOf(host(spec, { tenantDns: dns }));
    expect({ dnsPolicy, ...(dnsConfig === undefined ? {} : { dnsConfig }) }).toEqual(expected);
  });

  it('without a tenant DNS or endpoint the host Pod keeps the host’s DNS and no service env', () => {
    const spec = specOf(host({ automountServiceAccountToken: false, containers: [web] }));
    expect(spec.dnsPolicy).toBeUndefined();
    expect(spec.containers).toEqual([web]);
  });

  it('a Pod that does not opt out and has no token volume gets the one the admission would inject', () => {
    const spec = specOf(
      host({ initContainers: [{ name: 'init', image: 'busybox' }], containers: [web] }),
    );
    const mount = { name: 'kube-api-access-tenant', readOnly: true, mountPath: TOKEN_MOUNT_PATH };
    expect(spec.containers).toEqual([{ ...web, volumeMounts: [mount] }]);
    expect(spec.initContainers).toEqual([
      { name: 'init', image: 'busybox', volumeMounts: [mount] },
    ]);
    expect(spec.volumes).toEqual([
      {
        name: 'kube-api-access-tenant',
        projected: {
          sources: [
            {
              downwardAPI: {
                items: [
                  {
                    path: 'namespace',
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: `metadata.annotations['${Annotations.VirtualNamespace}']`,
                    },
                  },
                ],
              },
            },
            {
              secret: {
                name: SECRET_NAME,
                items: [
                  { key: 'token', path: 'token' },
                  { key: 'ca.crt', path: 'ca.crt' },
                ],
              },
            },
          ],
        },
      },
    ]);
  });

  it('validates the policy fields, every problem at once', () => {
    const parse = (workloads: unknown) => () =>
      parseSyncPolicy('dev', { hostNamespace: 'tenant-dev', workloads });
    expect(parse({ tenantApiEndpoint: 'http://x:1', tenantDns: { nameserver: 'dns' } })).toThrow(
      /tenantApiEndpoint must be[\s\S]*nameserver must be an IP address/,
    );
    expect(
      parseSyncPolicy('dev', {
        hostNamespace: 'tenant-dev',
        workloads: { tenantApiEndpoint: '10.0.0.1:6443', tenantDns: { nameserver: '10.96.0.10' } },
      }).workloads,
    ).toEqual({ tenantApiEndpoint: '10.0.0.1:6443', tenantDns: { ...dns } });
  });
});

describe('the token Secret', () => {
  const hostPod: KubeObject = {
    ...host({ serviceAccountName: 'default', containers: [web], volumes: [KUBE_API_ACCESS] }),
    metadata: {
      ...host({ serviceAccountName: 'default', containers: [web], volumes: [KUBE_API_ACCESS] })
        .metadata,
      uid: 'host-uid-1',
    },
  };
  const need = podTokenNeed(hostPod) as PodTokenNeed;
  const issuedAt = Date.UTC(2030, 0, 1);
  const hour = 3600_000;
  const secret = tokenSecret({
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    need,
    tokens: new Map([
      [
        'token',
        { token: 'SECRET-TOKEN', expirationTimestamp: new Date(issuedAt + hour).toISOString() },
      ],
    ]),
    ca: 'PEM',
    issuedAt,
  });

  it('is the engine’s own, owned by the host Pod, and holds the token only in its data', () => {
    expect(need).toEqual({
      hostPod: { name: hostName('web', 'shop', TENANT), uid: 'host-uid-1' },
      virtualNamespace: 'shop',
      virtualName: 'web',
      virtualUid: 'uid-1',
      serviceAccount: 'default',
      requests: [{ key: 'token', audiences: [], expirationSeconds: 3600 }],
    });
    expect(secret.metadata.name).toBe(SECRET_NAME);
    expect(secret.metadata.labels?.[Labels.Kind]).toBe(TOKEN_SECRET_KIND);
    expect(secret.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: need.hostPod.name, uid: 'host-uid-1' },
    ]);
    const data = secret.data as Record<string, string>;
    const decoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(decoded).toEqual({ token: 'SECRET-TOKEN', 'ca.crt': 'PEM', namespace: 'shop' });
    expect(JSON.stringify(secret.metadata)).not.toContain('SECRET-TOKEN');
    expect(secret.metadata.annotations?.[Annotations.TokenExpiresAt]).toBe(
      '2030-01-01T01:00:00.000Z',
    );
  });

  it('mints nothing for a host Pod whose (immutable) spec predates its token volume', () => {
    expect(podTokenNeed({ ...hostPod, spec: { containers: [web] } })).toBeUndefined();
  });

  it.each([
    { name: 'no Secret yet', secret: undefined, at: 0, expected: /no token yet/ },
    { name: 'fresh (79% of its life)', secret, at: 0.79 * hour, expected: undefined },
    { name: 'past 80% of its life', secret, at: 0.81 * hour, expected: /past 80% of its life/ },
    {
      name: 'another host Pod owned it',
      secret: { ...secret, metadata: { ...secret.metadata, ownerReferences: [{ uid: 'old' }] } },
      at: 0,
      expected: /earlier host Pod/,
    },
    {
      name: 'other tokens asked',
      secret: { ...secret, metadata: { ...secret.metadata, annotations: {} } },
      at: 0,
      expected: /other tokens/,
    },
  ])('is due again: $name', ({ secret: stored, at, expected }) => {
    const due = tokenDue(need, stored, issuedAt + at);
    if (expected === undefined) expect(due).toBeUndefined();
    else expect(due).toMatch(expected);
  });
});
