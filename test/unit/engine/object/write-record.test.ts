/**
 * Writes that stick once: planUpdate tells the host's rewrite of what the engine wrote from an
 * edit by someone else, and a pass against a host that rewrites a field costs one update, once.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import {
  createBody,
  desiredHash,
  planUpdate,
  recordOnly,
  storedHash,
} from '../../../../lib/engine/object/write-record.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hn, hostCopyOf, TENANT } from '../support.js';

const desired = hostCopyOf(cm('default', 'a', { k: 'v', drop: 'x' }));

/** What a host that prunes `data.drop` stores for `object`. */
function pruned(object: KubeObject): KubeObject {
  const copy = structuredClone(object);
  delete (copy.data as Record<string, string>).drop;
  return copy;
}

function annotate(object: KubeObject, annotations: Record<string, string>): KubeObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata.annotations, ...annotations },
    },
  };
}

const withRv = (object: KubeObject) => ({
  ...object,
  metadata: { ...object.metadata, resourceVersion: '5' },
});

describe('digests', () => {
  it('the desired digest ignores the record annotations and key order', () => {
    const reordered = { ...desired, data: { drop: 'x', k: 'v' } };
    expect(desiredHash(reordered)).toBe(desiredHash(desired));
    expect(desiredHash(createBody(desired))).toBe(desiredHash(desired));
    expect(desiredHash({ ...desired, data: { k: 'w' } })).not.toBe(desiredHash(desired));
  });

  it('the stored digest ignores keys host controllers add', () => {
    const labelled = {
      ...desired,
      metadata: { ...desired.metadata, labels: { ...desired.metadata.labels, zone: 'a' } },
    };
    expect(storedHash(labelled, desired)).toBe(storedHash(desired, desired));
    expect(storedHash({ ...desired, data: {} }, desired)).not.toBe(storedHash(desired, desired));
  });
});

describe('planUpdate', () => {
  const applied = { [Annotations.AppliedHash]: desiredHash(desired) };
  const asWritten = withRv(pruned(annotate(desired, applied)));
  const recorded = annotate(asWritten, {
    [Annotations.StoredHash]: storedHash(asWritten, desired),
  });
  const cases: Array<{
    name: string;
    observed: KubeObject;
    expected: Record<string, unknown>;
    expectedStored?: 'observed' | 'none';
  }> = [
    {
      name: 'a copy equal to the desired object (written before digests existed) is in sync',
      observed: withRv(desired),
      expected: { action: 'InSync', normalised: false },
    },
    {
      name: 'the host pruned a field of this desired object: update once, recording how it stored it',
      observed: asWritten,
      expected: { action: 'Update', changed: ['data'] },
      expectedStored: 'observed',
    },
    {
      name: 'the host pruned it again, as recorded: in sync, no write',
      observed: recorded,
      expected: { action: 'InSync', normalised: true },
    },
    {
      name: 'someone changed a key of the recorded copy: update',
      observed: { ...recorded, data: { k: 'edited' } },
      expected: { action: 'Update', changed: ['data'] },
    },
    {
      name: 'someone removed a key of the recorded copy: update',
      observed: { ...recorded, data: {} },
      expected: { action: 'Update', changed: ['data'] },
    },
    {
      name: 'someone removed an engine label: update',
      observed: {
        ...recorded,
        metadata: { ...recorded.metadata, labels: {} },
      },
      expected: { action: 'Update', changed: ['labels', 'data'] },
    },
    {
      name: 'the tenant changed the source: update, and the old stored digest is dropped',
      observed: annotate(recorded, { [Annotations.AppliedHash]: 'an-older-desired' }),
      expected: { action: 'Update', changed: ['data'] },
      expectedStored: 'none',
    },
  ];
  it.each(cases)('$name', ({ observed, expected, expectedStored }) => {
    const plan = planUpdate(desired, observed);
    expect(plan).toMatchObject(expected);
    if (plan.action !== 'Update') return;
    const annotations = plan.body.metadata.annotations ?? {};
    expect(annotations[Annotations.AppliedHash]).toBe(desiredHash(desired));
    expect(plan.body.metadata.resourceVersion).toBe('5');
    if (expectedStored === 'observed')
      expect(annotations[Annotations.StoredHash]).toBe(storedHash(observed, desired));
    if (expectedStored === 'none') expect(annotations).not.toHaveProperty(Annotations.StoredHash);
  });
});

