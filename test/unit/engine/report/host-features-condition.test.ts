/**
 * The `HostFeatures` condition: what an older host lacks of the APIs the engine uses, read from
 * its discovery, said once on the TenantCluster; the pass does without and writes nothing else.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { hostFeaturesConditions } from '../../../../lib/engine/report/host-features-condition.js';
import {
  type FeatureDiscovery,
  type HostFeatures,
  readHostFeatures,
} from '../../../../lib/engine/tenant/host-features.js';
import type { Condition } from '../../../../lib/engine/tenant/status.js';
import {
  ClusterError,
  type KindRef,
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
