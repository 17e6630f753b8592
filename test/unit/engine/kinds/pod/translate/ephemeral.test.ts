/**
 * Ephemeral volumes through the naming rule: the host Pod mounts the host copy of the claim the
 * tenant's ephemeral-volume controller made (`<pod>-<volume>`), a required reference, and nothing
 * of the template reaches the host (its `volumeName`, `selector`, reserved labels, data sources);
 * a pass creates the Pod once that claim is synced, and says why it waits until then.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../../lib/engine/index.js';
import { ephemeralClaimName } from '../../../../../../lib/engine/kinds/pod/translate/ephemeral.js';
import { referencesOf, translate } from '../../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../../lib/engine/names/naming.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn } from '../../../support.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

type Spec = Record<string, unknown>;
const POD = { apiVersion: 'v1', kind: 'Pod' };
const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

/** A template as hostile as a tenant can write one. */
const TEMPLATE = {
  metadata: {
    labels: {
      app: 'web',
      'tenantplane.io/tenant': 'victim',
      'app.kubernetes.io/managed-by': 'tenantplane',
    },
    annotations: { 'tenantplane.io/virtual-name': 'data' },
  },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    volumeName: 'operator-pv',
    selector: { matchLabels: { disk: 'operator' } },
    storageClassName: 'fast',
    dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden', namespace: 'base' },
  },
};

/** A tenant Pod `name` with the given volumes. */
const pod = (volumes: Spec[], name = 'web'): KubeObject =>
  tenantObject(
    'v1',
    'Pod',
    {
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'web', image: 'nginx:1' }],
        volumes,
      },
    },
    { name },
  );
const ephemeral = (name: string): Spec => ({
  name,
  ephemeral: { volumeClaimTemplate: TEMPLATE },
});

function hostVolumes(source: KubeObject): Spec[] {
  const result = translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE });
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return (result.host.spec as { volumes: Spec[] }).volumes;
}

const claimVolume = (name: string, claim: string) => ({
  name,
  persistentVolumeClaim: { claimName: hostName(claim, 'shop', TENANT) },
});

describe('Pod ephemeral volumes: the host Pod', () => {
  const cases: Array<{ name: string; source: KubeObject; expected: Spec[] }> = [
    {
      name: 'an ephemeral volume mounts the host copy of <pod>-<volume>, no template',
      source: pod([ephemeral('scratch')]),
      expected: [claimVolume('scratch', 'web-scratch')],
    },
    {
      name: 'several, beside other volumes, each its own claim, in order',
      source: pod([ephemeral('a'), { name: 'config', configMap: { name: 'cfg' } }, ephemeral('b')]),
      expected: [
        claimVolume('a', 'web-a'),
        { name: 'config', configMap: { name: hostName('cfg', 'shop', TENANT) } },
        claimVolume('b', 'web-b'),
      ],
    },
    {
      name: 'a long Pod name: the claim’s host name is hashed by the naming rule like any other',
      source: pod([ephemeral('scratch')], 'a'.repeat(60)),
      expected: [claimVolume('scratch', `${'a'.repeat(60)}-scratch`)],
    },
  ];
  it.each(cases)('$name', ({ source, expected }) => {
    const volumes = hostVolumes(source);
    expect(volumes).toEqual(expected);
    // Nothing of the template: no claim the host's controller would make, no reserved key.
    const text = JSON.stringify(volumes);
    for (const word of ['ephemeral', 'volumeClaimTemplate', 'operator-pv', 'tenantplane.io']) {
      expect(text).not.toContain(word);
    }
  });

  it('a data source in another namespace no longer refuses the Pod: the claim is refused instead', () => {
    expect(
      translate(pod([ephemeral('scratch')]), { tenant: TENANT, hostNamespace: HOST_NAMESPACE }),
    ).toHaveProperty('host');
  });

  it('names the claim as Kubernetes does', () => {
    expect(ephemeralClaimName('web', 'scratch')).toBe('web-scratch');
  });
});

