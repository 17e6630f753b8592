/**
 * The Pod fields the host serves (`kinds/pod/fields/host-served.ts`): a Pod that sets a field an
 * older host does not serve is a Skip naming the field and the host's version; `HostFeatures`
 * lists the table fields the host lacks.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from '../../../../../../lib/engine/kinds/pod/fields/container-fields.js';
import {
  firstUnservedField,
  hostServedRefusal,
  unservedPodFields,
} from '../../../../../../lib/engine/kinds/pod/fields/host-served.js';
import { POD_SPEC_FIELDS } from '../../../../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import {
  VOLUME_FIELDS,
  VOLUME_PROJECTION_FIELDS,
} from '../../../../../../lib/engine/kinds/pod/fields/volume-fields.js';
import type { HostPodSchema } from '../../../../../../lib/engine/tenant/host-pod-schema.js';

/** A host serving every table field but `lacking` (`Struct.field`). */
function host(version: string, ...lacking: string[]): HostPodSchema {
  const of = (struct: string, table: object) =>
    new Set(Object.keys(table).filter((f) => !lacking.includes(`${struct}.${f}`)));
  return {
    version,
    served: {
      PodSpec: of('PodSpec', POD_SPEC_FIELDS),
      PodSecurityContext: of('PodSecurityContext', POD_SECURITY_CONTEXT_FIELDS),
      Container: of('Container', CONTAINER_FIELDS),
      SecurityContext: of('SecurityContext', SECURITY_CONTEXT_FIELDS),
      Volume: of('Volume', VOLUME_FIELDS),
      VolumeProjection: of('VolumeProjection', VOLUME_PROJECTION_FIELDS),
      Lifecycle: of('Lifecycle', { postStart: 0, preStop: 0, stopSignal: 0 }),
    },
    gatedOff: [],
    gatesUnknown: [],
  };
}

const CURRENT = host('v1.37.2');
const OLD = host(
  'v1.33.13',
  'PodSpec.hostnameOverride',
  'PodSpec.schedulingGroup',
  'Container.restartPolicyRules',
  'SecurityContext.procMount',
  'Volume.image',
  'VolumeProjection.clusterTrustBundle',
);
const web = { name: 'web', image: 'nginx:1' };

describe('unservedPodFields', () => {
  it('lists the table fields the host lacks, as the policy spells paths', () => {
    expect(unservedPodFields(CURRENT)).toEqual([]);
    expect(unservedPodFields(OLD)).toEqual([
      'spec.hostnameOverride',
      'spec.schedulingGroup',
      'spec.containers[].restartPolicyRules',
      'spec.containers[].securityContext.procMount',
      'spec.volumes[].image',
      'spec.volumes[].projected.sources[].clusterTrustBundle',
    ]);
  });
});

describe('firstUnservedField', () => {
  const cases: { name: string; spec: unknown; expected: string | undefined }[] = [
    { name: 'a plain Pod', spec: { containers: [web] }, expected: undefined },
    { name: 'not a spec', spec: 'x', expected: undefined },
    {
      name: 'a Pod field',
      spec: { containers: [web], hostnameOverride: 'a.example' },
      expected: 'spec.hostnameOverride',
    },
    {
      name: 'set to nothing: not set',
      spec: { containers: [web], hostnameOverride: null, schedulingGroup: {} },
      expected: undefined,
    },
    {
      name: 'a field of an init container',
      spec: {
        containers: [web],
        initContainers: [{ ...web, name: 'i', restartPolicyRules: [{}] }],
      },
      expected: 'spec.initContainers[i].restartPolicyRules',
    },
    {
      name: 'a field of a container’s security context',
      spec: { containers: [{ ...web, securityContext: { procMount: 'Unmasked' } }] },
      expected: 'spec.containers[web].securityContext.procMount',
    },
    {
      name: 'a volume source',
      spec: { containers: [web], volumes: [{ name: 'm', image: { reference: 'x:1' } }] },
      expected: 'spec.volumes[m].image',
    },
    {
      name: 'a projected source',
      spec: {
        containers: [web],
        volumes: [
          {
            name: 'trust',
            projected: { sources: [{ configMap: { name: 'c' } }, { clusterTrustBundle: {} }] },
          },
          {
            name: 't2',
            projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'b.pem' } }] },
          },
        ],
      },
      expected: 'spec.volumes[t2].projected.sources[0].clusterTrustBundle',
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(firstUnservedField(spec, OLD)).toBe(expected);
    expect(firstUnservedField(spec, CURRENT)).toBeUndefined();
  });
});

describe('hostServedRefusal', () => {
  it('names the field and the host’s version; nothing without a schema', () => {
    const spec = { containers: [web], hostnameOverride: 'a.example' };
    expect(hostServedRefusal(spec, OLD)).toBe(
      'the host (Kubernetes v1.33.13) does not serve spec.hostnameOverride; the Pod would run without it, so nothing is written (docs/versions.md)',
    );
    expect(hostServedRefusal(spec, CURRENT)).toBeUndefined();
    expect(hostServedRefusal(spec, undefined)).toBeUndefined();
  });
});

describe('fields the host’s types list but its feature gates keep off', () => {
  // A 1.33 host: `resources` and `stopSignal` in its types, dropped by its gates (the probes).
  const GATED: HostPodSchema = {
    ...host('v1.33.13', 'PodSpec.resources', 'Lifecycle.stopSignal'),
    gatedOff: ['spec.resources', 'spec.containers[].lifecycle.stopSignal'],
  };

  it('are listed after the table fields, once', () => {
    expect(unservedPodFields(GATED)).toEqual([
      'spec.resources',
      'spec.containers[].lifecycle.stopSignal',
    ]);
  });

  it('a Pod that sets one is refused naming it and saying its gate is off', () => {
    const resources = { containers: [web], resources: { limits: { cpu: '1' } } };
    expect(hostServedRefusal(resources, GATED)).toBe(
      'the host (Kubernetes v1.33.13) does not serve spec.resources (its feature gate is off there); the Pod would run without it, so nothing is written (docs/versions.md)',
    );
    const stop = { initContainers: [{ ...web, lifecycle: { stopSignal: 'SIGUSR1' } }] };
    expect(hostServedRefusal(stop, GATED)).toContain(
      'does not serve spec.initContainers[web].lifecycle.stopSignal (its feature gate is off there)',
    );
    const preStop = { containers: [{ ...web, lifecycle: { preStop: { sleep: { seconds: 1 } } } }] };
    // A probe that failed: the Pod that sets the field waits for an answer, one that does not goes.
    const unanswered = {
      ...GATED,
      gatesUnknown: ['spec.volumes[].image (serviceaccount "default" not found)'],
    };
    const image = { containers: [web], volumes: [{ name: 'm', image: { reference: 'x:1' } }] };
    expect(hostServedRefusal(image, unanswered)).toBe(
      'the host (Kubernetes v1.33.13) could not be asked whether its feature gates keep spec.volumes[].image (serviceaccount "default" not found); the Pod might run without it, so nothing is written until it answers (docs/versions.md)',
    );
    expect(hostServedRefusal({ containers: [web] }, unanswered)).toBeUndefined();
    expect(hostServedRefusal(preStop, GATED)).toBeUndefined();
  });
});
