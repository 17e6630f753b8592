/**
 * The host view a pass holds: large content fields as digests. Apply decides from it exactly as
 * from the whole object, reads the whole copy (one GET) only when a large field differs, and a
 * dry run reads nothing.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { stableJson } from '../../../../lib/common/index.js';
import { runPass } from '../../../../lib/engine/index.js';
import { writeTraits } from '../../../../lib/engine/kinds/registry.js';
import {
  compactHostObject,
  elidedFields,
  INLINE_FIELD_BYTES,
  observedView,
} from '../../../../lib/engine/listing/host-view.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import { planApply } from '../../../../lib/engine/object/apply.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import { CONFIG_MAP, type KubeObject } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { clusters, cm, decisionLines, HOST_NS, hn, hostCopyOf, TENANT } from '../support.js';

const big = (c: string) => ({ payload: c.repeat(INLINE_FIELD_BYTES + 1) });
const source = (data: Record<string, string>) => cm('default', 'big', data);
const sourceRef = {
  tenant: TENANT,
  kind: 'ConfigMap',
  virtualNamespace: 'default',
  virtualName: 'big',
};

describe('compactHostObject', () => {
  it('holds a large content field as a digest and keeps small ones and the metadata', () => {
    const copy: KubeObject = {
      ...hostCopyOf(source(big('a'))),
      immutable: false,
      small: { k: 'v' },
    };
    const view = compactHostObject(copy);
    expect(view.data).toBeUndefined();
    expect(view.immutable).toBe(false);
    expect(view.small).toEqual({ k: 'v' });
    expect(view.metadata).toEqual(copy.metadata);
    expect([...elidedFields(view).keys()]).toEqual(['data']);
    expect(copy.data).toEqual(big('a')); // the listed object is not mutated
  });

  it('holds a Pod with its spec and status whole, however large, without managedFields', () => {
    const env = Array.from({ length: 300 }, (_, i) => ({ name: `V${i}`, value: 'x'.repeat(20) }));
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: HOST_NS, managedFields: [{ manager: 'kubelet' }] },
      spec: { containers: [{ name: 'web', image: 'nginx:1', env }] },
      status: { phase: 'Running', podIP: '10.0.0.7' },
    };
    const view = compactHostObject(pod, 'whole');
    expect(view.spec).toEqual(pod.spec);
    expect(view.status).toEqual(pod.status);
    expect(view.metadata.managedFields).toBeUndefined();
    expect(elidedFields(view).size).toBe(0);
  });

  it('keeps a small object whole', () => {
    const view = compactHostObject(hostCopyOf(cm('default', 'small')));
    expect(view.data).toEqual({ k: 'v' });
    expect(elidedFields(view).size).toBe(0);
  });
});

// The compaction weighs every listed field without printing it when it can; what it decides must
// be exactly what printing it would decide.
describe('compactHostObject weighs a field as its JSON', () => {
  const piece = fc.constantFrom('x', 'abc', '"', '\\', '\n', '\u0001', 'é', '\ud83d', '😀');
  const text = fc.array(piece, { maxLength: 1500 }).map((pieces) => pieces.join(''));
  const content = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 4 }),
    fc.array(fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)), {
      maxLength: 300,
    }),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 40 }),
  );

  it('elides a field exactly when its JSON is over INLINE_FIELD_BYTES', () => {
    fc.assert(
      fc.property(content, (data) => {
        const view = compactHostObject({ ...hostCopyOf(cm('default', 'app')), data });
        const over = stableJson(data).length > INLINE_FIELD_BYTES;
        expect(elidedFields(view).has('data')).toBe(over);
        expect(view.data === undefined).toBe(over);
      }),
      { numRuns: 400 },
    );
  });

  const cases: Array<{ name: string; data: Record<string, string>; elided: boolean }> = [
    {
      name: 'JSON of exactly the bound',
      data: { k: 'x'.repeat(INLINE_FIELD_BYTES - 8) },
      elided: false,
    },
    { name: 'one character over', data: { k: 'x'.repeat(INLINE_FIELD_BYTES - 7) }, elided: true },
    {
      name: 'short text that escapes past the bound',
      data: { k: '\u0001'.repeat(700) },
      elided: true,
    },
    { name: 'escapes that stay under it', data: { k: '"'.repeat(2000) }, elided: false },
  ];
  it.each(cases)('$name -> elided: $elided', ({ data, elided }) => {
    const view = compactHostObject({ ...hostCopyOf(cm('default', 'app')), data });
    expect(stableJson(data).length > INLINE_FIELD_BYTES).toBe(elided);
    expect(elidedFields(view).has('data')).toBe(elided);
  });
});

describe('observedView', () => {
  const desired = (data: Record<string, string>) =>
    toHostObject(source(data), { tenant: TENANT, hostNamespace: HOST_NS });

  it('fills in an equal field and plans exactly as on the whole object', () => {
    const copy = {
      ...hostCopyOf(source(big('a'))),
      metadata: { ...hostCopyOf(source(big('a'))).metadata, uid: 'u', resourceVersion: '3' },
    };
    const { observed, complete } = observedView(desired(big('a')), compactHostObject(copy));
    expect(complete).toBe(true);
    expect(observed?.data).toEqual(big('a'));
    expect(planApply(desired(big('a')), observed, sourceRef, {}, writeTraits(CONFIG_MAP))).toEqual(
      planApply(desired(big('a')), copy, sourceRef, {}, writeTraits(CONFIG_MAP)),
    );
  });

  it('marks a differing field, so the plan is a write of that field', () => {
    const copy = hostCopyOf(source(big('a')));
    const { observed, complete } = observedView(desired(big('b')), compactHostObject(copy));
    expect(complete).toBe(false);
    const plan = planApply(desired(big('b')), observed, sourceRef, {}, writeTraits(CONFIG_MAP));
    expect(plan).toMatchObject({ action: 'Update', changed: ['data'] });
  });

  it('predicts a replacement of an immutable copy from the digest', () => {
    const copy = { ...hostCopyOf(source(big('a'))), immutable: true };
    const want = { ...desired(big('b')), immutable: true };
    const { observed } = observedView(want, compactHostObject(copy));
    expect(planApply(want, observed, sourceRef, {}, writeTraits(CONFIG_MAP))).toMatchObject({
      action: 'Replace',
      fields: ['data'],
    });
  });
});

/** A host controller's label on a copy: an update body keeps it (read by the GET). */
function withHostLabel(copy: KubeObject): KubeObject {
  return {
    ...copy,
    metadata: { ...copy.metadata, labels: { ...copy.metadata.labels, 'host.example/team': 'a' } },
  };
}

