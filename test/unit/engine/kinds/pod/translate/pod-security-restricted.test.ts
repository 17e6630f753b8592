/** The restricted Pod Security checks, check by check (`pod-security-restricted.ts`). */
import { describe, expect, it } from '@jest/globals';
import { podSecurityChecks } from '../../../../../../lib/engine/kinds/pod/translate/pod-security.js';
import { PodSecurityLevel } from '../../../../../../lib/engine/policy/isolation.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { type First, first, hardened, pod, sc } from './pod-security-pods.js';

const { Baseline, Restricted, Privileged } = PodSecurityLevel;

describe('Pod Security checks: restricted', () => {
  const cases: { name: string; subject: KubeObject; expected: First }[] = [
    { name: 'the hardened Pod meets restricted', subject: pod(), expected: undefined },
    {
      name: 'allowPrivilegeEscalation: unset',
      subject: pod({
        containers: [{ ...hardened('web'), securityContext: { capabilities: { drop: ['ALL'] } } }],
      }),
      expected: {
        check: 'allowPrivilegeEscalation',
        path: `${sc}.allowPrivilegeEscalation`,
        value: 'false',
      },
    },
    {
      name: 'capabilities_restricted: ALL not dropped',
      subject: pod({ containers: [hardened('web', { capabilities: { drop: ['NET_RAW'] } })] }),
      expected: {
        check: 'capabilities_restricted',
        path: `${sc}.capabilities.drop`,
        value: '"ALL"',
      },
    },
    {
      name: 'capabilities_restricted: a default capability added (baseline would allow it)',
      subject: pod({
        containers: [hardened('web', { capabilities: { drop: ['ALL'], add: ['CHOWN'] } })],
      }),
      expected: {
        check: 'capabilities_restricted',
        path: `${sc}.capabilities.add`,
        value: 'CHOWN',
      },
    },
    {
      name: 'capabilities_restricted: NET_BIND_SERVICE may be added',
      subject: pod({
        containers: [
          hardened('web', { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }),
        ],
      }),
      expected: undefined,
    },
    {
      name: 'runAsNonRoot: unset on the Pod and the container',
      subject: pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
      expected: {
        check: 'runAsNonRoot',
        path: `${sc}.runAsNonRoot`,
        value: 'true (here or in spec.securityContext)',
      },
    },
    {
      name: 'runAsNonRoot: false on a container overrides the Pod',
      subject: pod({ containers: [hardened('web', { runAsNonRoot: false })] }),
      expected: { check: 'runAsNonRoot', path: `${sc}.runAsNonRoot`, value: 'false' },
    },
    {
      name: 'runAsNonRoot: any user in a user namespace (1.35+)',
      subject: pod({
        hostUsers: false,
        securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      }),
      expected: undefined,
    },
    {
      name: 'runAsUser: 0',
      subject: pod({ containers: [hardened('web', { runAsUser: 0 })] }),
      expected: { check: 'runAsUser', path: `${sc}.runAsUser`, value: '0' },
    },
    {
      name: 'runAsUser: 0 in a user namespace (1.35+)',
      subject: pod({ hostUsers: false, containers: [hardened('web', { runAsUser: 0 })] }),
      expected: undefined,
    },
    {
      name: 'seccompProfile_restricted: unset everywhere',
      subject: pod({ securityContext: { runAsNonRoot: true } }),
      expected: {
        check: 'seccompProfile_restricted',
        path: `${sc}.seccompProfile.type`,
        value: 'RuntimeDefault or Localhost (here or in spec.securityContext)',
      },
    },
    {
      name: 'seccompProfile_restricted: Unconfined on the Pod',
      subject: pod({
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Unconfined' } },
      }),
      expected: {
        check: 'seccompProfile_restricted',
        path: 'spec.securityContext.seccompProfile.type',
        value: 'Unconfined',
      },
    },
    {
      name: 'restrictedVolumes: an nfs volume',
      subject: pod({ volumes: [{ name: 'data', nfs: { server: '10.0.0.1', path: '/' } }] }),
      expected: {
        check: 'restrictedVolumes',
        path: 'spec.volumes[data].nfs',
        value: 'a volume of type nfs',
      },
    },
    {
      name: 'restrictedVolumes: hostPath is named by the restricted check (it overrides hostPathVolumes)',
      subject: pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }),
      expected: {
        check: 'restrictedVolumes',
        path: 'spec.volumes[root].hostPath',
        value: 'a volume of type hostPath',
      },
    },
    {
      name: 'restrictedVolumes: an unknown volume type',
      subject: pod({ volumes: [{ name: 'x', futureVolume: {} }] }),
      expected: {
        check: 'restrictedVolumes',
        path: 'spec.volumes[x]',
        value: 'a volume of type unknown',
      },
    },
    {
      name: 'restrictedVolumes: the allowed types, and a volume the API defaults to emptyDir',
      subject: pod({
        volumes: [
          { name: 'a', configMap: { name: 'c' } },
          { name: 'b', secret: { secretName: 's' } },
          { name: 'c', persistentVolumeClaim: { claimName: 'p' } },
          { name: 'd', csi: { driver: 'x' } },
          { name: 'e', ephemeral: { volumeClaimTemplate: { spec: {} } } },
          { name: 'f', image: { reference: 'x' } },
          { name: 'g', projected: { sources: [] } },
          { name: 'h', downwardAPI: { items: [] } },
          { name: 'i' },
        ],
      }),
      expected: undefined,
    },
    {
      name: 'procMount_restricted: Unmasked even in a user namespace',
      subject: pod({ hostUsers: false, containers: [hardened('web', { procMount: 'Unmasked' })] }),
      expected: { check: 'procMount_restricted', path: `${sc}.procMount`, value: 'Unmasked' },
    },
    {
      name: 'a Windows Pod is exempt from seccomp, capabilities and privilege escalation',
      subject: pod({
        os: { name: 'windows' },
        securityContext: { runAsNonRoot: true },
        containers: [{ name: 'web', image: 'x' }],
      }),
      expected: undefined,
    },
    {
      name: 'baseline checks run too (the ones not overridden)',
      subject: pod({ hostNetwork: true }),
      expected: { check: 'hostNamespaces', path: 'spec.hostNetwork', value: 'true' },
    },
  ];

  it.each(cases)('$name', ({ subject, expected }) => {
    expect(first(subject, Restricted)).toEqual(expected);
  });

  it('runs the checks in upstream order: baseline ones first, each group by id', () => {
    expect(podSecurityChecks(Restricted).map((check) => check.id)).toEqual([
      'appArmorProfile',
      'hostNamespaces',
      'hostPorts',
      'hostProbesAndHostLifecycle',
      'privileged',
      'seLinuxOptions',
      'sysctls',
      'windowsHostProcess',
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'procMount_restricted',
      'restrictedVolumes',
      'runAsNonRoot',
      'runAsUser',
      'seccompProfile_restricted',
    ]);
    expect(podSecurityChecks(Baseline)).toHaveLength(12);
    expect(podSecurityChecks(Privileged)).toEqual([]);
  });
});
