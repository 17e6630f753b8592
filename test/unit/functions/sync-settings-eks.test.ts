/**
 * The function's settings for a cluster on EKS (a cluster and its region instead of a secret),
 * and which way each cluster is then reached.
 */
import { describe, expect, it } from '@jest/globals';
import { connectClusters } from '../../../functions/sync/clusters.js';
import { readSettings } from '../../../functions/sync/settings.js';
import type { ClusterApi, KubeconfigText } from '../../../lib/ports/index.js';

const BASE = { TENANT: 'dev', TENANT_KUBECONFIG_SECRET_ID: 'tp/tenants/dev' };

describe('readSettings with an EKS cluster', () => {
  it('reads the host EKS cluster instead of a host secret', () => {
    const settings = readSettings({
      ...BASE,
      HOST_EKS_CLUSTER_NAME: 'host-prod',
      HOST_EKS_REGION: 'eu-west-1',
    });
    expect(settings.hostEks).toEqual({ clusterName: 'host-prod', region: 'eu-west-1' });
    expect(settings.hostSecretId).toBeUndefined();
    expect(settings.tenantSecretId).toBe('tp/tenants/dev');
  });

  it('reads a tenant cluster on EKS', () => {
    const settings = readSettings({
      TENANT: 'dev',
      TENANT_EKS_CLUSTER_NAME: 'dev-tenant',
      TENANT_EKS_REGION: 'us-east-1',
      HOST_KUBECONFIG_SECRET_ID: 'tp/host/dev',
    });
    expect(settings.tenantEks).toEqual({ clusterName: 'dev-tenant', region: 'us-east-1' });
    expect(settings.hostSecretId).toBe('tp/host/dev');
  });

  it.each([
    [
      'neither',
      {},
      'sync function misconfigured: environment variable HOST_KUBECONFIG_SECRET_ID (or HOST_EKS_CLUSTER_NAME) is not set',
    ],
    [
      'both',
      {
        HOST_KUBECONFIG_SECRET_ID: 'tp/host',
        HOST_EKS_CLUSTER_NAME: 'h',
        HOST_EKS_REGION: 'eu-west-1',
      },
      'sync function misconfigured: set HOST_KUBECONFIG_SECRET_ID or HOST_EKS_CLUSTER_NAME, not both',
    ],
    [
      'a cluster without its region',
      { HOST_EKS_CLUSTER_NAME: 'h' },
      'sync function misconfigured: environment variable HOST_EKS_REGION is not set',
    ],
  ])('refuses %s', (_, env, message) => {
    expect(() => readSettings({ ...BASE, ...env })).toThrow(message);
  });
});

describe('connectClusters with an EKS cluster', () => {
  const api = {} as ClusterApi;
  const text: KubeconfigText = { text: 'apiVersion: v1', origin: 'secret tp/host/dev' };

  it.each([
    ['host', { HOST_EKS_CLUSTER_NAME: 'h', HOST_EKS_REGION: 'eu-west-1' }, ['tenant']],
    [
      'tenant',
      {
        TENANT_KUBECONFIG_SECRET_ID: '',
        TENANT_EKS_CLUSTER_NAME: 'h',
        TENANT_EKS_REGION: 'eu-west-1',
        HOST_KUBECONFIG_SECRET_ID: 'tp/host/dev',
      },
      ['host'],
    ],
  ])(
    'reaches the %s cluster through EKS and reads only the other secret',
    async (role, env, loaded) => {
      const settings = readSettings({ ...BASE, ...env });
      const loads: string[] = [];
      const eks: [string, unknown][] = [];
      const source = {
        load: async (r: 'tenant' | 'host') => {
          loads.push(r);
          return text;
        },
      };
      const apis = await connectClusters(
        settings,
        source,
        () => api,
        async (r, cluster) => {
          eks.push([r, cluster]);
          return api;
        },
      );
      expect(apis[role === 'host' ? 'hostApi' : 'tenantApi']).toBe(api);
      expect(loads).toEqual(loaded);
      expect(eks).toEqual([[role, { clusterName: 'h', region: 'eu-west-1' }]]);
    },
  );
});
