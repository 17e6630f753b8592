/** Pods for the Pod Security tables: one that meets the restricted level, changed per case. */
import { podSecurityViolations } from '../../../../../../lib/engine/kinds/pod/translate/pod-security.js';
import type { PodSecurityLevel } from '../../../../../../lib/engine/policy/isolation.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { tenantObject } from '../../support.js';

type Json = Record<string, unknown>;

/** A container that meets the restricted level, with `security` merged into its context. */
export const hardened = (name: string, security: Json = {}, rest: Json = {}) => ({
  name,
  image: 'nginx:1',
  ...rest,
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    ...security,
  },
});

/** A Pod that meets the restricted level, with `spec` merged over it. */
export const pod = (spec: Json = {}, annotations?: Record<string, string>): KubeObject =>
  tenantObject(
    'v1',
    'Pod',
    {
      spec: {
        automountServiceAccountToken: false,
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [hardened('web')],
        ...spec,
      },
    },
    annotations ? { annotations } : {},
  );

/** What a case expects: the first violation's check, field and value, or none. */
export type First = { check: string; path: string; value: string } | undefined;

/** The first violation of `level` on `subject`. */
export const first = (subject: KubeObject, level: PodSecurityLevel): First => {
  const [violation] = podSecurityViolations(subject, level);
  return violation && { check: violation.check, path: violation.path, value: violation.value };
};

export const web = 'spec.containers[web]';
export const sc = `${web}.securityContext`;
