/** The baseline Pod Security checks, check by check (`pod-security-baseline.ts`). */
import { describe, expect, it } from '@jest/globals';
import { PodSecurityLevel } from '../../../../../../lib/engine/policy/isolation.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { type First, first, hardened, pod, sc, web } from './pod-security-pods.js';

describe('Pod Security checks: baseline', () => {
  const cases: { name: string; subject: KubeObject; expected: First }[] = [
    { name: 'a restricted Pod meets baseline', subject: pod(), expected: undefined },
    {
      name: 'a plain Pod (no security context at all) meets baseline',
      subject: pod({ securityContext: undefined, containers: [{ name: 'web', image: 'x' }] }),
      expected: undefined,
    },
    {
      name: 'hostNamespaces: hostPID',
      subject: pod({ hostPID: true }),
      expected: { check: 'hostNamespaces', path: 'spec.hostPID', value: 'true' },
    },
    {
      name: 'privileged: a privileged init container',
      subject: pod({ initContainers: [hardened('init', { privileged: true })] }),
      expected: {
        check: 'privileged',
        path: 'spec.initContainers[init].securityContext.privileged',
        value: 'true',
      },
    },
    {
      name: 'capabilities_baseline: SYS_ADMIN added',
      subject: pod({ containers: [hardened('web', { capabilities: { add: ['SYS_ADMIN'] } })] }),
      expected: {
        check: 'capabilities_baseline',
        path: `${sc}.capabilities.add`,
        value: 'SYS_ADMIN',
      },
    },
    {
      name: 'capabilities_baseline: a default capability is allowed',
      subject: pod({ containers: [hardened('web', { capabilities: { add: ['CHOWN', 'KILL'] } })] }),
      expected: undefined,
    },
    {
      name: 'capabilities_baseline: NET_RAW is not in the default set',
      subject: pod({ containers: [hardened('web', { capabilities: { add: ['NET_RAW'] } })] }),
      expected: {
        check: 'capabilities_baseline',
        path: `${sc}.capabilities.add`,
        value: 'NET_RAW',
      },
    },
    {
      name: 'hostPathVolumes',
      subject: pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }),
      expected: {
        check: 'hostPathVolumes',
        path: 'spec.volumes[root].hostPath',
        value: 'a hostPath volume',
      },
    },
    {
      name: 'hostPorts',
      subject: pod({
        containers: [hardened('web', {}, { ports: [{ containerPort: 80, hostPort: 80 }] })],
      }),
      expected: { check: 'hostPorts', path: `${web}.ports[0].hostPort`, value: '80' },
    },
    {
      name: 'hostPorts: 0 is no host port',
      subject: pod({
        containers: [hardened('web', {}, { ports: [{ containerPort: 80, hostPort: 0 }] })],
      }),
      expected: undefined,
    },
    {
      name: 'appArmorProfile: Unconfined on the Pod',
      subject: pod({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }),
      expected: {
        check: 'appArmorProfile',
        path: 'spec.securityContext.appArmorProfile.type',
        value: 'Unconfined',
      },
    },
    {
      name: 'appArmorProfile: the deprecated annotation, unconfined',
      subject: pod({}, { 'container.apparmor.security.beta.kubernetes.io/web': 'unconfined' }),
      expected: {
        check: 'appArmorProfile',
        path: 'metadata.annotations[container.apparmor.security.beta.kubernetes.io/web]',
        value: 'unconfined',
      },
    },
    {
      name: 'appArmorProfile: a node-local profile is allowed',
      subject: pod({
        securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'x' } },
      }),
      expected: undefined,
    },
    {
      name: 'seLinuxOptions: spc_t (super-privileged) type',
      subject: pod({ containers: [hardened('web', { seLinuxOptions: { type: 'spc_t' } })] }),
      expected: { check: 'seLinuxOptions', path: `${sc}.seLinuxOptions.type`, value: 'spc_t' },
    },
    {
      name: 'seLinuxOptions: a user',
      subject: pod({ securityContext: { seLinuxOptions: { user: 'system_u' } } }),
      expected: {
        check: 'seLinuxOptions',
        path: 'spec.securityContext.seLinuxOptions.user',
        value: 'system_u',
      },
    },
    {
      name: 'seLinuxOptions: container_engine_t is allowed (1.31+)',
      subject: pod({
        securityContext: { seLinuxOptions: { type: 'container_engine_t', level: 's0' } },
      }),
      expected: undefined,
    },
    {
      name: 'procMount: Unmasked',
      subject: pod({ containers: [hardened('web', { procMount: 'Unmasked' })] }),
      expected: { check: 'procMount', path: `${sc}.procMount`, value: 'Unmasked' },
    },
    {
      name: 'procMount: Unmasked in a user namespace is allowed (1.35+)',
      subject: pod({ hostUsers: false, containers: [hardened('web', { procMount: 'Unmasked' })] }),
      expected: undefined,
    },
    {
      name: 'seccompProfile_baseline: Unconfined on a container',
      subject: pod({ containers: [hardened('web', { seccompProfile: { type: 'Unconfined' } })] }),
      expected: {
        check: 'seccompProfile_baseline',
        path: `${sc}.seccompProfile.type`,
        value: 'Unconfined',
      },
    },
    {
      name: 'seccompProfile_baseline: no profile at all is allowed',
      subject: pod({ securityContext: {} }),
      expected: undefined,
    },
    {
      name: 'sysctls: kernel.msgmax is not namespaced safely',
      subject: pod({
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.tcp_rmem', value: '1' },
            { name: 'kernel.msgmax', value: '1' },
          ],
        },
      }),
      expected: {
        check: 'sysctls',
        path: 'spec.securityContext.sysctls[1].name',
        value: 'kernel.msgmax',
      },
    },
    {
      name: 'windowsHostProcess',
      subject: pod({ securityContext: { windowsOptions: { hostProcess: true } } }),
      expected: {
        check: 'windowsHostProcess',
        path: 'spec.securityContext.windowsOptions.hostProcess',
        value: 'true',
      },
    },
    {
      name: 'hostProbesAndHostLifecycle: a probe to another host',
      subject: pod({
        containers: [
          hardened(
            'web',
            {},
            { livenessProbe: { httpGet: { host: '169.254.169.254', port: 80 } } },
          ),
        ],
      }),
      expected: {
        check: 'hostProbesAndHostLifecycle',
        path: `${web}.livenessProbe.httpGet.host`,
        value: '169.254.169.254',
      },
    },
    {
      name: 'hostProbesAndHostLifecycle: a preStop TCP handler to another host',
      subject: pod({
        containers: [
          hardened(
            'web',
            {},
            { lifecycle: { preStop: { tcpSocket: { host: '10.0.0.1', port: 1 } } } },
          ),
        ],
      }),
      expected: {
        check: 'hostProbesAndHostLifecycle',
        path: `${web}.lifecycle.preStop.tcpSocket.host`,
        value: '10.0.0.1',
      },
    },
    {
      name: 'an ephemeral container counts (as upstream visits it)',
      subject: pod({
        ephemeralContainers: [{ name: 'debug', image: 'x', securityContext: { privileged: true } }],
      }),
      expected: {
        check: 'privileged',
        path: 'spec.ephemeralContainers[debug].securityContext.privileged',
        value: 'true',
      },
    },
  ];

  it.each(cases)('$name', ({ subject, expected }) => {
    expect(first(subject, PodSecurityLevel.Baseline)).toEqual(expected);
  });
});
