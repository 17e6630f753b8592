/**
 * The `HostFeatures` condition: what an older host lacks of the APIs the engine uses, read from
 * its discovery, said once on the TenantCluster; the pass does without and writes nothing else.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import {
  CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from '../../../../lib/engine/kinds/pod/fields/container-fields.js';
import { POD_SPEC_FIELDS } from '../../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import {
  VOLUME_FIELDS,
  VOLUME_PROJECTION_FIELDS,
} from '../../../../lib/engine/kinds/pod/fields/volume-fields.js';
import {
  hostFeaturesConditions,
  type PodFieldsFound,
} from '../../../../lib/engine/report/host-features-condition.js';
import {
  type FeatureDiscovery,
  type HostFeatures,
  readHostFeatures,
} from '../../../../lib/engine/tenant/host-features.js';
import type { Condition } from '../../../../lib/engine/tenant/status.js';
import {
  ClusterError,
  type KindRef,
  type OpenApiSchemas,
  POD,
  SERVICE,
  SERVICE_CIDR,
  TENANT_CLUSTER,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { HOST_NS, TENANT, tenantCluster } from '../support.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const notFound = () => new ClusterError('NotFound', 'not served', { status: 404 });

/** Discovery of a host of one release: whether it serves ServiceCIDR and `pods/resize`. */
function discovery(host: { cidr: boolean; resize: boolean }, failing?: Error): FeatureDiscovery {
  return {
    async namespaced(kind: KindRef) {
      if (failing) throw failing;
      if (kind.kind === SERVICE_CIDR.kind && !host.cidr) throw notFound();
      return kind.kind !== SERVICE_CIDR.kind;
    },
    async subresources(kind: KindRef) {
      if (failing) throw failing;
      return kind.kind === POD.kind && host.resize ? ['binding', 'resize', 'status'] : ['status'];
    },
  };
}

describe('readHostFeatures', () => {
  const policy = { toHost: [SERVICE, POD, CONFIGMAP] };

  it('a host of 1.33 or later serves both', async () => {
    expect(await readHostFeatures(discovery({ cidr: true, resize: true }), policy)).toEqual({
      needed: ['ServiceCIDR', 'PodResize'],
      missing: [],
    });
  });

  it('an older host lacks them: each one the policy needs', async () => {
    const old = discovery({ cidr: false, resize: false });
    expect(await readHostFeatures(old, policy)).toEqual({
      needed: ['ServiceCIDR', 'PodResize'],
      missing: ['ServiceCIDR', 'PodResize'],
    });
    expect(await readHostFeatures(old, { toHost: [POD] })).toEqual({
      needed: ['PodResize'],
      missing: ['PodResize'],
    });
    expect(await readHostFeatures(old, { toHost: [CONFIGMAP] })).toEqual({
      needed: [],
      missing: [],
    });
  });

  it('tells nothing when discovery failed for another reason, or the client has none', async () => {
    const blip = new ClusterError('Transport', 'connection reset');
    expect(await readHostFeatures(discovery({ cidr: true, resize: true }, blip), policy)).toBe(
      undefined,
    );
    expect(await readHostFeatures({}, policy)).toBeUndefined();
  });
});

