/** The Pod Security refusal, and the registry refusing the translated host Pod with it. */
import { describe, expect, it } from '@jest/globals';
import { podSecurityRefusal } from '../../../../../../lib/engine/kinds/pod/translate/pod-security.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import {
  DEFAULT_ISOLATION,
  PodSecurityLevel,
} from '../../../../../../lib/engine/policy/isolation.js';
import { HOST_NAMESPACE, TENANT } from '../../support.js';
import { hardened, pod } from './pod-security-pods.js';

const { Baseline, Restricted, Privileged } = PodSecurityLevel;

describe('Pod Security refusal', () => {
  const sysAdmin = pod({ containers: [hardened('web', { capabilities: { add: ['SYS_ADMIN'] } })] });

  it('names the field, the value, the level, the check and the knob', () => {
    expect(podSecurityRefusal(sysAdmin, Baseline)).toBe(
      'spec.containers[web].securityContext.capabilities.add: SYS_ADMIN is not allowed by the Pod Security Standard "baseline" (capabilities_baseline), the level of spec.workloads.podSecurity',
    );
  });

  it('says what is required, and counts the other violations', () => {
    const bare = pod({ securityContext: undefined, containers: [{ name: 'web', image: 'x' }] });
    expect(podSecurityRefusal(bare, Restricted)).toBe(
      'spec.containers[web].securityContext.allowPrivilegeEscalation: false is required by the Pod Security Standard "restricted" (allowPrivilegeEscalation), the level of spec.workloads.podSecurity; 3 more violations',
    );
  });

  it('privileged checks nothing', () => {
    expect(podSecurityRefusal(sysAdmin, Privileged)).toBeUndefined();
  });
});

describe('Pod Security on the translated host Pod (the registry refuses it)', () => {
  const at = (podSecurity: PodSecurityLevel, allowHostAccess = false) => ({
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: { allowHostAccess, isolation: { ...DEFAULT_ISOLATION, podSecurity } },
  });
  const cases = [
    {
      name: 'a Pod adding SYS_ADMIN is refused at the default level (baseline)',
      subject: pod({ containers: [hardened('web', { capabilities: { add: ['SYS_ADMIN'] } })] }),
      target: { tenant: TENANT, hostNamespace: HOST_NAMESPACE },
      refused:
        /capabilities\.add: SYS_ADMIN is not allowed by the Pod Security Standard "baseline"/,
    },
    {
      name: 'a compliant Pod, hardened by the engine (token volume, env), still meets restricted',
      subject: pod({ automountServiceAccountToken: undefined }),
      target: at(Restricted),
      refused: undefined,
    },
    {
      name: 'privileged with host access: a privileged container is written',
      subject: pod({ containers: [hardened('web', { privileged: true })] }),
      target: at(Privileged, true),
      refused: undefined,
    },
    {
      name: 'host access allowed but the level baseline: the Pod Security check still refuses',
      subject: pod({ containers: [hardened('web', { privileged: true })] }),
      target: at(Baseline, true),
      refused:
        /privileged: true is not allowed by the Pod Security Standard "baseline" \(privileged\)/,
    },
    {
      name: 'an ephemeral container the engine drops is no violation of the host Pod',
      subject: pod({
        ephemeralContainers: [
          { name: 'debug', image: 'x', securityContext: { capabilities: { add: ['SYS_PTRACE'] } } },
        ],
      }),
      target: at(Restricted),
      refused: undefined,
    },
  ];

  it.each(cases)('$name', ({ subject, target, refused }) => {
    const result = translate(subject, target);
    if (refused === undefined) expect(result).toHaveProperty('host');
    else expect('refused' in result ? result.refused : 'written').toMatch(refused);
  });
});
