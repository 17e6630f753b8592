/**
 * A claim naming a host volume (`spec.volumeName`) gets no new copy unless the policy hands that
 * volume out (`spec.workloads.volumes.volumeNames`); then its copy names it. Through a pass: a
 * Skip naming `spec.volumeName`, no host claim; a copy made before keeps its data.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import {
  claimNoRecreate,
  claimVolumeRefusal,
} from '../../../../../lib/engine/kinds/persistent-volume-claim/persistent-volume-claim.js';
import {
  parseWorkloadPolicy,
  type WorkloadPolicy,
} from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn } from '../../support.js';
import { hostOf, tenantObject } from '../support.js';

const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const claim = (spec: Record<string, unknown>) =>
  tenantObject('v1', 'PersistentVolumeClaim', { spec });

function policy(workloads: Record<string, unknown>): WorkloadPolicy {
  const problems: string[] = [];
  const parsed = parseWorkloadPolicy(workloads, problems);
  expect(problems).toEqual([]);
  return parsed;
}

const refusal = (name: string, listed: string) =>
  `the claim names the host volume "${name}" (spec.volumeName), and the host would bind it to that volume whoever it was kept for (an operator's static volume, another tenant's); the policy does not hand it out (spec.workloads.volumes.volumeNames: ${listed}): leave spec.volumeName out and let the storage class provide a volume`;

describe('claimVolumeRefusal: the host volumes a claim may name', () => {
  const cases: Array<{
    name: string;
    spec: Record<string, unknown>;
    workloads?: Record<string, unknown>;
    expected?: string;
  }> = [
    { name: 'no volume named: allowed', spec: { ...base, storageClassName: 'gp3' } },
    { name: 'an empty name is none', spec: { ...base, volumeName: '' } },
    {
      name: 'a volume and its class, no policy: refused',
      spec: { ...base, volumeName: 'pv-vic-static', storageClassName: 'static' },
      expected: refusal('pv-vic-static', 'none'),
    },
    {
      name: 'a volume not listed: refused, naming the list',
      spec: { ...base, volumeName: 'pv-vic-static' },
      workloads: { volumes: { volumeNames: ['pv-dev-data'] } },
      expected: refusal('pv-vic-static', '"pv-dev-data"'),
    },
    {
      name: 'a listed volume: allowed',
      spec: { ...base, volumeName: 'pv-dev-data' },
      workloads: { volumes: { volumeNames: ['pv-dev-data'] } },
    },
  ];
  it.each(cases)('$name', ({ spec, workloads, expected }) => {
    const wl = workloads ? policy(workloads) : undefined;
    expect(claimVolumeRefusal(claim(spec), wl)).toBe(expected);
    expect(claimNoRecreate(claim(spec), wl)).toBe(expected);
  });

  it('the volume is checked before the class', () => {
    expect(
      claimNoRecreate(claim({ ...base, volumeName: 'pv', storageClassName: '' }), undefined),
    ).toBe(refusal('pv', 'none'));
    expect(claimNoRecreate(claim({ ...base, storageClassName: '' }), undefined)).toContain(
      'spec.storageClassName: ""',
    );
  });

  it('a listed volume is named by the copy; any other never reaches the host', () => {
    const allowed = policy({ volumes: { volumeNames: ['pv-dev-data'] } });
    const spec = (o: KubeObject) => o.spec as Record<string, unknown>;
    expect(spec(hostOf(claim({ ...base, volumeName: 'pv-dev-data' }), allowed)).volumeName).toBe(
      'pv-dev-data',
    );
    expect(spec(hostOf(claim({ ...base, volumeName: 'pv-other' }), allowed))).not.toHaveProperty(
      'volumeName',
    );
  });
});

describe('claims naming a host volume, through a pass', () => {
  const tenantClaim = (name: string, volumeName?: string): KubeObject => ({
    ...CLAIM,
    metadata: { namespace: 'shop', name, uid: `uid-${name}` },
    spec: { ...base, storageClassName: 'static', ...(volumeName ? { volumeName } : {}) },
  });

  it('gets no copy (a Skip, no write) unless the policy hands the volume out', async () => {
    const c = clusters([tenantClaim('grab', 'pv-vic-static'), tenantClaim('plain')], [], {
      toHost: [CLAIM],
    });
    const run = () => runPass({ tenant: 'dev', ...c, path: 'full' });
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(decisionLines(first.decisions)).toEqual([
      `Create PersistentVolumeClaim shop/plain -> ${hn('shop', 'plain')}`,
      `Skip PersistentVolumeClaim shop/grab -> ${hn('shop', 'grab')}`,
    ]);
    expect(first.decisions.find((d) => d.tenantRef.name === 'grab')?.reason).toBe(
      refusal('pv-vic-static', 'none'),
    );
    expect(c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'grab'))).toBeUndefined();

    const tc = c.hostApi.peek(
      { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' },
      undefined,
      'dev',
    ) as KubeObject;
    c.hostApi.replace({
      ...tc,
      spec: { ...(tc.spec as object), workloads: { volumes: { volumeNames: ['pv-vic-static'] } } },
    });
    const handed = await run();
    expect(handed.errors).toEqual([]);
    const copy = c.hostApi.peek(CLAIM, HOST_NS, hn('shop', 'grab'));
    expect((copy?.spec as Record<string, unknown> | undefined)?.volumeName).toBe('pv-vic-static');
  });
});
