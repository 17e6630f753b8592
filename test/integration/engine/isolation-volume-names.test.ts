/**
 * Issue 35, defect 7, on the real clusters: the operator's static PersistentVolume kept for the
 * victim tenant (labelled for it, of a class no provisioner serves, which the host's volume
 * controller binds by name or by class). An attacker TenantCluster sharing the host namespace
 * names it in a claim's `spec.volumeName` (with its class) and in a Pod's ephemeral volume
 * template: each claim is a Skip naming `spec.volumeName`, no host claim is made, the Pod waits
 * for its claim, and the volume stays unbound, as a uid/resourceVersion snapshot of the host
 * namespace and of the volume shows. The victim, whose policy hands the volume out
 * (`spec.workloads.volumes.volumeNames`), then names it and gets it bound.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { Decision, KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  LABEL,
  pass,
  RUN,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const PV: KindRef = { apiVersion: 'v1', kind: 'PersistentVolume' };
const PV_NAME = `pv-vic-static-${RUN}`;
const CLASS = `vic-static-${RUN}`;
const CLAIM_SPEC = {
  accessModes: ['ReadWriteOnce'],
  resources: { requests: { storage: '1Mi' } },
  storageClassName: CLASS,
  volumeName: PV_NAME,
};

type Spec = Record<string, unknown>;
const claimRefOf = (pv: KubeObject | undefined) => (pv?.spec as Spec | undefined)?.claimRef;
const versionOf = (o: KubeObject | undefined) =>
  `${o?.metadata.uid}@${o?.metadata.resourceVersion}`;

describe('a claim naming a host volume', () => {
  afterAll(async () => {
    const pv = await apis().hostApi.get(PV, undefined, PV_NAME);
    if (pv?.metadata.uid) {
      await apis().hostApi.delete(PV, undefined, PV_NAME, { uid: pv.metadata.uid });
    }
  });

  it('gets no host copy unless the policy hands the volume out: the attacker’s claim and ephemeral template are Skips naming spec.volumeName and the volume stays unbound; the victim’s binds', async () => {
    const { hostApi } = apis();
    const victim = await createTenant(apis(), 'vn-victim', {
      toHost: [CLAIM],
      workloads: { volumes: { volumeNames: [PV_NAME] } },
    });
    const attacker = await createTenant(apis(), 'vn-attacker', {
      toHost: [POD, CLAIM],
      hostNamespace: victim.hostNamespace,
    });
    const hostNs = victim.hostNamespace;
    // The operator's static volume, kept for the victim.
    await hostApi.create({
      ...PV,
      metadata: { name: PV_NAME, labels: { 'tenantplane.io/tenant': victim.name } },
      spec: {
        capacity: { storage: '1Mi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: `/tmp/${PV_NAME}` },
        storageClassName: CLASS,
        persistentVolumeReclaimPolicy: 'Retain',
      },
    });
    await waitFor('the volume Available', async () => {
      const pv = await hostApi.get(PV, undefined, PV_NAME);
      return (pv?.status as { phase?: string } | undefined)?.phase === 'Available' ? pv : undefined;
    });
    const pvBefore = await hostApi.get(PV, undefined, PV_NAME);
    const before = await snapshot(hostNs);

    const ans = attacker.vns.a;
    await attacker.tenantApi.create(
      tenantObject(attacker, CLAIM, ans, 'grab', { spec: CLAIM_SPEC }),
    );
    const template = { metadata: { labels: { [LABEL]: attacker.name } }, spec: CLAIM_SPEC };
    await attacker.tenantApi.create(
      tenantObject(attacker, POD, ans, 'web', {
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'web', image: 'nginx:1' }],
          volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: template } }],
        },
      }),
    );
    // The tenant's own ephemeral-volume controller makes `<pod>-<volume>` from the template.
    await waitFor('the tenant claim web-v', () => attacker.tenantApi.get(CLAIM, ans, 'web-v'));

    for (const n of [1, 2]) {
      const run = await pass(attacker, { full: true });
      expect({ n, errors: run.result.errors }).toEqual({ n, errors: [] });
      for (const name of ['grab', 'web-v']) {
        const skip = run.result.decisions.find(
          (d: Decision) => d.kind === 'PersistentVolumeClaim' && d.tenantRef?.name === name,
        );
        expect({ name, action: skip?.action, reason: skip?.reason }).toEqual({
          name,
          action: 'Skip',
          reason: expect.stringContaining(
            `the claim names the host volume "${PV_NAME}" (spec.volumeName)`,
          ),
        });
        expect(
          await hostApi.get(CLAIM, hostNs, hostName(name, ans, attacker.name)),
        ).toBeUndefined();
      }
      expect(await hostApi.get(POD, hostNs, hostName('web', ans, attacker.name))).toBeUndefined();
    }
    const pvAfter = await hostApi.get(PV, undefined, PV_NAME);
    expect(claimRefOf(pvAfter)).toBeUndefined();
    expect(versionOf(pvAfter)).toBe(versionOf(pvBefore));
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    // The victim, to whom the policy hands the volume, names it and gets it.
    const vns = victim.vns.a;
    await victim.tenantApi.create(tenantObject(victim, CLAIM, vns, 'data', { spec: CLAIM_SPEC }));
    expect((await pass(victim)).result.errors).toEqual([]);
    const copy = hostName('data', vns, victim.name);
    expect(((await hostApi.get(CLAIM, hostNs, copy))?.spec as Spec | undefined)?.volumeName).toBe(
      PV_NAME,
    );
    const bound = await waitFor('the volume bound to the victim’s copy', async () => {
      const pv = await hostApi.get(PV, undefined, PV_NAME);
      const ref = claimRefOf(pv) as { name?: string } | undefined;
      return ref?.name === copy ? pv : undefined;
    });
    expect((claimRefOf(bound) as { namespace?: string }).namespace).toBe(hostNs);
  });
});
