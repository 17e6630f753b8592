/**
 * The ConfigMap and Secret rooms: what an update can never change, known before any update (an
 * immutable one's content, a Secret's type), so the copy is replaced at once; and the Secret's
 * sensitivity, which keeps the server's message out of every error about one.
 */
import { describe, expect, it } from '@jest/globals';
import { errorText } from '../../../../../lib/engine/context/error-text.js';
import { isSensitiveKind, writeTraits } from '../../../../../lib/engine/kinds/registry.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
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

describe('sensitivity', () => {
  const SECRET = { apiVersion: 'v1', kind: 'Secret' };
  const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

  it('Secrets (their module) and kinds the policy marks are sensitive', () => {
    expect(isSensitiveKind(SECRET)).toBe(true);
    expect(isSensitiveKind(CONFIGMAP)).toBe(false);
    expect(isSensitiveKind({ ...CONFIGMAP, sensitive: true })).toBe(true);
    expect(isSensitiveKind({ apiVersion: 'example.com/v1', kind: 'Secret' })).toBe(false);
  });

  it('an error about a Secret withholds what the server quoted', () => {
    const echoed = new ClusterError('Invalid', 'Secret "x" is invalid: data.password: "hunter2"', {
      status: 422,
      fields: ['data.password'],
    });
    expect(errorText(SECRET, echoed, isSensitiveKind)).not.toContain('hunter2');
    expect(errorText(CONFIGMAP, echoed, isSensitiveKind)).toContain('hunter2');
  });
});
