/**
 * GC deletes carry uid AND resourceVersion preconditions: a copy adopted by an operator (its
 * managed-by label removed) between the listing and the delete is refused by the server (409),
 * and the pass records a Skip that says so, never retries the delete, and the next pass leaves
 * the adopted object alone.
 */
import { describe, expect, it } from '@jest/globals';
import { Labels, runPass } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hostCopyOf, RecordingSink } from './support.js';

describe('GC preconditions', () => {
  it('a copy adopted between listing and delete is not deleted: 409, a Skip, re-checked next pass', async () => {
    const orphan = hostCopyOf(cm('a', 'gone'));
    let adopted = false;
    const { tenantApi, hostApi } = clusters(
      [cm('a', 'kept')],
      [orphan, hostCopyOf(cm('a', 'kept'))],
      {
        toHost: [CONFIGMAP],
      },
      {
        host: {
          // The operator acts in the window: after the listing, before the delete is served.
          beforeCall: (call, cluster) => {
            if (call.method !== 'delete' || adopted) return;
            adopted = true;
            const current = cluster.peek(CONFIGMAP, HOST_NS, orphan.metadata.name) as KubeObject;
            const labels = { ...current.metadata.labels };
            delete labels[Labels.ManagedBy];
            cluster.replace({ ...current, metadata: { ...current.metadata, labels } });
          },
        },
      },
    );
    const sink = new RecordingSink();
    const first = await runPass({ tenant: 'dev', tenantApi, hostApi, sinks: [sink] });
    expect(hostApi.callsOf('delete').filter((c) => c.kind === 'ConfigMap')).toHaveLength(1);
    expect(first.decisions).toEqual([
      expect.objectContaining({
        action: 'Skip',
        reason: expect.stringContaining('changed after it was listed (409 Conflict'),
      }),
    ]);
    expect(first.errors).toEqual([]);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, orphan.metadata.name)).toBeDefined();

    const second = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(second.decisions).toEqual([]);
    expect(hostApi.callsOf('delete').filter((c) => c.kind === 'ConfigMap')).toHaveLength(1);
    expect(
      hostApi.peek(CONFIGMAP, HOST_NS, orphan.metadata.name)?.metadata.labels,
    ).not.toHaveProperty(Labels.ManagedBy);
  });
});
