/** The function's settings for a cluster on EKS: a cluster and its region instead of a secret. */
import { describe, expect, it } from '@jest/globals';
import { readSettings } from '../../../functions/sync/settings.js';

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
