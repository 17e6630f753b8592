/**
 * The hardening of a Pod spec, function by function: which host access a spec asks for and when
 * that is refused, what hardenSpec clears and keeps (and which tenant service account it returns),
 * the hostname of a Pod name, and the token sources dropped from projected volumes. The Pod
 * translator's output with all of them applied is in pod.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import {
  dropTokenSources,
  hardenSpec,
  hostAccessOf,
  hostAccessRefusal,
  hostnameOf,
} from '../../../../../../lib/engine/kinds/pod/translate/hardening.js';
import type { WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';

const web = { name: 'web', image: 'nginx:1' };

describe('hostAccessOf', () => {
  const cases: Array<{ name: string; spec: unknown; expected: string[] }> = [
    { name: 'no spec', spec: undefined, expected: [] },
    { name: 'a spec that is not an object', spec: ['hostNetwork'], expected: [] },
    { name: 'a plain Pod', spec: { containers: [web] }, expected: [] },
    {
      name: 'host namespaces set to false, or to a string',
      spec: { hostNetwork: false, hostPID: 'true', hostIPC: 1, containers: [web] },
      expected: [],
    },
    {
      name: 'every host namespace, in a fixed order',
      spec: { hostIPC: true, hostPID: true, hostNetwork: true },
      expected: ['hostNetwork', 'hostPID', 'hostIPC'],
    },
    {
      name: 'hostPath volumes, by name; other volumes are no host access',
      spec: {
        volumes: [
          { name: 'logs', hostPath: { path: '/var/log' } },
          { name: 'scratch', emptyDir: {} },
          { name: 'sock', hostPath: { path: '/run/docker.sock', type: 'Socket' } },
        ],
      },
      expected: ['hostPath volume "logs"', 'hostPath volume "sock"'],
    },
    {
      name: 'privileged containers in every container list',
      spec: {
        initContainers: [{ name: 'init', securityContext: { privileged: true } }],
        containers: [
          { ...web, securityContext: { privileged: false } },
          { name: 'root', securityContext: { privileged: true, runAsUser: 0 } },
        ],
        ephemeralContainers: [{ name: 'debug', securityContext: { privileged: true } }],
      },
      expected: [
        'privileged container "init"',
        'privileged container "root"',
        'privileged container "debug"',
      ],
    },
    {
      name: 'host ports other than 0; container ports alone are none',
      spec: {
        containers: [
          {
            ...web,
            ports: [
              { containerPort: 80 },
              { containerPort: 81, hostPort: 0 },
              { containerPort: 82, hostPort: '8082' },
              { containerPort: 443, hostPort: 8443 },
            ],
          },
        ],
      },
      expected: ['host port 8443 of container "web"'],
    },
    {
      name: 'everything at once: namespaces, volumes, then each container',
      spec: {
        hostNetwork: true,
        volumes: [{ name: 'logs', hostPath: { path: '/var/log' } }],
        containers: [{ ...web, securityContext: { privileged: true }, ports: [{ hostPort: 80 }] }],
      },
      expected: [
        'hostNetwork',
        'hostPath volume "logs"',
        'privileged container "web"',
        'host port 80 of container "web"',
      ],
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostAccessOf(spec)).toEqual(expected);
  });
});

describe('hostAccessRefusal', () => {
  const asking = { hostNetwork: true, containers: [{ ...web, ports: [{ hostPort: 80 }] }] };
  const cases: Array<{
    name: string;
    spec: unknown;
    policy: WorkloadPolicy | undefined;
    refused: boolean;
  }> = [
    { name: 'host access, no workload policy', spec: asking, policy: undefined, refused: true },
    { name: 'host access, an empty policy', spec: asking, policy: {}, refused: true },
    {
      name: 'host access, allowHostAccess false',
      spec: asking,
      policy: { allowHostAccess: false },
      refused: true,
    },
    {
      name: 'host access, another setting only',
      spec: asking,
      policy: { hostServiceAccountName: 'pods' },
      refused: true,
    },
    {
      name: 'host access the policy allows',
      spec: asking,
      policy: { allowHostAccess: true },
      refused: false,
    },
    {
      name: 'no host access, no policy',
      spec: { containers: [web] },
      policy: undefined,
      refused: false,
    },
    { name: 'no spec at all', spec: undefined, policy: undefined, refused: false },
  ];
  it.each(cases)('$name: refused $refused', ({ spec, policy, refused }) => {
    const reason = hostAccessRefusal(spec, policy);
    if (!refused) expect(reason).toBeUndefined();
    else {
      expect(reason).toBe(
        'the Pod asks for host access (hostNetwork, host port 80 of container "web"), which the policy does not allow (spec.workloads.allowHostAccess)',
      );
    }
  });
});

describe('hardenSpec', () => {
  const serviceAccounts: Array<{ name: string; spec: Record<string, unknown>; expected: string }> =
    [
      { name: 'serviceAccountName', spec: { serviceAccountName: 'shop-sa' }, expected: 'shop-sa' },
      {
        name: 'serviceAccountName before the deprecated serviceAccount',
        spec: { serviceAccountName: 'shop-sa', serviceAccount: 'old-sa' },
        expected: 'shop-sa',
      },
      {
        name: 'the deprecated serviceAccount alone',
        spec: { serviceAccount: 'old-sa' },
        expected: 'old-sa',
      },
      {
        name: 'an empty serviceAccountName falls back to serviceAccount',
        spec: { serviceAccountName: '', serviceAccount: 'old-sa' },
        expected: 'old-sa',
      },
      { name: 'none', spec: {}, expected: 'default' },
      {
        name: 'names that are not strings',
        spec: { serviceAccountName: 7, serviceAccount: null },
        expected: 'default',
      },
    ];
  it.each(serviceAccounts)(
    'returns the tenant service account ($name) and leaves none on the host spec',
    ({ spec, expected }) => {
      const hardened = { containers: [web], ...spec };
      expect(hardenSpec(hardened, 'web')).toBe(expected);
      expect(hardened).not.toHaveProperty('serviceAccount');
      expect(hardened).not.toHaveProperty('serviceAccountName');
    },
  );

  it('runs the host Pod as the host service account the policy names', () => {
    const spec: Record<string, unknown> = { serviceAccountName: 'shop-sa', serviceAccount: 'x' };
    expect(hardenSpec(spec, 'web', { hostServiceAccountName: 'tenant-pods' })).toBe('shop-sa');
    expect(spec.serviceAccountName).toBe('tenant-pods');
    expect(spec).not.toHaveProperty('serviceAccount');
  });

  it('clears host credentials and host scheduling, in place, and keeps the rest', () => {
    const spec: Record<string, unknown> = {
      containers: [web],
      automountServiceAccountToken: true,
      enableServiceLinks: true,
      nodeName: 'tenant-node',
      ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
      priorityClassName: 'high',
      priority: 1000,
      preemptionPolicy: 'PreemptLowerPriority',
      overhead: { cpu: '10m' },
      runtimeClassName: 'gvisor',
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      affinity: { nodeAffinity: {} },
      dnsPolicy: 'ClusterFirst',
    };
    hardenSpec(spec, 'web');
    expect(spec).toEqual({
      containers: [web],
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostname: 'web',
      runtimeClassName: 'gvisor',
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      affinity: { nodeAffinity: {} },
      dnsPolicy: 'ClusterFirst',
    });
  });

  it.each([
    { name: 'no hostname: the Pod name’s', hostname: undefined, expected: 'api-0' },
    { name: 'an empty hostname: the Pod name’s', hostname: '', expected: 'api-0' },
    { name: 'the tenant’s own hostname is kept', hostname: 'db-0', expected: 'db-0' },
  ])('$name', ({ hostname, expected }) => {
    const spec: Record<string, unknown> = {
      containers: [web],
      ...(hostname === undefined ? {} : { hostname }),
    };
    hardenSpec(spec, 'api-0.shop');
    expect(spec.hostname).toBe(expected);
  });
});

describe('hostnameOf', () => {
  it.each([
    { name: 'web', expected: 'web' },
    { name: 'web-0.db.shop', expected: 'web-0' },
    { name: 'trailing--', expected: 'trailing' },
    { name: 'a'.repeat(70), expected: 'a'.repeat(63) },
    { name: `${'a'.repeat(62)}-b`, expected: 'a'.repeat(62) },
  ])('$name -> $expected', ({ name, expected }) => {
    const hostname = hostnameOf(name);
    expect(hostname).toBe(expected);
    expect(hostname.length).toBeLessThanOrEqual(63);
  });
});

describe('dropTokenSources', () => {
  const token = { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } };
  const ca = {
    configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
  };
  const downward = { downwardAPI: { items: [{ path: 'namespace' }] } };
  const settings = { configMap: { name: 'settings' } };

  const cases: Array<{ name: string; volumes: unknown[]; expected: unknown[] }> = [
    {
      name: 'the token and the tenant CA beside it go; other sources stay, in order',
      volumes: [{ name: 'api', projected: { sources: [token, ca, downward, settings] } }],
      expected: [{ name: 'api', projected: { sources: [downward, settings] } }],
    },
    {
      name: 'a projected volume without a token keeps the tenant CA',
      volumes: [{ name: 'bundle', projected: { sources: [ca, settings] } }],
      expected: [{ name: 'bundle', projected: { sources: [ca, settings] } }],
    },
    {
      name: 'a volume of only the token and CA is left with no sources',
      volumes: [{ name: 'api', projected: { sources: [token, ca], defaultMode: 420 } }],
      expected: [{ name: 'api', projected: { sources: [], defaultMode: 420 } }],
    },
    {
      name: 'every projected volume on its own; other volumes untouched',
      volumes: [
        { name: 'one', projected: { sources: [token] } },
        { name: 'config', configMap: { name: 'kube-root-ca.crt' } },
        { name: 'two', projected: { sources: [ca, token, settings] } },
      ],
      expected: [
        { name: 'one', projected: { sources: [] } },
        { name: 'config', configMap: { name: 'kube-root-ca.crt' } },
        { name: 'two', projected: { sources: [settings] } },
      ],
    },
    {
      name: 'projected volumes without a source list are left alone',
      volumes: [
        { name: 'odd', projected: {} },
        { name: 'odder', projected: { sources: 'x' } },
      ],
      expected: [
        { name: 'odd', projected: {} },
        { name: 'odder', projected: { sources: 'x' } },
      ],
    },
  ];
  it.each(cases)('$name', ({ volumes, expected }) => {
    const spec: Record<string, unknown> = { containers: [web], volumes: structuredClone(volumes) };
    dropTokenSources(spec);
    expect(spec).toEqual({ containers: [web], volumes: expected });
  });

  it('a spec without volumes is left as it is', () => {
    const spec: Record<string, unknown> = { containers: [web] };
    dropTokenSources(spec);
    expect(spec).toEqual({ containers: [web] });
  });
});