describe('recordOnly', () => {
  it('keeps the named fields as the host has them, top-level and nested', () => {
    const observed = { ...desired, data: { k: 'stored' }, spec: { size: 1, color: 'red' } };
    const body0: KubeObject = { ...desired, spec: { size: 2, color: 'blue' } };
    const plan = {
      action: 'Update' as const,
      body: body0,
      changed: ['data', 'spec'],
      sameDesired: true,
    };
    const body = recordOnly(plan, observed, ['data', 'spec.size', 'spec.missing.deep']);
    expect(body.data).toEqual({ k: 'stored' });
    expect(body.spec).toEqual({ size: 1, color: 'blue' });
    expect(plan.body.data).toEqual(desired.data);
  });
});

describe('a host that rewrites what the engine writes', () => {
  function setup() {
    return clusters(
      [cm('default', 'a', { k: 'v', drop: 'x' })],
      [],
      { toHost: [CONFIGMAP] },
      {
        host: {
          normalize: (o) => {
            if (o.kind === 'ConfigMap' && o.data) delete (o.data as Record<string, string>).drop;
          },
        },
      },
    );
  }

  it('costs one update, then passes are write-free', async () => {
    const { tenantApi, hostApi } = setup();
    const first = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(first.counts.Create).toBe(1);
    const second = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(second.counts).toEqual({ Create: 0, Update: 1, Delete: 0, Skip: 0 });
    for (let i = 0; i < 3; i++) {
      const steady = await runPass({ tenant: TENANT, tenantApi, hostApi });
      expect(steady.decisions).toEqual([]);
      expect(steady.requests.host.writes).toBe(0);
    }
  });

  it('an immutable copy the host rewrites is recorded, never replaced over and over', async () => {
    const { tenantApi, hostApi } = clusters(
      [{ ...cm('default', 'a', { k: 'v', drop: 'x' }), immutable: true }],
      [],
      { toHost: [CONFIGMAP] },
      {
        host: {
          normalize: (o) => {
            if (o.data) delete (o.data as Record<string, string>).drop;
          },
        },
      },
    );
    await runPass({ tenant: TENANT, tenantApi, hostApi });
    const uid = hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a'))?.metadata.uid;
    const second = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(second.counts).toEqual({ Create: 0, Update: 1, Delete: 0, Skip: 0 });
    expect(second.decisions[0]?.reason).toMatch(/recorded as the host's own/);
    expect(second.errors).toEqual([]);
    const steady = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(steady.requests.host.writes).toBe(0);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a'))?.metadata.uid).toBe(uid);
  });

  it('a real edit of the copy by someone else is still repaired by the next full pass', async () => {
    const { tenantApi, hostApi } = setup();
    for (let i = 0; i < 3; i++) await runPass({ tenant: TENANT, tenantApi, hostApi });
    const copy = hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a')) as KubeObject;
    hostApi.replace({ ...copy, data: { k: 'edited' } });
    // Host drift is the full pass's to repair (`--full`, or the resync period); a resumed pass
    // reads only what changed in the tenant.
    const resumed = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(resumed.path).toBe('resumed');
    expect(resumed.counts.Update).toBe(0);
    const repair = await runPass({ tenant: TENANT, tenantApi, hostApi, path: 'full' });
    expect(repair.counts.Update).toBe(1);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a'))?.data).toEqual({ k: 'v' });
    // The repair itself was pruned again: one more update records it, then nothing.
    await runPass({ tenant: TENANT, tenantApi, hostApi });
    const steady = await runPass({ tenant: TENANT, tenantApi, hostApi, path: 'full' });
    expect(steady.requests.host.writes).toBe(0);

    hostApi.replace({
      ...(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a')) as KubeObject),
      data: {},
    });
    const removal = await runPass({ tenant: TENANT, tenantApi, hostApi, path: 'full' });
    expect(removal.counts.Update).toBe(1);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'a'))?.data).toEqual({ k: 'v' });
  });
});
