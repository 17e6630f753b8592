/**
 * The Ingress translator: within the policy's hosts, classes and annotations, no catch-all, no host
 * another Ingress named first; backends, TLS Secrets and Secret annotations name the host copies.
 */
import { describe, expect, it } from '@jest/globals';
import type { IngressHostClaim } from '../../../../../lib/engine/kinds/ingress/facts.js';
import { referencesOf, translate } from '../../../../../lib/engine/kinds/registry.js';
import { parseIsolation } from '../../../../../lib/engine/policy/isolation.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject, translated } from '../support.js';

const backend = (name: string) => ({ service: { name, port: { number: 80 } } });
const ingress = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) =>
  tenantObject('networking.k8s.io/v1', 'Ingress', { spec }, { annotations });
const rule = (host: string, service = 'web') => ({
  host,
  http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend(service) }] },
});

const LIMITS = {
  hostSuffixes: ['.apps.example.com', 'shop.example.com'],
  classes: ['public'],
  annotations: ['nginx.ingress.kubernetes.io/rewrite-target', 'example.com/'],
};

/** The translation under `spec.workloads.ingresses` = `limits`, the host's claims as given. */
function under(
  limits: Record<string, unknown>,
  object: KubeObject,
  claims: ReadonlyMap<string, IngressHostClaim> = new Map(),
  excluded?: (key: string) => boolean,
) {
  const problems: string[] = [];
  const isolation = parseIsolation({ ingresses: limits }, false, problems);
  expect(problems).toEqual([]);
  return translate(object, {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: { isolation },
    ingressHosts: claims,
    ...(excluded ? { excludeKeys: { annotations: excluded } } : {}),
  });
}

function hostUnder(...args: Parameters<typeof under>): KubeObject {
  const result = under(...args);
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host;
}

