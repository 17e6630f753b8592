import { describe, expect, it } from '@jest/globals';
import { hostObjectEvents, tenantClusterEvents } from '../../../../lib/adapters/events/index.js';
import type { KubeObject, ListOptions } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';

function event(name: string, lastTimestamp: string, hostRef?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name,
      namespace: 'default',
      ...(hostRef ? { annotations: { 'tenantplane.io/host-ref': hostRef } } : {}),
    },
    involvedObject: { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster', name: 'dev' },
    reason: 'Skip',
    message: `about ${name}`,
    lastTimestamp,
  };
}

function recordLists(host: MemoryCluster): ListOptions[] {
  const lists: ListOptions[] = [];
  host.failWhen((call) => {
    if (call.method === 'list') lists.push(call.options ?? {});
    return undefined;
  });
  return lists;
}

describe('tenantClusterEvents', () => {
  it('lists the Events of one TenantCluster, latest first', async () => {
    const host = new MemoryCluster('host').seed(
      event('a', '2030-01-01T10:00:00Z'),
      event('b', '2030-01-01T11:00:00Z'),
    );
    const lists = recordLists(host);
    const events = await tenantClusterEvents(host, 'dev');
    expect(events.map((e) => e.message)).toEqual(['about b', 'about a']);
    expect(lists).toEqual([
      expect.objectContaining({
        namespace: 'default',
        fieldSelector: 'involvedObject.kind=TenantCluster,involvedObject.name=dev',
      }),
    ]);
  });

  it('reads every page', async () => {
    const many = Array.from({ length: 501 }, (_, i) =>
      event(`e${String(i).padStart(3, '0')}`, '2030-01-01T10:00:00Z'),
    );
    const host = new MemoryCluster('host').seed(...many);
    const lists = recordLists(host);
    expect(await tenantClusterEvents(host, 'dev')).toHaveLength(501);
    expect(lists).toHaveLength(2);
  });
});

describe('hostObjectEvents', () => {
  it('keeps the Events about the host object, across TenantClusters', async () => {
    const host = new MemoryCluster('host').seed(
      event('a', '2030-01-01T10:00:00Z', 'tenant-dev/app'),
      event('b', '2030-01-01T11:00:00Z', 'tenant-dev/app-2'),
    );
    const lists = recordLists(host);
    const events = await hostObjectEvents(host, { namespace: 'tenant-dev', name: 'app' });
    expect(events.map((e) => e.message)).toEqual(['about a']);
    expect(lists[0]?.fieldSelector).toBe('involvedObject.kind=TenantCluster');
  });
});
