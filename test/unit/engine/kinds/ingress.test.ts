/** The Ingress translator: backends, TLS Secrets and Secret annotations name the host copies. */
import { describe, expect, it } from '@jest/globals';
import { referencesOf } from '../../../../lib/engine/kinds/registry.js';
import { hostOf, tenantObject } from './support.js';

const backend = (name: string) => ({ service: { name, port: { number: 80 } } });
const ingress = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) =>
  tenantObject('networking.k8s.io/v1', 'Ingress', { spec }, { annotations });

describe('Ingress translator', () => {
  const cases = [
    {
      name: 'default and rule backends, resource backends and TLS secrets renamed; class kept',
      spec: {
        ingressClassName: 'nginx',
        defaultBackend: backend('fallback'),
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
          { hosts: ['x.example.com'] },
        ],
      },
      expected: {
        ingressClassName: 'nginx',
        defaultBackend: backend('fallback-x-shop-x-dev'),
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
          { hosts: ['x.example.com'] },
        ],
      },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(ingress(spec)).spec).toEqual(expected);
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
      name: 'an unrelated annotation is kept',
      key: 'nginx.ingress.kubernetes.io/rewrite-target',
      value: '/',
      expected: '/',
    },
  ];
  it.each(annotations)('Secret annotation, $name', ({ key, value, expected }) => {
    expect(
      hostOf(ingress({ defaultBackend: backend('web') }, { [key]: value })).metadata.annotations?.[
        key
      ],
    ).toBe(expected);
  });

  it('refers to its Services and TLS Secrets, optionally (an Ingress may come first)', () => {
    expect(referencesOf(ingress(cases[0]?.spec ?? {}))).toEqual([
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