describe('a pass over large host copies', () => {
  const configMapGets = (api: MemoryCluster) =>
    api.callsOf('get').filter((c) => c.kind === 'ConfigMap');

  it('makes no GET for an in-sync copy and one GET before updating a changed one', async () => {
    const same = cm('default', 'same', big('s'));
    const changed = cm('default', 'changed', big('n'));
    const { tenantApi, hostApi } = clusters(
      [same, changed],
      [hostCopyOf(same), withHostLabel(hostCopyOf(cm('default', 'changed', big('o'))))],
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });

    expect(result.errors).toEqual([]);
    expect(decisionLines(result.decisions)).toEqual([
      `Update ConfigMap default/changed -> ${hn('default', 'changed')}`,
    ]);
    expect(configMapGets(hostApi).map((c) => c.name)).toEqual([hn('default', 'changed')]);
    const after = hostApi.peek(changed, HOST_NS, hn('default', 'changed'));
    expect(after?.data).toEqual(big('n'));
    expect(after?.metadata.labels?.['host.example/team']).toBe('a');
    expect(after?.metadata.annotations?.[Annotations.AppliedHash]).toBeDefined();

    // The next pass is steady: no GET, no write.
    const again = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(again.decisions).toEqual([]);
    expect(configMapGets(hostApi)).toHaveLength(1);
  });

  it('plans a dry run from the view, without a GET', async () => {
    const changed = cm('default', 'changed', big('n'));
    const { tenantApi, hostApi } = clusters(
      [changed],
      [hostCopyOf(cm('default', 'changed', big('o')))],
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, dryRun: true });
    expect(decisionLines(result.decisions)).toEqual([
      `Update ConfigMap default/changed -> ${hn('default', 'changed')}`,
    ]);
    expect(configMapGets(hostApi)).toEqual([]);
    expect(hostApi.callsOf('update')).toEqual([]);
  });
});
