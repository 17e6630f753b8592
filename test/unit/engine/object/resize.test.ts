/** An in-place resize, then the update; a host that cannot resize is the Pod's error, in words. */
import { describe, expect, it } from '@jest/globals';
import { resizeThenUpdate } from '../../../../lib/engine/object/resize.js';
import {
  type ClusterApi,
  ClusterError,
  isClusterError,
  type KubeObject,
} from '../../../../lib/ports/index.js';

const POD: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-x-shop-x-dev', namespace: 'tenant-dev', resourceVersion: '7' },
  spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
};

/** A host client that records its writes; `resize` as given (absent: none). */
function host(resize?: (object: KubeObject) => Promise<KubeObject>) {
  const writes: string[] = [];
  const api = {
    update: async (object: KubeObject) => {
      writes.push(`update@${object.metadata.resourceVersion}`);
      return object;
    },
    ...(resize
      ? {
          resize: async (object: KubeObject) => {
            writes.push(`resize@${object.metadata.resourceVersion}`);
            return resize(object);
          },
        }
      : {}),
  } as unknown as ClusterApi;
  return { api, writes };
}

async function failure(run: () => Promise<unknown>): Promise<ClusterError> {
  try {
    await run();
  } catch (error) {
    if (isClusterError(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('resizeThenUpdate', () => {
  it('resizes, then updates on the resized resourceVersion', async () => {
    const { api, writes } = host(async (o) => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: '8' },
    }));
    await resizeThenUpdate(api, POD, POD);
    expect(writes).toEqual(['resize@7', 'update@8']);
  });

  it.each([
    {
      name: 'a client without resize',
      resize: undefined,
      expected:
        /this host client cannot resize a Pod in place \(pods\/resize\); delete the tenant Pod/,
    },
    {
      name: 'a host without the subresource (404)',
      resize: async () => {
        throw new ClusterError('NotFound', 'the server could not find the requested resource', {
          status: 404,
        });
      },
      expected: /the host does not support in-place resize \(pods\/resize\); delete the tenant Pod/,
    },
    {
      name: 'a host that refuses this resize',
      resize: async () => {
        throw new ClusterError('Invalid', 'Pod "web" is invalid: spec: Forbidden: qos class', {
          status: 422,
        });
      },
      expected: /the host refused the in-place resize \(pods\/resize\): Pod "web" is invalid/,
    },
  ])('$name: an error that says so, and no update', async ({ resize, expected }) => {
    const { api, writes } = host(resize);
    const error = await failure(() => resizeThenUpdate(api, POD, POD));
    expect(error.message).toMatch(expected);
    expect(error.message).toMatch(/^the resources of Pod tenant-dev\/web-x-shop-x-dev changed/);
    expect(writes.filter((w) => w.startsWith('update'))).toEqual([]);
  });
});
