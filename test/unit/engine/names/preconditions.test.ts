/** Deletes name exactly the object read: uid and resourceVersion preconditions, or no request. */
import { describe, expect, it } from '@jest/globals';
import { deleteAsRead } from '../../../../lib/engine/names/preconditions.js';
import type { ClusterApi, DeletePreconditions, KindRef } from '../../../../lib/ports/index.js';
import { CONFIGMAP, HOST_NS } from '../support.js';

type Call = [KindRef, string | undefined, string, DeletePreconditions];

function recorder(): { api: Pick<ClusterApi, 'delete'>; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    api: {
      async delete(kind, namespace, name, preconditions) {
        calls.push([kind, namespace, name, preconditions]);
      },
    },
  };
}

describe('deleteAsRead', () => {
  it('carries the uid and the resourceVersion read, in the object namespace', async () => {
    const { api, calls } = recorder();
    const read = { metadata: { namespace: HOST_NS, name: 'a', uid: 'u1', resourceVersion: '9' } };
    await deleteAsRead(api, CONFIGMAP, read);
    expect(calls).toEqual([[CONFIGMAP, HOST_NS, 'a', { uid: 'u1', resourceVersion: '9' }]]);
  });

  it('carries the uid alone when nothing recorded a resourceVersion; the namespace may be given', async () => {
    const { api, calls } = recorder();
    await deleteAsRead(api, CONFIGMAP, { metadata: { name: 'a', uid: 'u1' } }, 'elsewhere');
    expect(calls).toEqual([[CONFIGMAP, 'elsewhere', 'a', { uid: 'u1' }]]);
  });

  it('refuses an object without a uid, without a request', async () => {
    const { api, calls } = recorder();
    await expect(
      deleteAsRead(api, CONFIGMAP, { metadata: { namespace: HOST_NS, name: 'a' } }),
    ).rejects.toMatchObject({ reason: 'Invalid' });
    expect(calls).toEqual([]);
  });
});
