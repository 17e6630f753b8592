/**
 * The tenant cluster must not be the host: the same API server (whatever its spelling) is refused
 * on every pass; a tenant listing with objects in the host namespace or copies of this tenant is
 * refused when the tenant cluster's identity is new; a real tenant passes.
 */
import { describe, expect, it } from '@jest/globals';
import { TenantClusterIsHostError } from '../../../../lib/engine/errors.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import { refuseHostAsTenant, serverKey } from '../../../../lib/engine/tenant/host-as-tenant.js';
import type { ClusterApi, KubeObject, ListOptions } from '../../../../lib/ports/index.js';

const policy = parseSyncPolicy('dev', { hostNamespace: 'tenant-dev' });

/** A tenant client that lists `items` (filtered by namespace and label selector) and counts LISTs. */
function lister(items: KubeObject[], server?: string) {
  const calls: ListOptions[] = [];
  const api = {
    ...(server ? { server } : {}),
    list: async (_kind: unknown, options: ListOptions = {}) => {
      calls.push(options);
      const selected = items.filter(
        (o) =>
          (options.namespace === undefined || o.metadata.namespace === options.namespace) &&
          (options.labelSelector === undefined ||
            options.labelSelector.split(',').every((term) => {
              const [k, v] = term.split('=');
              return o.metadata.labels?.[k as string] === v;
            })),
      );
      return { items: selected.slice(0, 1) };
    },
  } as unknown as ClusterApi;
  return { api, calls };
}

const cm = (namespace: string, name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, ...(labels ? { labels } : {}) },
});

const host = { server: 'https://host.example:6443' } as unknown as ClusterApi;

describe('serverKey', () => {
  it.each([
    ['https://Host.Example:443/', 'https://host.example:443'],
    ['https://host.example', 'https://host.example:443'],
    ['https://10.0.0.1:6443', 'https://10.0.0.1:6443'],
    ['https://host.example/k8s/clusters/c-1/', 'https://host.example:443/k8s/clusters/c-1'],
  ])('%s -> %s', (server, key) => {
    expect(serverKey(server)).toBe(key);
  });
});

describe('refuseHostAsTenant', () => {
  it('refuses the same server on every pass, spelled differently, with no request', async () => {
    const { api, calls } = lister([], 'https://HOST.example:6443/');
    await expect(
      refuseHostAsTenant({
        tenant: 'dev',
        policy,
        tenantApi: api,
        hostApi: host,
        newIdentity: false,
      }),
    ).rejects.toThrow(
      new TenantClusterIsHostError(
        'dev',
        'both kubeconfigs name the API server https://host.example:6443',
      ),
    );
    expect(calls).toEqual([]);
  });

  it.each([
    {
      name: 'an object in the host namespace',
      items: [cm('tenant-dev', 'kube-root-ca.crt')],
      evidence:
        "the tenant cluster lists ConfigMap tenant-dev/kube-root-ca.crt, in this tenant's host namespace tenant-dev",
    },
    {
      name: 'a copy of this tenant in an earlier host namespace',
      items: [
        cm('old-ns', 'a-x-web-x-dev', {
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': 'dev',
        }),
      ],
      evidence:
        'the tenant cluster lists ConfigMap old-ns/a-x-web-x-dev, labelled as a host copy of this very tenant (app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=dev); if it is a tenant object, not a host copy, remove those labels from it and the next pass goes on',
    },
  ])('refuses a new tenant cluster whose listing shows $name', async ({ items, evidence }) => {
    const { api } = lister(items, 'https://tenant.example:6443');
    await expect(
      refuseHostAsTenant({
        tenant: 'dev',
        policy,
        tenantApi: api,
        hostApi: host,
        newIdentity: true,
      }),
    ).rejects.toThrow(new TenantClusterIsHostError('dev', evidence));
  });

  it('lets a real tenant cluster through; a known identity costs no request', async () => {
    const real = lister([
      cm('web', 'settings'),
      cm('db', 'other', { 'tenantplane.io/tenant': 'x' }),
    ]);
    await refuseHostAsTenant({
      tenant: 'dev',
      policy,
      tenantApi: real.api,
      hostApi: host,
      newIdentity: true,
    });
    expect(real.calls.map((c) => c.limit)).toEqual([1, 1, 1, 1]);
    const known = lister([cm('tenant-dev', 'x')]);
    await refuseHostAsTenant({
      tenant: 'dev',
      policy,
      tenantApi: known.api,
      hostApi: host,
      newIdentity: false,
    });
    expect(known.calls).toEqual([]);
  });
});
