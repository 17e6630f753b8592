/**
 * Issue 40, point 4, on the real clusters: Pod fields the host's types list but its feature gates
 * keep off (docs/versions.md). A 1.33 host lists image volumes (`ImageVolume`, beta, off by
 * default) and pod-level `resources` (`PodLevelResources`, alpha) in its OpenAPI, and drops them
 * from a Pod at create without an error. The engine asks the host once per field by a dry-run
 * create: on 1.33 a Pod that sets one is a Skip naming the field, the host's version and its
 * gate, nothing is written (uid@resourceVersion snapshot of the host namespace), `HostFeatures`
 * names the fields, and a second pass asks nothing more; on 1.37 the same Pods sync as written.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { gateAnswers, gateProbesSent } from '../../../lib/engine/tenant/host-pod-gates.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  kubectl,
  pass,
  tenantClusterObject,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
const NOTHING = { created: [], changed: [], deleted: [] };

type Spec = Record<string, unknown>;
const SPECS: Record<string, Spec> = {
  'image-volume': {
    automountServiceAccountToken: false,
    volumes: [{ name: 'models', image: { reference: 'example.com/models:1' } }],
    containers: [
      {
        name: 'web',
        image: 'nginx:1',
        volumeMounts: [{ name: 'models', mountPath: '/models', readOnly: true }],
      },
    ],
  },
  'pod-resources': {
    automountServiceAccountToken: false,
    resources: { requests: { cpu: '200m', memory: '64Mi' }, limits: { memory: '128Mi' } },
    containers: [{ name: 'web', image: 'nginx:1' }],
  },
};
/** What each Pod's Skip names on a host whose gates keep the field off. */
const FIELDS: Record<string, string> = {
  'image-volume': 'spec.volumes[models].image',
  'pod-resources': 'spec.resources',
};

async function hostVersion(): Promise<string> {
  return (JSON.parse(await kubectl(['get', '--raw', '/version'])) as { gitVersion: string })
    .gitVersion;
}

describe('Pod fields the host’s feature gates keep off', () => {
  it('on 1.33 a Pod setting an image volume or pod-level resources is a Skip naming the field and nothing is written; on 1.37 it syncs as written', async () => {
    const version = await hostVersion();
    const t = await createTenant(apis(), 'pf-gated', { toHost: [POD] });
    const ns = t.vns.a;
    for (const [name, spec] of Object.entries(SPECS)) {
      await t.tenantApi.create(tenantObject(t, POD, ns, name, { spec }));
    }
    // A namespace just made has no default ServiceAccount for a moment, and the host refuses a
    // Pod (the probe too) until it does: that Skip is its own case, in the unit tests.
    await waitFor('the host namespace’s default ServiceAccount', () =>
      t.hostApi.get(SERVICE_ACCOUNT, t.hostNamespace, 'default'),
    );
    const before = await snapshot(t.hostNamespace);
    const sentBefore = gateProbesSent();
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    // One dry run per gated field the Pods set (whatever the release: 1.37 is asked too).
    const probes = gateProbesSent() - sentBefore;
    expect({ probes, unknown: gateAnswers(t.hostApi.server, version).unknown }).toEqual({
      probes: version.startsWith('v1.33.') ? 2 : expect.any(Number),
      unknown: [],
    });
    expect(probes).toBeLessThanOrEqual(2);
    const decided = (name: string) => first.result.decisions.find((d) => d.tenantRef.name === name);

    if (version.startsWith('v1.33.')) {
      expect(probes).toBe(2);
      for (const [name, field] of Object.entries(FIELDS)) {
        expect(decided(name)).toMatchObject({ action: 'Skip' });
        expect(decided(name)?.reason).toBe(
          `the host (Kubernetes ${version}) does not serve ${field} (its feature gate is off there); the Pod would run without it, so nothing is written (docs/versions.md)`,
        );
      }
      expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);
      const status = (await tenantClusterObject(t)).status as {
        conditions?: { type: string; status: string; message: string }[];
      };
      const features = status.conditions?.find((c) => c.type === 'HostFeatures');
      expect(features?.status).toBe('False');
      expect(features?.message).toContain('spec.resources');
      expect(features?.message).toContain('spec.volumes[].image');

      // Said once: the next pass asks the host nothing more and still writes nothing.
      const again = await pass(t, { full: true });
      expect(gateProbesSent() - sentBefore).toBe(2);
      expect(again.result.decisions.filter((d) => d.action === 'Skip')).toHaveLength(2);
      expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);
      return;
    }

    // A host whose gates are on (1.37): the same Pods land with their fields as written.
    for (const name of Object.keys(SPECS)) {
      expect(decided(name)).toMatchObject({ action: 'Create' });
      const tenantSpec = (await t.tenantApi.get(POD, ns, name))?.spec as Spec;
      const host = (await t.hostApi.get(POD, t.hostNamespace, hostName(name, ns, t.name))) as
        | KubeObject
        | undefined;
      const field = name === 'image-volume' ? 'volumes' : 'resources';
      expect({ field, value: ((host?.spec ?? {}) as Spec)[field] }).toEqual({
        field,
        value: tenantSpec[field],
      });
    }
    const status = (await tenantClusterObject(t)).status as {
      conditions?: { type: string; message: string }[];
    };
    const features = status.conditions?.find((c) => c.type === 'HostFeatures');
    // Both asked and answered: no probe was refused (Pod Security, a quota) on the way.
    expect(features?.message ?? '').not.toContain('spec.resources');
    expect(features?.message ?? '').not.toContain('feature gates keep');
  });
});
