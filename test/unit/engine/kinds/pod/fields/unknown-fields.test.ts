/**
 * A Pod field no table lists (a later Kubernetes added it) waits for a decision, a Skip naming
 * its path (a running Pod's copy kept as it was, none made for a new one), unless the policy
 * allows the path (`spec.workloads.pods.allowFields`), then copied verbatim; a field a table
 * refuses is refused whatever the policy. The 1.35-1.37 fields the tables copy
 * reach the host Pod as written: `hostnameOverride`, image volumes, pod-level resources, sidecars.
 */
import { describe, expect, it } from '@jest/globals';
import {
  genericPath,
  podFieldFindings,
  podFieldRefusal,
  podFieldUndecided,
} from '../../../../../../lib/engine/kinds/pod/fields/unknown-fields.js';
import { immutablePodChanges } from '../../../../../../lib/engine/kinds/pod/translate/immutable.js';
import type { WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import { hostOf, tenantObject, translated } from '../../support.js';
import { RESTRICTED } from './rows.js';

type Json = Record<string, unknown>;
const BASE: Json = {
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'i' }],
};
const allow = (...allowFields: string[]): WorkloadPolicy => ({
  pods: { allowFields, trustBundleNames: [], trustBundleSigners: [], podCertificateSigners: [] },
});

describe('podFieldFindings', () => {
  const cases: Array<{ name: string; spec: Json; paths: string[] }> = [
    { name: 'a Pod of known fields: nothing', spec: BASE, paths: [] },
    { name: 'a new PodSpec field', spec: { ...BASE, podQuota: 3 }, paths: ['spec.podQuota'] },
    {
      name: 'a new container field, named by its container',
      spec: { containers: [{ name: 'web', image: 'i', warmup: {} }] },
      paths: ['spec.containers[web].warmup'],
    },
    {
      name: 'a new field of a sidecar',
      spec: { ...BASE, initContainers: [{ name: 'proxy', restartPolicy: 'Always', drain: 1 }] },
      paths: ['spec.initContainers[proxy].drain'],
    },
    {
      name: 'a new security context field, of the Pod and of a container',
      spec: {
        securityContext: { landlock: true },
        containers: [{ name: 'web', securityContext: { landlock: true } }],
      },
      paths: ['spec.securityContext.landlock', 'spec.containers[web].securityContext.landlock'],
    },
    {
      name: 'a new volume source',
      spec: { ...BASE, volumes: [{ name: 'v', objectStore: { bucket: 'b' } }] },
      paths: ['spec.volumes[v].objectStore'],
    },
    {
      name: 'a new projected source',
      spec: { ...BASE, volumes: [{ name: 'v', projected: { sources: [{ spiffe: {} }] } }] },
      paths: ['spec.volumes[v].projected.sources[0].spiffe'],
    },
    {
      name: 'an ephemeral container’s new field: left off with the list',
      spec: { ...BASE, ephemeralContainers: [{ name: 'debug', newField: 1 }] },
      paths: [],
    },
    {
      name: 'a field a table refuses, set',
      spec: { ...BASE, schedulingGroup: { podGroupName: 'g' } },
      paths: ['spec.schedulingGroup'],
    },
    {
      name: 'a field a table refuses, empty or null: nothing set',
      spec: { ...BASE, schedulingGroup: {}, evictionResponders: [], resourceClaims: null },
      paths: [],
    },
    { name: 'no spec', spec: undefined as unknown as Json, paths: [] },
  ];
  it.each(cases)('$name', ({ spec, paths }) => {
    expect(podFieldFindings(spec).map((f) => f.path)).toEqual(paths);
  });
});

