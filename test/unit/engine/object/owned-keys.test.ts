/**
 * The engine's own annotations never push a valid tenant object over the host's 256 KiB limit on
 * annotations: the owned-keys list is bounded ("*" for a side too long to list), and a tenant
 * object whose own annotations leave no room is that object's error before any write.
 */
import { describe, expect, it } from '@jest/globals';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import {
  ANNOTATIONS_LIMIT_BYTES,
  annotationBytes,
  OWNED_KEYS_LIST_BYTES,
  ownedKeysOf,
  ownedKeysText,
} from '../../../../lib/engine/object/owned-keys.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import { planUpdate } from '../../../../lib/engine/object/write-record.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { cm, HOST_NS, TENANT } from '../support.js';

const target = { tenant: TENANT, hostNamespace: HOST_NS };
/** `count` distinct keys of about 60 characters (a DNS prefix and a name, as labels allow). */
const longKeys = (count: number, value = 'v') =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `team-${String(i).padStart(5, '0')}.example.com/${'k'.repeat(30)}`,
      value,
    ]),
  );
const withMetadata = (labels: Record<string, string>, annotations: Record<string, string>) => {
  const source = cm('default', 'big');
  return { ...source, metadata: { ...source.metadata, labels, annotations } } as KubeObject;
};

describe('the owned-keys annotation and the host’s annotation limit', () => {
  const cases = [
    {
      name: 'a few keys: both sides listed',
      labels: { app: 'web' },
      annotations: { note: 'n' },
      expected: { labels: ['app'], annotations: ['note'] },
    },
    {
      // 4,200 keys of 60 characters: the plain list alone was about 270 KB, over the limit.
      name: '4,200 long label keys: labels "*", annotations listed',
      labels: longKeys(4_200),
      annotations: { note: 'n' },
      expected: { labels: '*', annotations: ['note'] },
    },
    {
      // 200 keys list in 12 KB (under the list bound), but the values leave less room than that.
      name: 'the tenant’s annotations fill the limit but for 5 KiB: both sides "*"',
      labels: { app: 'web' },
      annotations: longKeys(
        200,
        'x'.repeat(Math.floor((ANNOTATIONS_LIMIT_BYTES - 5 * 1024) / 200) - 60),
      ),
      expected: { labels: '*', annotations: '*' },
    },
  ];
  it.each(cases)('$name', ({ labels, annotations, expected }) => {
    const desired = toHostObject(withMetadata(labels, annotations), target);
    const text = desired.metadata.annotations?.[Annotations.OwnedKeys] ?? '';
    expect(JSON.parse(text)).toEqual(expected);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2 * OWNED_KEYS_LIST_BYTES + 64);
    // With the write record a write adds (two 16-character digests), still under the limit.
    expect(annotationBytes(desired.metadata.annotations) + 100).toBeLessThanOrEqual(
      ANNOTATIONS_LIMIT_BYTES,
    );
    // Read back, every tenant key is owned, "*" or not.
    const owned = ownedKeysOf(desired);
    const ownedLabels = new Set(owned.labels);
    const ownedAnnotations = new Set(owned.annotations);
    expect(Object.keys(labels).filter((k) => !ownedLabels.has(k))).toEqual([]);
    expect(Object.keys(annotations).filter((k) => !ownedAnnotations.has(k))).toEqual([]);
  });

  it('a tenant object whose annotations leave no room for the engine’s is an error, not a write', () => {
    const full = withMetadata({}, { blob: 'x'.repeat(ANNOTATIONS_LIMIT_BYTES - 100) });
    expect(() => toHostObject(full, target)).toThrow(/leaves no room under the host's limit/);
  });

  it('a "*" side still removes a key the tenant removed, and keeps no other', () => {
    const labels = longKeys(4_200);
    const copy = toHostObject(withMetadata(labels, {}), target);
    const [dropped] = Object.keys(labels);
    const fewer = { ...labels };
    delete fewer[dropped as string];
    const desired = toHostObject(withMetadata(fewer, {}), target);
    const plan = planUpdate(desired, copy);
    expect(plan.action).toBe('Update');
    if (plan.action !== 'Update') return;
    expect(plan.body.metadata.labels?.[dropped as string]).toBeUndefined();
    expect(Object.keys(plan.body.metadata.labels ?? {}).length).toBe(
      Object.keys(desired.metadata.labels ?? {}).length,
    );
  });
});

describe('ownedKeysText', () => {
  const cases: { name: string; labels: string[]; annotations: string[] }[] = [
    { name: 'no keys', labels: [], annotations: [] },
    { name: 'a few keys', labels: ['app', 'tier'], annotations: ['note'] },
    { name: 'the same keys the other way round', labels: ['note'], annotations: ['app', 'tier'] },
    { name: 'keys that hold the separators', labels: ['a\u0000b'], annotations: ['c\u0001d'] },
    { name: 'what the separators would mix up', labels: ['a', 'b'], annotations: ['c', 'd'] },
    { name: 'non-ASCII keys', labels: ['ünïcode'], annotations: [] },
  ];

  it.each(cases)('prints $name as JSON.stringify does, each time', ({ labels, annotations }) => {
    const expected = JSON.stringify({ labels, annotations });
    expect(ownedKeysText({ labels, annotations })).toBe(expected);
    // Remembered texts are the same texts.
    expect(ownedKeysText({ labels: [...labels], annotations: [...annotations] })).toBe(expected);
  });

  it('records a side too long to list as "*", remembered or not', () => {
    const labels = Object.keys(longKeys(300));
    const expected = JSON.stringify({ labels: '*', annotations: ['a'] });
    expect(ownedKeysText({ labels, annotations: ['a'] })).toBe(expected);
    expect(ownedKeysText({ labels, annotations: ['a'] })).toBe(expected);
    expect(ownedKeysText({ labels: ['x'], annotations: ['y'] }, true)).toBe(
      JSON.stringify({ labels: '*', annotations: '*' }),
    );
  });
});
