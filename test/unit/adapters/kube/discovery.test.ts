import { describe, expect, it } from '@jest/globals';
import { DiscoveryCache, resourcesByKind } from '../../../../lib/adapters/kube/discovery.js';
import { ClusterError, ClusterErrorReason, isClusterError } from '../../../../lib/ports/index.js';

const SERVER = 'https://10.0.0.1:6443';

const CORE = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'namespaces/status', kind: 'Namespace', namespaced: false },
  ],
};

/** A fake server: serves `documents` by path and records every GET. */
function fakeGet(documents: Record<string, unknown>) {
  const calls: string[] = [];
  const get = async (path: string): Promise<unknown> => {
    calls.push(path);
    if (!(path in documents)) {
      throw new ClusterError(ClusterErrorReason.NotFound, 'the server could not find it', {
        status: 404,
      });
    }
    const document = documents[path];
    if (document instanceof Error) throw document;
    return document;
  };
  return { calls, get };
}

async function failure(promise: Promise<unknown>): Promise<ClusterError> {
  try {
    await promise;
  } catch (error) {
    if (isClusterError(error)) return error;
    throw error;
  }
  throw new Error('expected a ClusterError');
}

describe('resourcesByKind', () => {
  it('maps kinds to their resources, each with its subresources', () => {
    expect(resourcesByKind(CORE)).toEqual(
      new Map([
        ['ConfigMap', { name: 'configmaps', namespaced: true }],
        ['Namespace', { name: 'namespaces', namespaced: false, subresources: ['status'] }],
      ]),
    );
  });

  it('skips malformed entries and bodies', () => {
    expect(resourcesByKind(undefined).size).toBe(0);
    expect(resourcesByKind({ resources: 'x' }).size).toBe(0);
    expect(resourcesByKind({ resources: [null, { name: 'x' }, { kind: 'X' }] }).size).toBe(0);
  });
});

describe('DiscoveryCache', () => {
  it('discovers an apiVersion once and shares it between concurrent callers', async () => {
    const server = fakeGet({ '/api/v1': CORE });
    const cache = new DiscoveryCache(SERVER, server.get);
    const [a, b] = await Promise.all([
      cache.resource({ apiVersion: 'v1', kind: 'ConfigMap' }),
      cache.resource({ apiVersion: 'v1', kind: 'Namespace' }),
    ]);
    expect(a).toEqual({ name: 'configmaps', namespaced: true });
    expect(b).toEqual({ name: 'namespaces', namespaced: false, subresources: ['status'] });
    await cache.resource({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(server.calls).toEqual(['/api/v1']);
  });

  it('looks again once for a kind the cache does not know, then says NotFound', async () => {
    const documents: Record<string, unknown> = {
      '/apis/example.io/v1': { resources: [{ name: 'gadgets', kind: 'Gadget', namespaced: true }] },
    };
    const server = fakeGet(documents);
    const cache = new DiscoveryCache(SERVER, server.get);
    await cache.resource({ apiVersion: 'example.io/v1', kind: 'Gadget' });

    documents['/apis/example.io/v1'] = {
      resources: [
        { name: 'gadgets', kind: 'Gadget', namespaced: true },
        { name: 'widgets', kind: 'Widget', namespaced: false },
      ],
    };
    expect(await cache.resource({ apiVersion: 'example.io/v1', kind: 'Widget' })).toEqual({
      name: 'widgets',
      namespaced: false,
    });
    expect(server.calls).toHaveLength(2);

    const error = await failure(cache.resource({ apiVersion: 'example.io/v1', kind: 'Missing' }));
    expect(error.reason).toBe(ClusterErrorReason.NotFound);
    expect(error.message).toBe(`${SERVER} does not serve kind Missing in example.io/v1`);
    expect(server.calls).toHaveLength(3);
  });

  it('names an apiVersion the server does not serve', async () => {
    const cache = new DiscoveryCache(SERVER, fakeGet({}).get);
    const error = await failure(cache.resource({ apiVersion: 'nope.io/v1', kind: 'Thing' }));
    expect(error.reason).toBe(ClusterErrorReason.NotFound);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`${SERVER} does not serve API version nope.io/v1`);
    expect(isClusterError(error.cause, 'NotFound')).toBe(true);
  });

  it('does not cache a failed discovery', async () => {
    const documents: Record<string, unknown> = {
      '/api/v1': new ClusterError(ClusterErrorReason.Transport, 'cannot reach'),
    };
    const server = fakeGet(documents);
    const cache = new DiscoveryCache(SERVER, server.get);
    const error = await failure(cache.resource({ apiVersion: 'v1', kind: 'ConfigMap' }));
    expect(error.reason).toBe(ClusterErrorReason.Transport);

    documents['/api/v1'] = CORE;
    expect(await cache.resource({ apiVersion: 'v1', kind: 'ConfigMap' })).toEqual({
      name: 'configmaps',
      namespaced: true,
    });
    expect(server.calls).toEqual(['/api/v1', '/api/v1']);
  });
});

describe('DiscoveryCache.namespacedKinds', () => {
  it('lists the namespaced, listable kinds of the core version and each group’s preferred one', async () => {
    const { calls, get } = fakeGet({
      '/api': { kind: 'APIVersions', versions: ['v1'] },
      '/apis': {
        kind: 'APIGroupList',
        groups: [
          {
            name: 'apps',
            versions: [{ groupVersion: 'apps/v1' }, { groupVersion: 'apps/v1beta1' }],
            preferredVersion: { groupVersion: 'apps/v1' },
          },
        ],
      },
      '/api/v1': {
        resources: [
          { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['get', 'list'] },
          { name: 'configmaps/status', kind: 'ConfigMap', namespaced: true, verbs: ['list'] },
          { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['list'] },
          { name: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] },
        ],
      },
      '/apis/apps/v1': {
        resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list'] }],
      },
    });
    const cache = new DiscoveryCache(SERVER, get);
    expect(await cache.namespacedKinds()).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
    ]);
    expect(calls).not.toContain('/apis/apps/v1beta1');
  });

  it('fails when a version’s discovery fails (a kind of it could not be ruled out)', async () => {
    const down = new ClusterError(ClusterErrorReason.Unknown, 'service unavailable', {
      status: 503,
    });
    const { get } = fakeGet({
      '/api': { versions: ['v1'] },
      '/apis': { groups: [{ preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1' } }] },
      '/api/v1': { resources: [] },
      '/apis/metrics.k8s.io/v1beta1': down,
    });
    const error = await failure(new DiscoveryCache(SERVER, get).namespacedKinds());
    expect(error.message).toBe('service unavailable');
  });
});
