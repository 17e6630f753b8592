/** A host class's tenant copy, and what an existing tenant class needs to become it. */
import { describe, expect, it } from '@jest/globals';
import {
  classCopy,
  isOurClassCopy,
  planClassCopy,
} from '../../../../lib/engine/classes/class-copy.js';
import { Annotations, HostClassKeys, Labels } from '../../../../lib/engine/names/metadata.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const INGRESS_CLASS = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' };
const OURS = {
  [Labels.ManagedBy]: 'tenantplane',
  [Labels.Tenant]: 'dev',
  [HostClassKeys.FromHost]: 'true',
};

function hostSc(overrides: Partial<KubeObject> = {}, labels: Record<string, string> = {}) {
  return {
    ...SC,
    metadata: {
      name: 'fast',
      uid: 'host-uid',
      resourceVersion: '7',
      creationTimestamp: '2030-01-01T00:00:00Z',
      labels: { tier: 'gold', 'app.kubernetes.io/managed-by': 'Helm', ...labels },
      annotations: {
        'storageclass.kubernetes.io/is-default-class': 'true',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'tenantplane.io/anything': 'x',
      },
      managedFields: [{ manager: 'kubectl' }],
    },
    provisioner: 'csi.example.com',
    parameters: { type: 'ssd' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
    ...overrides,
  } as KubeObject;
}

/** What the tenant stored after the engine wrote `body`: server fields added. */
function stored(body: KubeObject, rv = '100'): KubeObject {
  return { ...body, metadata: { ...body.metadata, uid: 'tenant-uid', resourceVersion: rv } };
}

describe('classCopy', () => {
  it('keeps the name, content, labels and annotations; drops server fields and reserved keys; adds the marks', () => {
    expect(classCopy(hostSc(), SC, 'dev')).toEqual({
      ...SC,
      metadata: {
        name: 'fast',
        labels: { tier: 'gold', ...OURS },
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'csi.example.com',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
    });
  });

  it('takes apiVersion and kind from the rule, never from the listed item', () => {
    const listed = { ...hostSc(), apiVersion: 'v1', kind: 'ConfigMap' };
    expect(classCopy(listed, SC, 'dev')).toMatchObject(SC);
  });
});

describe('isOurClassCopy', () => {
  it.each([
    { name: 'every mark, this tenant', labels: OURS, ours: true },
    { name: 'another tenant', labels: { ...OURS, [Labels.Tenant]: 'prod' }, ours: false },
    {
      name: 'no from-host mark',
      labels: { [Labels.ManagedBy]: 'tenantplane', [Labels.Tenant]: 'dev' },
      ours: false,
    },
    {
      name: 'managed by someone else',
      labels: { ...OURS, [Labels.ManagedBy]: 'Helm' },
      ours: false,
    },
    { name: 'no labels', labels: undefined, ours: false },
  ])('$name: $ours', ({ labels, ours }) => {
    const object = { ...SC, metadata: { name: 'fast', ...(labels ? { labels } : {}) } };
    expect(isOurClassCopy(object, 'dev')).toBe(ours);
  });
});

describe('planClassCopy', () => {
  const desired = classCopy(hostSc(), SC, 'dev');
  const created = planClassCopy(desired, undefined, 'dev');
  if (created.action !== 'Create') throw new Error('expected a Create');
  const copy = stored(created.body);

  it('creates a missing copy, recording what it was made from', () => {
    expect(created.body.metadata.annotations?.[Annotations.AppliedHash]).toMatch(/^[0-9a-f]{16}$/);
    expect(created.body.metadata.resourceVersion).toBeUndefined();
  });

  it.each([
    { name: 'the copy as written', observed: copy },
    {
      name: 'the copy with another resourceVersion and uid (server fields do not count)',
      observed: { ...copy, metadata: { ...copy.metadata, resourceVersion: '200', uid: 'x' } },
    },
  ])('in sync: $name', ({ observed }) => {
    expect(planClassCopy(desired, observed, 'dev')).toEqual({ action: 'InSync' });
  });

  it('never touches a tenant class it did not make', () => {
    const foreign = {
      ...SC,
      metadata: { name: 'fast', uid: 't', resourceVersion: '3' },
      provisioner: 'mine',
    };
    expect(planClassCopy(desired, foreign, 'dev')).toEqual({ action: 'Foreign' });
    const otherTenant = {
      ...copy,
      metadata: { ...copy.metadata, labels: { ...OURS, [Labels.Tenant]: 'prod' } },
    };
    expect(planClassCopy(desired, otherTenant, 'dev')).toEqual({ action: 'Foreign' });
  });

  it.each([
    {
      name: 'a mutable field and a label',
      host: hostSc({ allowVolumeExpansion: false }, { tier: 'silver' }),
      changed: ['labels', 'allowVolumeExpansion'],
    },
    {
      name: 'a field the host class gained',
      host: hostSc({ mountOptions: ['noatime'] }),
      changed: ['mountOptions'],
    },
  ])('updates the copy when the host class changed: $name', ({ host, changed }) => {
    const next = classCopy(host, SC, 'dev');
    const plan = planClassCopy(next, copy, 'dev');
    expect(plan).toMatchObject({ action: 'Update', changed, sameDesired: false });
    if (plan.action !== 'Update') return;
    expect(plan.body.metadata.resourceVersion).toBe('100');
    expect(plan.body.metadata.annotations?.[Annotations.StoredHash]).toBeUndefined();
    expect(plan.body.metadata.annotations?.[Annotations.AppliedHash]).not.toBe(
      copy.metadata.annotations?.[Annotations.AppliedHash],
    );
  });

  it('replaces the copy when a field a class cannot change in place changed', () => {
    const next = classCopy(hostSc({ parameters: { type: 'nvme' } }), SC, 'dev');
    const plan = planClassCopy(next, copy, 'dev');
    expect(plan).toMatchObject({ action: 'Replace', fields: ['parameters'], observed: copy });
    if (plan.action === 'Replace') expect(plan.body.metadata.resourceVersion).toBeUndefined();
  });

  it('replaces an IngressClass whose controller changed (a nested immutable field)', () => {
    const host = (controller: string): KubeObject => ({
      ...INGRESS_CLASS,
      metadata: { name: 'nginx' },
      spec: { controller, parameters: { kind: 'X', name: 'y' } },
    });
    const first = planClassCopy(
      classCopy(host('a.example/one'), INGRESS_CLASS, 'dev'),
      undefined,
      'dev',
    );
    if (first.action !== 'Create') throw new Error('expected a Create');
    const next = classCopy(host('a.example/two'), INGRESS_CLASS, 'dev');
    expect(planClassCopy(next, stored(first.body), 'dev')).toMatchObject({
      action: 'Replace',
      fields: ['spec.controller'],
    });
  });

  it('a tenant that stores the copy otherwise costs one update that records it, then nothing', () => {
    // The tenant apiserver drops a field the host has (version skew).
    const { allowVolumeExpansion: _dropped, ...rest } = copy;
    const normalised = rest as KubeObject;
    const plan = planClassCopy(desired, normalised, 'dev');
    expect(plan).toMatchObject({
      action: 'Update',
      changed: ['allowVolumeExpansion'],
      sameDesired: true,
    });
    if (plan.action !== 'Update') return;
    const recorded = plan.body.metadata.annotations?.[Annotations.StoredHash];
    expect(recorded).toMatch(/^[0-9a-f]{16}$/);
    // Stored again without the field, now with the record: in sync.
    const { allowVolumeExpansion: _again, ...after } = stored(plan.body, '101');
    expect(planClassCopy(desired, after as KubeObject, 'dev')).toEqual({ action: 'InSync' });
    // An edit of the copy in the tenant changes its digest: written again.
    const edited = { ...(after as KubeObject), mountOptions: ['sync'] };
    expect(planClassCopy(desired, edited, 'dev')).toMatchObject({
      action: 'Update',
      sameDesired: true,
    });
  });

  it('an immutable field the tenant stores otherwise is sent as the tenant has it', () => {
    const normalised = { ...copy, reclaimPolicy: 'Retain' };
    const plan = planClassCopy(desired, normalised, 'dev');
    expect(plan).toMatchObject({ action: 'Update', sameDesired: true });
    if (plan.action === 'Update') expect(plan.body.reclaimPolicy).toBe('Retain');
    expect(desired.reclaimPolicy).toBe('Delete');
  });
});