describe('Ingress translator', () => {
  it('rule backends, resource backends and TLS secrets renamed; an allowed class kept', () => {
    const spec = {
      ingressClassName: 'public',
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: backend('web') },
              {
                path: '/static',
                pathType: 'Prefix',
                backend: {
                  resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'assets' },
                },
              },
            ],
          },
        },
      ],
      tls: [
        { hosts: ['shop.example.com'], secretName: 'shop-tls' },
        { hosts: ['x.apps.example.com'] },
      ],
    };
    expect(hostUnder(LIMITS, ingress(spec)).spec).toEqual({
      ingressClassName: 'public',
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: backend('web-x-shop-x-dev') },
              {
                path: '/static',
                pathType: 'Prefix',
                backend: {
                  resource: {
                    apiGroup: 'k8s.example.com',
                    kind: 'Bucket',
                    name: 'assets-x-shop-x-dev',
                  },
                },
              },
            ],
          },
        },
      ],
      tls: [
        { hosts: ['shop.example.com'], secretName: 'shop-tls-x-shop-x-dev' },
        { hosts: ['x.apps.example.com'] },
      ],
    });
  });

  const annotations = [
    {
      name: 'a name',
      key: 'nginx.ingress.kubernetes.io/auth-secret',
      value: 'basic',
      expected: 'basic-x-shop-x-dev',
    },
    {
      name: 'a namespace/name',
      key: 'nginx.ingress.kubernetes.io/auth-tls-secret',
      value: 'shop/ca',
      expected: 'tenant-dev/ca-x-shop-x-dev',
    },
    {
      name: 'another namespace of the tenant',
      key: 'nginx.ingress.kubernetes.io/auth-tls-secret',
      value: 'certs/ca',
      expected: 'tenant-dev/ca-x-certs-x-dev',
    },
    {
      name: 'an annotation the policy allows is kept',
      key: 'nginx.ingress.kubernetes.io/rewrite-target',
      value: '/',
      expected: '/',
    },
  ];
  it.each(annotations)('Secret annotation, $name', ({ key, value, expected }) => {
    const object = ingress(
      { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      {
        [key]: value,
      },
    );
    expect(hostUnder(LIMITS, object).metadata.annotations?.[key]).toBe(expected);
  });

  const allowed = [
    { name: 'an exact host', spec: { rules: [rule('shop.example.com')] } },
    { name: 'a host under a suffix', spec: { rules: [rule('Web.Apps.Example.com.')] } },
    { name: 'a wildcard under a suffix', spec: { rules: [rule('*.dev.apps.example.com')] } },
    {
      name: 'an annotation under an allowed prefix, one the copy never carries, an excluded one',
      spec: { rules: [rule('a.apps.example.com')] },
      annotations: {
        'example.com/owner': 'team-a',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'tenantplane.io/tenant': 'other',
        'meta.helm.sh/release-name': 'shop',
      },
      excluded: (key: string) => key.startsWith('meta.helm.sh/'),
    },
    {
      name: 'a host this tenant named first, another named later',
      spec: { rules: [rule('a.apps.example.com')] },
      claims: [
        [
          'a.apps.example.com',
          { ours: '2026-01-01T00:00:00Z x', others: '2026-01-02T00:00:00Z y' },
        ],
      ],
    },
    {
      name: 'a host under another’s wildcard that came after this tenant’s copy',
      spec: { rules: [rule('a.apps.example.com')] },
      claims: [
        ['a.apps.example.com', { ours: '2026-01-01T00:00:00Z x' }],
        ['*.apps.example.com', { others: '2026-01-02T00:00:00Z y' }],
      ],
    },
    {
      name: 'a wildcard over another’s plain host (the plain host keeps its traffic)',
      spec: { rules: [rule('*.apps.example.com')] },
      claims: [['a.apps.example.com', { others: '2026-01-01T00:00:00Z y' }]],
    },
  ];
  it.each(allowed)('allowed: $name', ({ spec, annotations: a, excluded, claims }) => {
    const object = ingress({ ingressClassName: 'public', ...spec }, a ?? {});
    const result = under(
      LIMITS,
      object,
      new Map(claims as Array<[string, IngressHostClaim]>),
      excluded,
    );
    expect(result).toEqual({ host: expect.anything() });
  });

  const refused: Array<{
    name: string;
    spec: Record<string, unknown>;
    annotations?: Record<string, string>;
    claims?: Array<[string, IngressHostClaim]>;
    says: string;
  }> = [
    {
      name: 'a host outside the suffixes (another tenant’s site)',
      spec: { ingressClassName: 'public', rules: [rule('bank.example.org')] },
      says: 'spec.rules[0].host "bank.example.org" is not a host the policy allows (spec.workloads.ingresses.hostSuffixes: .apps.example.com, shop.example.com)',
    },
    {
      name: 'the suffix itself is not under it',
      spec: { ingressClassName: 'public', rules: [rule('apps.example.com')] },
      says: 'spec.rules[0].host "apps.example.com" is not a host the policy allows',
    },
    {
      name: 'a TLS host outside the suffixes',
      spec: {
        ingressClassName: 'public',
        rules: [rule('a.apps.example.com')],
        tls: [{ hosts: ['a.apps.example.com', 'login.example.net'], secretName: 'tls' }],
      },
      says: 'spec.tls[0].hosts[1] "login.example.net" is not a host the policy allows',
    },
    {
      name: 'a rule without a host',
      spec: {
        ingressClassName: 'public',
        rules: [rule('a.apps.example.com'), { http: rule('x').http }],
      },
      says: "the rule spec.rules[1] has no host, so it would answer for every host the host's ingress controller serves, other tenants' included; set its host",
    },
    {
      name: 'a default backend',
      spec: { ingressClassName: 'public', defaultBackend: backend('web') },
      says: "spec.defaultBackend would answer for every host the host's ingress controller serves, other tenants' included; write a rule with a host instead",
    },
    {
      name: 'a TLS entry without hosts',
      spec: {
        ingressClassName: 'public',
        rules: [rule('a.apps.example.com')],
        tls: [{ secretName: 'tls' }],
      },
      says: 'the TLS entry spec.tls[0] names no hosts',
    },
    {
      name: 'a foreign class',
      spec: { ingressClassName: 'internal-admin', rules: [rule('a.apps.example.com')] },
      says: 'spec.ingressClassName "internal-admin" is not a class the policy allows (spec.workloads.ingresses.classes: public); the class picks the host controller that serves it',
    },
    {
      name: 'no class while the policy lists classes',
      spec: { rules: [rule('a.apps.example.com')] },
      says: "spec.ingressClassName is not set, so the host's default class would serve it; name one the policy allows (spec.workloads.ingresses.classes: public)",
    },
    {
      name: 'a foreign class by the legacy annotation',
      spec: { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      annotations: { 'kubernetes.io/ingress.class': 'internal' },
      says: 'the annotation kubernetes.io/ingress.class "internal" is not a class the policy allows',
    },
    {
      name: 'an nginx snippet',
      spec: { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      annotations: {
        'nginx.ingress.kubernetes.io/server-snippet':
          'location / { proxy_pass http://169.254.169.254; }',
      },
      says: "the annotation nginx.ingress.kubernetes.io/server-snippet is not one the policy allows on a host Ingress (spec.workloads.ingresses.annotations: nginx.ingress.kubernetes.io/rewrite-target, example.com/); the host's ingress controllers act on annotations with the host's authority",
    },
    {
      name: 'an ALB group',
      spec: { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      annotations: { 'alb.ingress.kubernetes.io/group.name': 'shared' },
      says: 'the annotation alb.ingress.kubernetes.io/group.name is not one the policy allows',
    },
    {
      name: 'a host another Ingress named first',
      spec: { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      claims: [['a.apps.example.com', { others: '2026-01-01T00:00:00Z y' }]],
      says: 'spec.rules[0].host "a.apps.example.com" is already served by another Ingress of the host namespace, which named it first',
    },
    {
      name: 'a host this tenant also names, but named first by another',
      spec: { ingressClassName: 'public', rules: [rule('a.apps.example.com')] },
      claims: [
        [
          'a.apps.example.com',
          { ours: '2026-01-02T00:00:00Z x', others: '2026-01-01T00:00:00Z y' },
        ],
      ],
      says: 'is already served by another Ingress of the host namespace',
    },
    {
      name: 'a TLS host another Ingress named first, case and trailing dot aside',
      spec: {
        ingressClassName: 'public',
        rules: [rule('b.apps.example.com')],
        tls: [{ hosts: ['A.apps.example.com.'] }],
      },
      claims: [['a.apps.example.com', { others: '2026-01-01T00:00:00Z y' }]],
      says: 'spec.tls[0].hosts[0] "A.apps.example.com." is already served',
    },
    {
      name: 'a host another Ingress serves through its wildcard',
      spec: { ingressClassName: 'public', rules: [rule('login.b.apps.example.com')] },
      claims: [['*.b.apps.example.com', { others: '2026-01-01T00:00:00Z y' }]],
      says: 'spec.rules[0].host "login.b.apps.example.com" is already served by another Ingress of the host namespace, through its *.b.apps.example.com, which came first',
    },
  ];
  it.each(refused)('refused, naming the field: $name', ({ spec, annotations: a, claims, says }) => {
    const object = ingress(spec, a ?? {});
    const result = under(LIMITS, object, new Map(claims));
    expect(result).toEqual({ refused: expect.stringContaining(says) });
  });

  it('by default (no knobs): every host refused; no class is the host default class', () => {
    const object = ingress({ rules: [rule('shop.example.com')] });
    expect(under({}, object)).toEqual({
      refused:
        'spec.rules[0].host "shop.example.com" is not a host the policy allows (spec.workloads.ingresses.hostSuffixes: none)',
    });
    expect(under({ hostSuffixes: ['shop.example.com'] }, object)).toEqual({
      host: expect.anything(),
    });
    const classed = ingress({ ingressClassName: 'nginx', rules: [rule('shop.example.com')] });
    expect(under({ hostSuffixes: ['shop.example.com'] }, classed)).toEqual({
      refused: expect.stringContaining('(spec.workloads.ingresses.classes: none)'),
    });
  });

  it('without the host namespace’s Ingresses read, a host cannot be checked: refused', () => {
    const problems: string[] = [];
    const isolation = parseIsolation(
      { ingresses: { hostSuffixes: ['.example.com'] } },
      false,
      problems,
    );
    const object = ingress({ rules: [rule('a.example.com')] });
    expect(
      translate(object, {
        tenant: TENANT,
        hostNamespace: HOST_NAMESPACE,
        workloads: { isolation },
      }),
    ).toEqual({ refused: expect.stringContaining("the host namespace's Ingresses were not read") });
    expect(translated(object)).toEqual({ refused: expect.stringContaining('hostSuffixes: none') });
  });

  it('refers to its Services and TLS Secrets, optionally (an Ingress may come first)', () => {
    const spec = {
      defaultBackend: backend('fallback'),
      rules: [rule('shop.example.com')],
      tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
    };
    expect(referencesOf(ingress(spec))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'fallback',
        path: 'spec.defaultBackend.service',
        optional: true,
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'web',
        path: 'spec.rules[0].http.paths[0].backend.service',
        optional: true,
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        name: 'shop-tls',
        path: 'spec.tls[0].secretName',
        optional: true,
      },
    ]);
  });
});
