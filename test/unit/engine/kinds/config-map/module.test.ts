/**
 * The ConfigMap room (and the Secret's, which shares its rule): what an update can never change,
 * known before any update (an immutable one's content, a Secret's type), so the copy is replaced
 * at once.
 */
import { describe, expect, it } from '@jest/globals';
import { writeTraits } from '../../../../../lib/engine/kinds/registry.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { cm, hostCopyOf, secret } from '../../support.js';

describe('the fixed fields of ConfigMaps and Secrets, known before any update', () => {
  const host = (object: KubeObject) => hostCopyOf(object);
  const immutableCm = (data: Record<string, string>) => ({
    ...cm('default', 'a', data),
    immutable: true,
  });
  const cases: Array<{
    name: string;
    desired: KubeObject;
    observed: KubeObject;
    expected: string[];
  }> = [
    {
      name: 'an immutable ConfigMap with new data',
      desired: host(immutableCm({ k: 'new' })),
      observed: host(immutableCm({ k: 'old' })),
      expected: ['data'],
    },
    {
      name: 'an immutable ConfigMap made mutable again',
      desired: host(cm('default', 'a', { k: 'old' })),
      observed: host(immutableCm({ k: 'old' })),
      expected: ['immutable'],
    },
    {
      name: 'an immutable ConfigMap whose labels change only (an update can do that)',
      desired: host({
        ...immutableCm({ k: 'old' }),
        metadata: { ...cm('default', 'a').metadata, labels: { x: 'y' } },
      }),
      observed: host(immutableCm({ k: 'old' })),
      expected: [],
    },
    {
      name: 'a mutable ConfigMap made immutable with new data (an update can do that)',
      desired: host(immutableCm({ k: 'new' })),
      observed: host(cm('default', 'a', { k: 'old' })),
      expected: [],
    },
    {
      name: "a Secret's type",
      desired: host(secret('default', 's', 'kubernetes.io/basic-auth')),
      observed: host(secret('default', 's', 'Opaque')),
      expected: ['type'],
    },
    {
      name: 'a Secret without a type is Opaque',
      desired: host({ ...secret('default', 's'), type: undefined }),
      observed: host(secret('default', 's', 'Opaque')),
      expected: [],
    },
    {
      name: 'another kind: learned from the refusal only',
      desired: { ...host(immutableCm({ k: 'new' })), apiVersion: 'example.com/v1', kind: 'Gadget' },
      observed: {
        ...host(immutableCm({ k: 'old' })),
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
      },
      expected: [],
    },
  ];
  it.each(cases)('$name', ({ desired, observed, expected }) => {
    expect(writeTraits(desired).fixedFields?.(desired, observed) ?? []).toEqual(expected);
  });
});
