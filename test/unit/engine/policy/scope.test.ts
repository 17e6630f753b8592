/**
 * Scope: what a pass never syncs (tenant system namespaces, tenant credentials, the tenant
 * apiserver's own Service) and what a rule's exclusions leave out.
 */
import { describe, expect, it } from '@jest/globals';
import { compileKindRule, isExcluded } from '../../../../lib/engine/index.js';
import { LabelSelectorError } from '../../../../lib/engine/policy/label-selector.js';
import {
  isAlwaysExcluded,
  isSystemNamespace,
  TENANT_SYSTEM_NAMESPACES,
} from '../../../../lib/engine/policy/scope.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

const cm = (namespace: string, name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, ...(labels ? { labels } : {}) },
});

describe('isExcluded', () => {
  const rule = compileKindRule({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    exclude: { namespaces: ['private'], names: ['skip-me'], labelSelector: 'sync=off' },
  });
  const plain = compileKindRule({ apiVersion: 'v1', kind: 'ConfigMap' });

  it.each<[string, KubeObject, boolean]>([
    ['an ordinary object', cm('default', 'app'), false],
    ['an excluded namespace', cm('private', 'app'), true],
    ['an excluded name', cm('default', 'skip-me'), true],
    ['a matching label selector', cm('default', 'app', { sync: 'off' }), true],
    ['a non-matching label selector', cm('default', 'app', { sync: 'on' }), false],
    ['kube-system', cm('kube-system', 'app'), true],
    ['kube-public', cm('kube-public', 'app'), true],
    ['kube-node-lease', cm('kube-node-lease', 'app'), true],
    ['kube-root-ca.crt', cm('default', 'kube-root-ca.crt'), true],
  ])('%s', (_name, object, expected) => {
    expect(isExcluded(rule, object)).toBe(expected);
  });

  it('always excludes service-account token Secrets, never other Secrets', () => {
    const secret = (type: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      type,
      metadata: { namespace: 'default', name: 's' },
    });
    const secrets = compileKindRule({ apiVersion: 'v1', kind: 'Secret' });
    expect(isExcluded(secrets, secret('kubernetes.io/service-account-token'))).toBe(true);
    expect(isExcluded(secrets, secret('Opaque'))).toBe(false);
    expect(isExcluded(plain, cm('default', 'kube-root-ca.crt'))).toBe(true);
  });

  it("always excludes the tenant apiserver's own default/kubernetes Service", () => {
    const services = compileKindRule({ apiVersion: 'v1', kind: 'Service' });
    const svc = (namespace: string, name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace, name },
    });
    expect(isExcluded(services, svc('default', 'kubernetes'))).toBe(true);
    expect(isExcluded(services, svc('team-a', 'kubernetes'))).toBe(false);
    expect(isExcluded(services, svc('default', 'web'))).toBe(false);
  });
});

const object = (
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
  extra: Record<string, unknown> = {},
): KubeObject => ({ apiVersion, kind, metadata: { namespace, name }, ...extra });

describe('isAlwaysExcluded', () => {
  const cases: Array<{ name: string; object: KubeObject; expected: boolean }> = [
    {
      name: 'kube-root-ca.crt in any namespace',
      object: object('v1', 'ConfigMap', 'team-a', 'kube-root-ca.crt'),
      expected: true,
    },
    {
      name: 'an ordinary ConfigMap',
      object: object('v1', 'ConfigMap', 'default', 'settings'),
      expected: false,
    },
    {
      name: 'a ConfigMap named kube-root-ca.crt of another group is not core v1',
      object: object('example.com/v1', 'ConfigMap', 'default', 'kube-root-ca.crt'),
      expected: false,
    },
    {
      name: 'a service-account token Secret',
      object: object('v1', 'Secret', 'default', 'sa-token', {
        type: 'kubernetes.io/service-account-token',
      }),
      expected: true,
    },
    {
      name: 'an Opaque Secret',
      object: object('v1', 'Secret', 'default', 'db', { type: 'Opaque' }),
      expected: false,
    },
    {
      name: 'a Secret without a type',
      object: object('v1', 'Secret', 'default', 'db'),
      expected: false,
    },
    {
      name: 'a Secret named like a token but typed Opaque',
      object: object('v1', 'Secret', 'default', 'default-token-abcde', { type: 'Opaque' }),
      expected: false,
    },
    {
      name: 'the default/kubernetes Service',
      object: object('v1', 'Service', 'default', 'kubernetes'),
      expected: true,
    },
    {
      name: 'the default/kubernetes Endpoints',
      object: object('v1', 'Endpoints', 'default', 'kubernetes'),
      expected: true,
    },
    {
      name: 'a Service named kubernetes elsewhere',
      object: object('v1', 'Service', 'team-a', 'kubernetes'),
      expected: false,
    },
    {
      name: 'another Service in default',
      object: object('v1', 'Service', 'default', 'web'),
      expected: false,
    },
    {
      name: 'a custom kind named kubernetes in default',
      object: object('example.com/v1', 'Widget', 'default', 'kubernetes'),
      expected: false,
    },
  ];
  it.each(cases)('$name -> $expected', ({ object, expected }) => {
    expect(isAlwaysExcluded(object)).toBe(expected);
  });
});

describe('isSystemNamespace', () => {
  it('names exactly the three tenant system namespaces', () => {
    expect([...TENANT_SYSTEM_NAMESPACES].sort()).toEqual([
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
  });

  const cases: Array<{ name: string; namespace: string | undefined; expected: boolean }> = [
    { name: 'kube-system', namespace: 'kube-system', expected: true },
    { name: 'kube-public', namespace: 'kube-public', expected: true },
    { name: 'kube-node-lease', namespace: 'kube-node-lease', expected: true },
    { name: 'default', namespace: 'default', expected: false },
    { name: 'a prefix match is not enough', namespace: 'kube-system-2', expected: false },
    { name: 'an upper-case look-alike', namespace: 'Kube-System', expected: false },
    { name: 'no namespace (cluster-scoped)', namespace: undefined, expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ namespace, expected }) => {
    expect(isSystemNamespace(namespace)).toBe(expected);
  });

  it('excludes any kind in a system namespace, whatever the rule says', () => {
    const widgets = compileKindRule({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(isExcluded(widgets, object('example.com/v1', 'Widget', 'kube-system', 'w'))).toBe(true);
    expect(isExcluded(widgets, object('example.com/v1', 'Widget', 'default', 'w'))).toBe(false);
  });
});

describe('compileKindRule', () => {
  it('prepares the exclusions as sets and parses the selector once', () => {
    const rule = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      exclude: { namespaces: ['a', 'b'], names: ['n'], labelSelector: 'sync=off' },
    };
    const compiled = compileKindRule(rule);
    expect(compiled.rule).toBe(rule);
    expect([...compiled.namespaces]).toEqual(['a', 'b']);
    expect([...compiled.names]).toEqual(['n']);
    expect(compiled.selector).toEqual({
      requirements: [{ key: 'sync', operator: 'Equals', value: 'off' }],
    });
  });

  it('a rule without exclusions excludes nothing of its own', () => {
    const compiled = compileKindRule({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(compiled.namespaces.size).toBe(0);
    expect(compiled.names.size).toBe(0);
    expect(compiled.selector).toBeUndefined();
    expect(isExcluded(compiled, cm('anything', 'anything', { sync: 'off' }))).toBe(false);
  });

  it('a malformed selector is a LabelSelectorError', () => {
    expect(() =>
      compileKindRule({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        exclude: { labelSelector: 'a in (b' },
      }),
    ).toThrow(LabelSelectorError);
  });
});
