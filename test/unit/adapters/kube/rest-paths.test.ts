import { describe, expect, it } from '@jest/globals';
import {
  apiVersionPath,
  bindingPath,
  collectionPath,
  kindLabel,
  listQuery,
  objectPath,
  queryParams,
  type ResourceInfo,
  statusPath,
} from '../../../../lib/adapters/kube/rest-paths.js';
import { ClusterError, ClusterErrorReason } from '../../../../lib/ports/index.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const CONFIGMAPS: ResourceInfo = { name: 'configmaps', namespaced: true };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const NAMESPACES: ResourceInfo = { name: 'namespaces', namespaced: false };
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const DEPLOYMENTS: ResourceInfo = { name: 'deployments', namespaced: true };
const TENANT_CLUSTER = { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' };
const TENANT_CLUSTERS: ResourceInfo = { name: 'tenantclusters', namespaced: false };

function invalid(build: () => unknown): ClusterError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ClusterError);
    expect((error as ClusterError).reason).toBe(ClusterErrorReason.Invalid);
    return error as ClusterError;
  }
  throw new Error('expected an Invalid ClusterError');
}

/** The query string the request plumbing puts on the URL. */
function queryString(options: Parameters<typeof listQuery>[0]): string {
  return new URLSearchParams(queryParams(listQuery(options))).toString();
}

describe('apiVersionPath', () => {
  it('puts the core group under /api and named groups under /apis', () => {
    expect(apiVersionPath('v1')).toBe('/api/v1');
    expect(apiVersionPath('apps/v1')).toBe('/apis/apps/v1');
    expect(apiVersionPath('tenantplane.io/v1alpha1')).toBe('/apis/tenantplane.io/v1alpha1');
  });
});

describe('collectionPath', () => {
  it('builds the namespaced collection of a core kind', () => {
    expect(collectionPath(CONFIGMAP, CONFIGMAPS, 'team-a')).toBe(
      '/api/v1/namespaces/team-a/configmaps',
    );
  });

  it('builds the namespaced collection of a group kind', () => {
    expect(collectionPath(DEPLOYMENT, DEPLOYMENTS, 'team-a')).toBe(
      '/apis/apps/v1/namespaces/team-a/deployments',
    );
  });

  it('ignores the namespace of a cluster-scoped kind, core or group', () => {
    expect(collectionPath(NAMESPACE, NAMESPACES, undefined)).toBe('/api/v1/namespaces');
    expect(collectionPath(NAMESPACE, NAMESPACES, 'team-a')).toBe('/api/v1/namespaces');
    expect(collectionPath(TENANT_CLUSTER, TENANT_CLUSTERS, undefined)).toBe(
      '/apis/tenantplane.io/v1alpha1/tenantclusters',
    );
  });

  it('lists a namespaced kind across all namespaces only when allowed', () => {
    expect(collectionPath(CONFIGMAP, CONFIGMAPS, undefined, true)).toBe('/api/v1/configmaps');
    expect(collectionPath(DEPLOYMENT, DEPLOYMENTS, '', true)).toBe('/apis/apps/v1/deployments');
    const error = invalid(() => collectionPath(CONFIGMAP, CONFIGMAPS, undefined));
    expect(error.message).toBe('v1/ConfigMap is namespaced: a namespace is required');
  });

  it('encodes the namespace', () => {
    expect(collectionPath(CONFIGMAP, CONFIGMAPS, 'a/b c')).toBe(
      '/api/v1/namespaces/a%2Fb%20c/configmaps',
    );
  });
});

describe('objectPath and statusPath', () => {
  it('append the encoded name to the collection', () => {
    expect(objectPath(CONFIGMAP, CONFIGMAPS, 'team-a', 'settings')).toBe(
      '/api/v1/namespaces/team-a/configmaps/settings',
    );
    expect(objectPath(DEPLOYMENT, DEPLOYMENTS, 'team-a', 'web')).toBe(
      '/apis/apps/v1/namespaces/team-a/deployments/web',
    );
    expect(objectPath(NAMESPACE, NAMESPACES, undefined, 'team-a')).toBe(
      '/api/v1/namespaces/team-a',
    );
    expect(objectPath(CONFIGMAP, CONFIGMAPS, 'ns', 'a:b/c')).toBe(
      '/api/v1/namespaces/ns/configmaps/a%3Ab%2Fc',
    );
  });

  it('address the status subresource of namespaced and cluster-scoped objects', () => {
    expect(statusPath(TENANT_CLUSTER, TENANT_CLUSTERS, undefined, 'dev')).toBe(
      '/apis/tenantplane.io/v1alpha1/tenantclusters/dev/status',
    );
    expect(statusPath(DEPLOYMENT, DEPLOYMENTS, 'team-a', 'web')).toBe(
      '/apis/apps/v1/namespaces/team-a/deployments/web/status',
    );
  });

  it('refuse an empty name and a namespaced object without a namespace', () => {
    expect(invalid(() => objectPath(CONFIGMAP, CONFIGMAPS, 'ns', '')).message).toBe(
      'v1/ConfigMap: a name is required',
    );
    expect(invalid(() => statusPath(TENANT_CLUSTER, TENANT_CLUSTERS, undefined, '')).message).toBe(
      'tenantplane.io/v1alpha1/TenantCluster: a name is required',
    );
    invalid(() => objectPath(CONFIGMAP, CONFIGMAPS, undefined, 'settings'));
    invalid(() => statusPath(DEPLOYMENT, DEPLOYMENTS, '', 'web'));
  });

  it('address a Pod’s binding subresource, encoded, and refuse a Pod without a namespace', () => {
    expect(bindingPath('shop', 'web-0')).toBe('/api/v1/namespaces/shop/pods/web-0/binding');
    expect(bindingPath('a b', 'c/d')).toBe('/api/v1/namespaces/a%20b/pods/c%2Fd/binding');
    invalid(() => bindingPath(undefined, 'web'));
    invalid(() => bindingPath('shop', ''));
  });
});

describe('list query', () => {
  it('is empty without options', () => {
    expect(queryString({})).toBe('');
  });

  it('maps limit, continue and the selectors to the server names, encoded', () => {
    expect(
      queryString({
        labelSelector: 'app=web,tier!=db',
        fieldSelector: 'metadata.name=x',
        limit: 50,
        continueToken: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==',
      }),
    ).toBe(
      'labelSelector=app%3Dweb%2Ctier%21%3Ddb&fieldSelector=metadata.name%3Dx&limit=50&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D',
    );
  });

  it('leaves out unset and empty options, and ignores the namespace (it is in the path)', () => {
    expect(queryString({ namespace: 'team-a', limit: 10, continueToken: '' })).toBe('limit=10');
    expect(queryString({ labelSelector: '', continueToken: 'next' })).toBe('continue=next');
  });

  it('keeps a zero limit, which the server reads as no limit', () => {
    expect(queryParams(listQuery({ limit: 0 }))).toEqual([['limit', '0']]);
  });
});

describe('queryParams', () => {
  it('stringifies values in order and drops undefined and empty ones', () => {
    expect(queryParams({ fieldManager: 'tenantplane', a: undefined, b: '', n: 3 })).toEqual([
      ['fieldManager', 'tenantplane'],
      ['n', '3'],
    ]);
    expect(queryParams()).toEqual([]);
  });
});

describe('kindLabel', () => {
  it('names a kind with its apiVersion', () => {
    expect(kindLabel(CONFIGMAP)).toBe('v1/ConfigMap');
    expect(kindLabel(DEPLOYMENT)).toBe('apps/v1/Deployment');
  });
});