describe('Pod ephemeral volumes: references', () => {
  it('each ephemeral volume is a required reference to its claim, at the volume', () => {
    const refs = referencesOf(pod([ephemeral('a'), { name: 'x', emptyDir: {} }, ephemeral('b')]));
    expect(refs).toEqual([
      { ...CLAIM, name: 'web-a', path: 'spec.volumes[a].ephemeral', optional: false },
      { ...CLAIM, name: 'web-b', path: 'spec.volumes[b].ephemeral', optional: false },
    ]);
  });

  it('the source is untouched', () => {
    const source = pod([ephemeral('scratch')]);
    const before = structuredClone(source);
    referencesOf(source);
    translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE });
    expect(source).toEqual(before);
  });
});

describe('Pod ephemeral volumes: a pass', () => {
  const tenantPod: KubeObject = {
    ...pod([ephemeral('scratch')]),
    metadata: { namespace: 'shop', name: 'web', uid: 'pod-uid' },
  };
  const tenantClaim: KubeObject = {
    ...CLAIM,
    metadata: { namespace: 'shop', name: 'web-scratch', uid: 'claim-uid' },
    // As the tenant's controller makes it from the template (a source of its own namespace; no
    // host volume named: a claim naming one is below).
    spec: {
      ...TEMPLATE.spec,
      volumeName: undefined,
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden' },
    },
  };
  const reasons = (decisions: readonly { action: string; reason: string }[]) =>
    decisions.filter((d) => d.action === 'Skip').map((d) => d.reason);

  it('waits for the claim the tenant’s controller makes, then mounts its copy', async () => {
    const { tenantApi, hostApi } = clusters([tenantPod], [], { toHost: [POD, CLAIM] });
    const first = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(reasons(first.decisions)).toEqual([
      'spec.volumes[scratch].ephemeral refers to PersistentVolumeClaim "web-scratch", which has no host copy yet (it does not exist in the tenant, is excluded, or was not synced); the Pod is created in the pass where it exists',
    ]);
    expect(hostApi.peek(POD, HOST_NS, hn('shop', 'web'))).toBeUndefined();

    tenantApi.seed(tenantClaim);
    const second = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(second.errors).toEqual([]);
    const claim = hostApi.peek(CLAIM, HOST_NS, hn('shop', 'web-scratch'));
    // Claims' own rule: the tenant's selector never reaches the host (it names no volume).
    expect(claim?.spec).not.toHaveProperty('volumeName');
    expect(claim?.spec).not.toHaveProperty('selector');
    const hostPod = hostApi.peek(POD, HOST_NS, hn('shop', 'web'));
    expect((hostPod?.spec as { volumes: Spec[] } | undefined)?.volumes).toContainEqual(
      claimVolume('scratch', 'web-scratch'),
    );
  });

  it('a claim whose template names a host volume the policy does not hand out gets no copy, and the Pod keeps waiting', async () => {
    const naming = {
      ...tenantClaim,
      spec: { ...(tenantClaim.spec as Spec), volumeName: 'operator-pv' },
    };
    const { tenantApi, hostApi } = clusters([tenantPod, naming], [], { toHost: [POD, CLAIM] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.errors).toEqual([]);
    expect(reasons(result.decisions)).toEqual([
      expect.stringContaining('the claim names the host volume "operator-pv" (spec.volumeName)'),
      expect.stringContaining(
        'refers to PersistentVolumeClaim "web-scratch", which has no host copy yet',
      ),
    ]);
    expect(hostApi.peek(CLAIM, HOST_NS, hn('shop', 'web-scratch'))).toBeUndefined();
    expect(hostApi.peek(POD, HOST_NS, hn('shop', 'web'))).toBeUndefined();
  });

  it('without claims in the policy, the Pod is never created, and its Skip says why', async () => {
    const { tenantApi, hostApi } = clusters([tenantPod, tenantClaim], [], { toHost: [POD] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(reasons(result.decisions)).toEqual([
      'spec.volumes[scratch].ephemeral refers to PersistentVolumeClaim "web-scratch", and PersistentVolumeClaim is not in the policy\'s toHost kinds, so it is never synced; the Pod was not created',
    ]);
  });
});