describe('podFieldUndecided and podFieldRefusal', () => {
  const unknown = { ...BASE, containers: [{ name: 'web', image: 'i', warmup: {} }] };
  const remedy =
    'nothing is written until the engine knows the field or the policy allows it; upgrade the engine, or have the operator allow it to be copied as it is (spec.workloads.pods.allowFields: spec.containers[].warmup)';
  const what =
    'the Pod sets spec.containers[web].warmup, a field this engine does not know (a later Kubernetes added it), so nobody decided what it would do on the host';
  const cases: Array<{
    name: string;
    spec: Json;
    policy?: WorkloadPolicy;
    waits?: string;
    refused?: string;
  }> = [
    {
      name: 'unknown, no policy: waits, naming the path and the knob',
      spec: unknown,
      waits: 'spec.containers[web].warmup',
    },
    {
      name: 'unknown, its path allowed: nothing',
      spec: unknown,
      policy: allow('spec.containers[].warmup'),
    },
    {
      name: 'unknown, another list’s path allowed: waits',
      spec: unknown,
      policy: allow('spec.initContainers[].warmup'),
      waits: 'spec.containers[web].warmup',
    },
    {
      name: 'refused by its row, even when allowed by path: a refusal, not a wait',
      spec: { ...BASE, evictionResponders: [{ name: 'acme.io/x', priority: 1 }] },
      policy: allow('spec.evictionResponders'),
      refused: 'the Pod sets spec.evictionResponders, which is never copied to the host',
    },
  ];
  it.each(cases)('$name', ({ spec, policy, waits, refused }) => {
    const undecided = podFieldUndecided(spec, policy);
    if (waits === undefined) expect(undecided).toBeUndefined();
    else {
      expect(undecided?.kept).toContain(waits);
      expect(undecided?.notCreated).toContain(waits);
    }
    const reason = podFieldRefusal(spec);
    if (refused === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(refused);
  });

  it('says in plain words what happens to a copy it has and to one it lacks', () => {
    expect(podFieldUndecided(unknown, undefined)).toEqual({
      kept: `${what}; kept: the host copy keeps running as it was (neither updated nor deleted); ${remedy}`,
      notCreated: `${what}; it gets no host copy: ${remedy}`,
    });
  });

  it('allowing a new volume source widens no isolation rule: the node would mount it', () => {
    const spec = { ...BASE, volumes: [{ name: 'v', objectStore: { bucket: 'b' } }] };
    const pod = tenantObject('v1', 'Pod', { spec });
    const allowed = allow('spec.volumes[].objectStore');
    expect(podFieldUndecided(spec, allowed)).toBeUndefined();
    expect(translated(pod, allowed)).toEqual({
      refused: expect.stringContaining('(spec.volumes[v].objectStore)'),
    });
    expect(translated(pod, { ...allowed, allowHostAccess: true })).toHaveProperty('host');
  });

  it('names list items generically, as the policy spells a path', () => {
    expect(genericPath('spec.volumes[data].projected.sources[0].spiffe')).toBe(
      'spec.volumes[].projected.sources[].spiffe',
    );
  });

  it('through the translator: waits by default (after every refusal), copied verbatim when allowed', () => {
    const pod = tenantObject('v1', 'Pod', { spec: { ...BASE, podQuota: { cpu: '2' } } });
    expect(translated(pod)).toEqual({
      host: expect.anything(),
      undecided: {
        kept: expect.stringContaining('spec.podQuota'),
        notCreated: expect.stringContaining('spec.podQuota'),
      },
    });
    // A deliberate refusal the same Pod earns goes first: its copy is not kept for the new field.
    const hostNetwork = tenantObject('v1', 'Pod', {
      spec: { ...BASE, podQuota: { cpu: '2' }, hostNetwork: true },
    });
    expect(translated(hostNetwork)).toEqual({ refused: expect.stringContaining('hostNetwork') });
    const host = hostOf(pod, allow('spec.podQuota'));
    expect((host.spec as Json).podQuota).toEqual({ cpu: '2' });
  });
});

describe('the 1.35-1.37 fields the tables copy', () => {
  it('hostnameOverride, an image volume, pod-level resources and a sidecar reach the host Pod as written', () => {
    const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
    const spec: Json = {
      ...BASE,
      hostnameOverride: 'web.example.internal',
      resources: { requests: { cpu: '200m' }, limits: { memory: '128Mi' } },
      initContainers: [sidecar],
      volumes: [{ name: 'models', image: { reference: 'example.com/m:1', pullPolicy: 'Always' } }],
    };
    const host = hostOf(tenantObject('v1', 'Pod', { spec })).spec as Json;
    expect(host.hostnameOverride).toBe('web.example.internal');
    // The host Pod keeps its hostname too: the override is only what the Pod sees; DNS uses this.
    expect(host.hostname).toBe('web');
    expect(host.resources).toEqual(spec.resources);
    expect(host.initContainers).toEqual([expect.objectContaining(sidecar)]);
    expect((host.volumes as Json[]).find((v) => v.name === 'models')).toEqual({
      name: 'models',
      image: { reference: 'example.com/m:1', pullPolicy: 'Always' },
    });
  });

  it('an image volume meets Pod Security (a volume type of the restricted level)', () => {
    const securityContext = {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    };
    const spec: Json = {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'i', securityContext }],
      volumes: [{ name: 'm', image: { reference: 'r:1' } }],
    };
    expect(translated(tenantObject('v1', 'Pod', { spec }), RESTRICTED)).toHaveProperty('host');
  });

  it('pod-level resources: what the host added (a LimitRange) is no change; the tenant’s change is a recreate', () => {
    const pod = (resources: Json) => tenantObject('v1', 'Pod', { spec: { ...BASE, resources } });
    const asked = { requests: { cpu: '200m' } };
    const hostAdded = { requests: { cpu: '200m', memory: '64Mi' }, limits: { cpu: '1' } };
    expect(immutablePodChanges(pod(asked), pod(hostAdded))).toEqual([]);
    expect(immutablePodChanges(pod({ requests: { cpu: '400m' } }), pod(hostAdded))).toEqual([
      'spec.resources',
    ]);
  });
});
