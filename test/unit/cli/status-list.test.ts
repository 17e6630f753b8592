import { describe, expect, it } from '@jest/globals';
import { tenantClusterTable } from '../../../lib/cli/commands/status-list.js';
import type { KubeObject } from '../../../lib/ports/index.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function tenantCluster(name: string, spec: Record<string, unknown>, status?: unknown): KubeObject {
  return {
    apiVersion: 'tenantplane.io/v1alpha1',
    kind: 'TenantCluster',
    metadata: { name, creationTimestamp: '2026-01-01T10:00:00Z' },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

describe('tenantClusterTable', () => {
  it('prints one row per TenantCluster, like kubectl get', () => {
    const table = tenantClusterTable(
      [
        tenantCluster(
          'dev',
          { hostNamespace: 'tenant-dev' },
          {
            lastPass: { finishedAt: '2026-01-01T11:58:00Z', complete: true },
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Converged',
                message: '',
                lastTransitionTime: '',
              },
            ],
          },
        ),
        tenantCluster('fresh', { hostNamespace: 'tenant-fresh', paused: true }),
      ],
      NOW,
    );
    expect(table.split('\n')).toEqual([
      'NAME    HOST NAMESPACE   PAUSED   READY    LAST PASS   COMPLETE   AGE',
      'dev     tenant-dev       false    True     2m          true       2h',
      'fresh   tenant-fresh     true     <none>   <none>      <none>     2h',
      '',
    ]);
  });
});
