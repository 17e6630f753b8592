/**
 * Reserved keys at every level of a copy: any `metadata` embedded in a copied object (a template a
 * host controller stamps) loses its labels and annotations under reserved keys, as the copy's own
 * metadata does; nothing else of the content changes, and content as deep as the apiserver takes
 * never overflows the stack.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isReservedKey } from '../../../../lib/engine/names/metadata.js';
import { dropNestedReservedKeys } from '../../../../lib/engine/object/nested-metadata.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

/** Metadata labelled and annotated as another TenantCluster's copy, beside plain keys. */
const SPOOFED = () => ({
  labels: {
    app: 'web',
    'app.kubernetes.io/managed-by': 'tenantplane',
    'tenantplane.io/tenant': 'victim',
    'tenantplane.io/kind': 'PersistentVolumeClaim',
    'x.tenantplane.io/evil': 'yes',
  },
  annotations: {
    note: 'kept',
    'tenantplane.io/virtual-name': 'data',
    'tenantplane.io/virtual-uid': 'victim-uid',
  },
  name: 'kept-too',
});
const CLEAN = { labels: { app: 'web' }, annotations: { note: 'kept' }, name: 'kept-too' };

describe('dropNestedReservedKeys', () => {
  const cases: Array<{ name: string; content: () => unknown; expected: unknown }> = [
    {
      name: 'a template’s metadata',
      content: () => ({ template: { metadata: SPOOFED(), spec: { a: 1 } } }),
      expected: { template: { metadata: CLEAN, spec: { a: 1 } } },
    },
    {
      name: 'metadata in a list, deep down',
      content: () => ({ jobs: [{ x: [{ metadata: SPOOFED() }] }, 'text', 3, null] }),
      expected: { jobs: [{ x: [{ metadata: CLEAN }] }, 'text', 3, null] },
    },
    {
      name: 'metadata inside metadata',
      content: () => ({ metadata: { ...SPOOFED(), template: { metadata: SPOOFED() } } }),
      expected: { metadata: { ...CLEAN, template: { metadata: CLEAN } } },
    },
    {
      name: 'a `metadata` that is no record, or labels that are none: as they are',
      content: () => ({ a: { metadata: 'text' }, b: { metadata: { labels: ['x'] } } }),
      expected: { a: { metadata: 'text' }, b: { metadata: { labels: ['x'] } } },
    },
    {
      name: 'reserved keys elsewhere than labels or annotations of a metadata (a selector): kept',
      content: () => ({ selector: { matchLabels: { 'tenantplane.io/tenant': 'dev' } } }),
      expected: { selector: { matchLabels: { 'tenantplane.io/tenant': 'dev' } } },
    },
    { name: 'a string', content: () => 'metadata', expected: 'metadata' },
  ];
  it.each(cases)('$name', ({ content, expected }) => {
    const value = content();
    dropNestedReservedKeys(value);
    expect(value).toEqual(expected);
  });

  it('never overflows the stack on content as deep as the apiserver takes', () => {
    let deep: Record<string, unknown> = { metadata: SPOOFED() };
    for (let i = 0; i < 20_000; i += 1) deep = { a: deep };
    expect(() => dropNestedReservedKeys(deep)).not.toThrow();
    let inner: unknown = deep;
    while ((inner as { a?: unknown }).a) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual({ metadata: CLEAN });
  });

  it('leaves no reserved key in any embedded labels or annotations (property)', () => {
    const key = fc.oneof(
      fc.constantFrom(
        'tenantplane.io/tenant',
        'app.kubernetes.io/managed-by',
        'A.TenantPlane.io/x',
      ),
      fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8})?$/),
    );
    const meta = fc.record({
      labels: fc.dictionary(key, fc.string()),
      annotations: fc.dictionary(key, fc.string()),
    });
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('spec', 'template', 'x'), tie('node'), { maxKeys: 3 }),
        fc.record({ metadata: meta, spec: tie('node') }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (value) => {
        dropNestedReservedKeys(value);
        const seen: string[] = [];
        JSON.stringify(value, (k, v: unknown) => {
          if (k === 'metadata' && v && typeof v === 'object') {
            const m = v as { labels?: object; annotations?: object };
            seen.push(...Object.keys(m.labels ?? {}), ...Object.keys(m.annotations ?? {}));
          }
          return v;
        });
        expect(seen.filter(isReservedKey)).toEqual([]);
      }),
    );
  });
});

describe('toHostObject: a copy’s embedded metadata', () => {
  it('loses reserved keys at every level; the tenant object is untouched', () => {
    const source: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Blob',
      metadata: { name: 'b', namespace: 'shop', uid: 'u-1' },
      spec: { template: { metadata: SPOOFED(), spec: { image: 'x' } } },
    };
    const before = structuredClone(source);
    const host = toHostObject(source, { tenant: 'dev', hostNamespace: 'tenant-dev' });
    expect(host.spec).toEqual({ template: { metadata: CLEAN, spec: { image: 'x' } } });
    expect(source).toEqual(before);
  });
});