describe('hostFeaturesConditions', () => {
  const recorded = {
    conditions: [
      {
        type: 'HostFeatures',
        status: 'False',
        reason: 'FeaturesMissing',
        message: 'm',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  };
  const cases: { name: string; found?: HostFeatures; status?: unknown; expected: unknown[] }[] = [
    {
      name: 'everything served: True, AllServed, naming the APIs',
      found: { needed: ['ServiceCIDR', 'PodResize'], missing: [] },
      expected: [
        expect.objectContaining({
          type: 'HostFeatures',
          status: 'True',
          reason: 'AllServed',
          observedGeneration: 3,
          message: expect.stringContaining(
            'networking.k8s.io/v1 servicecidrs (Kubernetes 1.33+), pods/resize (Kubernetes 1.33+)',
          ),
        }),
      ],
    },
    {
      name: 'one missing: False, FeaturesMissing, saying what the engine does instead',
      found: { needed: ['ServiceCIDR', 'PodResize'], missing: ['PodResize'] },
      expected: [
        {
          type: 'HostFeatures',
          status: 'False',
          reason: 'FeaturesMissing',
          observedGeneration: 3,
          message:
            'the host is older than the engine expects: pods/resize (Kubernetes 1.33+) is not served, so a change of a running Pod’s resources is written nowhere: it is that Pod’s error until the tenant Pod is recreated (docs/versions.md)',
        },
      ],
    },
    { name: 'a read that told nothing: no condition', expected: [] },
    {
      name: 'nothing needed, never reported: none',
      found: { needed: [], missing: [] },
      expected: [],
    },
    {
      name: 'nothing needed any more, reported before: True, NotNeeded',
      found: { needed: [], missing: [] },
      status: recorded,
      expected: [expect.objectContaining({ status: 'True', reason: 'NotNeeded' })],
    },
  ];

  it.each(cases)('$name', ({ found, status, expected }) => {
    expect(hostFeaturesConditions(found, status, 3)).toEqual(expected);
  });

  const served: HostFeatures = { needed: ['PodResize'], missing: [] };
  const podCases: { name: string; pods: PodFieldsFound; expected: object }[] = [
    {
      name: 'Pod fields missing, APIs served: False, naming the fields and the host’s version',
      pods: { version: 'v1.33.13', missing: ['spec.hostnameOverride', 'spec.schedulingGroup'] },
      expected: {
        status: 'False',
        reason: 'FeaturesMissing',
        message:
          'the host is older than the engine expects: the host (Kubernetes v1.33.13) does not serve the Pod fields spec.hostnameOverride, spec.schedulingGroup, so a Pod that sets one is a Skip naming it and gets no host copy (docs/versions.md)',
      },
    },
    {
      name: 'a gated field kept off and one whose probe failed: both said',
      pods: {
        version: 'v1.33.13',
        missing: ['spec.volumes[].image'],
        gatesUnknown: ['spec.resources (admission webhook "x" does not support dry run)'],
      },
      expected: {
        status: 'False',
        message: expect.stringMatching(
          /does not serve the Pod fields spec\.volumes\[\]\.image, .*; whether the host's feature gates keep spec\.resources \(admission webhook "x" does not support dry run\) is unknown \(a dry-run create failed\): a Pod that sets one is a Skip until the host answers/,
        ),
      },
    },
    {
      name: 'only a failed probe: True, and said',
      pods: { version: 'v1.37.2', missing: [], gatesUnknown: ['spec.resources (reset)'] },
      expected: {
        status: 'True',
        message: expect.stringContaining(
          "whether the host's feature gates keep spec.resources (reset) is unknown",
        ),
      },
    },
    {
      name: 'every Pod field served: True',
      pods: { version: 'v1.37.2', missing: [] },
      expected: {
        status: 'True',
        reason: 'AllServed',
        message: expect.not.stringContaining('Pod fields'),
      },
    },
    {
      name: 'unknown: said, and Pods written as they are',
      pods: { unknown: 'its OpenAPI v3 of api/v1 could not be read: reset' },
      expected: {
        status: 'True',
        reason: 'AllServed',
        message: expect.stringContaining(
          'which Pod fields the host serves is unknown (its OpenAPI v3 of api/v1 could not be read: reset): Pods are written as they are',
        ),
      },
    },
  ];
  it.each(podCases)('$name', ({ pods, expected }) => {
    expect(hostFeaturesConditions(served, undefined, 3, pods)).toEqual([
      expect.objectContaining(expected),
    ]);
  });
});

/** A host of a release before 1.33: no ServiceCIDR, no `pods/resize`. */
class OldHost extends MemoryCluster {
  override async namespaced(kind: KindRef): Promise<boolean> {
    if (kind.kind === SERVICE_CIDR.kind) throw notFound();
    return super.namespaced(kind);
  }
  async subresources(kind: KindRef): Promise<string[]> {
    return kind.kind === POD.kind ? ['binding', 'status'] : ['status'];
  }
}

/** A host of 1.33: every API the engine uses, but a PodSpec without `hostnameOverride`. */
class PodFieldsHost extends MemoryCluster {
  async subresources(kind: KindRef): Promise<string[]> {
    return kind.kind === POD.kind ? ['binding', 'resize', 'status'] : ['status'];
  }
  async openApiSchemas(_groupVersion: string, names: readonly string[]): Promise<OpenApiSchemas> {
    const tables: Record<string, object> = {
      PodSpec: POD_SPEC_FIELDS,
      PodSecurityContext: POD_SECURITY_CONTEXT_FIELDS,
      Container: CONTAINER_FIELDS,
      SecurityContext: SECURITY_CONTEXT_FIELDS,
      Volume: VOLUME_FIELDS,
      VolumeProjection: VOLUME_PROJECTION_FIELDS,
    };
    const properties: Record<string, string[]> = {};
    for (const name of names) {
      const fields = Object.keys(tables[name.replace('io.k8s.api.core.v1.', '')] ?? {});
      properties[name] = fields.filter((f) => f !== 'hostnameOverride');
    }
    return { version: 'v1.33.13', properties };
  }
}

describe('a pass on a host that lacks a Pod field', () => {
  it('a Pod that sets it is a Skip naming it and the host’s version, nothing written; HostFeatures lists it', async () => {
    const tenantApi = new MemoryCluster('tenant');
    const spec = {
      containers: [{ name: 'web', image: 'nginx:1' }],
      automountServiceAccountToken: false,
    };
    tenantApi.seed({ ...POD, metadata: { name: 'plain', namespace: 'a' }, spec });
    tenantApi.seed({
      ...POD,
      metadata: { name: 'named', namespace: 'a' },
      spec: { ...spec, hostnameOverride: 'web.example' },
    });
    const hostApi = new PodFieldsHost('host').seed(
      tenantCluster({ hostNamespace: HOST_NS, toHost: [POD] }),
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, lease: false });
    const named = result.decisions.find((d) => d.tenantRef.name === 'named');
    expect(named).toMatchObject({
      action: 'Skip',
      reason: expect.stringMatching(
        /^the host \(Kubernetes v1\.33\.13\) does not serve spec\.hostnameOverride; the Pod would run without it/,
      ),
    });
    const created = hostApi.callsOf('create').filter((c) => c.kind === POD.kind);
    expect(created).toHaveLength(1); // the plain one only
    const condition = (
      (hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as { conditions?: Condition[] })
        ?.conditions ?? []
    ).find((c) => c.type === 'HostFeatures');
    expect(condition).toMatchObject({
      status: 'False',
      reason: 'FeaturesMissing',
      message: expect.stringContaining(
        'the host (Kubernetes v1.33.13) does not serve the Pod fields spec.hostnameOverride,',
      ),
    });
  });
});

describe('a pass on an older host', () => {
  const conditionOf = (hostApi: MemoryCluster) =>
    (
      (hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as { conditions?: Condition[] })
        ?.conditions ?? []
    ).find((c) => c.type === 'HostFeatures');

  it('says so once: the condition is written by the first pass and costs no later write', async () => {
    const tenantApi = new MemoryCluster('tenant');
    tenantApi.seed({
      ...SERVICE,
      metadata: { name: 'web', namespace: 'a' },
      spec: { ports: [{ port: 80 }] },
    });
    const hostApi = new OldHost('host').seed(
      tenantCluster({ hostNamespace: HOST_NS, toHost: [SERVICE, POD] }),
    );
    const run = (path?: 'full') =>
      runPass({ tenant: TENANT, tenantApi, hostApi, lease: false, ...(path ? { path } : {}) });
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(conditionOf(hostApi)).toMatchObject({
      status: 'False',
      reason: 'FeaturesMissing',
      message: expect.stringContaining('networking.k8s.io/v1 servicecidrs'),
    });
    const said = conditionOf(hostApi);
    // Degraded, not wrong: the Service's copy asked for no address (the host allocates one).
    const copies = hostApi.callsOf('create').filter((c) => c.kind === SERVICE.kind);
    expect(copies).toHaveLength(1);
    // A full pass reads discovery again and finds the same: the condition stays as written.
    const again = await run('full');
    expect(again.errors).toEqual([]);
    expect(conditionOf(hostApi)).toEqual(said);
    // Converged, it costs nothing: a pass that follows changes writes no status.
    await run();
    const settled = await run();
    expect(settled.path).toBe('resumed');
    expect(settled.statusWritten).toBe(false);
  });
});
