import { describe, expect, it } from '@jest/globals';
import { createOrBumpEvent } from '../../../../lib/adapters/events/create-or-bump.js';
import type { EventSpec } from '../../../../lib/adapters/events/event-object.js';
import { ClusterError, ClusterErrorReason, EVENT } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';

const spec: EventSpec = {
  name: 'dev.0123456789abcdef',
  reason: 'Skip',
  type: 'Normal',
  message: 'ConfigMap default/a -> host tenant-dev/a: skipped',
  occurrences: 2,
  annotations: { 'example.com/note': 'x' },
};
const about = { tenant: 'dev', uid: 'tc-uid-1' };
const clock = { now: () => Date.parse('2030-01-01T10:00:00.500Z') };

describe('createOrBumpEvent', () => {
  it('creates the Event, then adds the occurrences of the next write to its count', async () => {
    const host = new MemoryCluster('host');
    expect(await createOrBumpEvent(host, clock, spec, about)).toBe('created');
    expect(await createOrBumpEvent(host, clock, spec, about)).toBe('bumped');
    const [event] = host.objects(EVENT);
    expect(event).toMatchObject({
      metadata: {
        name: spec.name,
        namespace: 'default',
        labels: { 'app.kubernetes.io/managed-by': 'tenantplane', 'tenantplane.io/tenant': 'dev' },
      },
      involvedObject: { kind: 'TenantCluster', name: 'dev', uid: 'tc-uid-1' },
      count: 4,
      lastTimestamp: '2030-01-01T10:00:00Z',
    });
  });

  it('gives up after a second race, and does not retry other errors', async () => {
    const host = new MemoryCluster('host');
    const failCreates = (reason: ClusterErrorReason, message: string) => {
      const calls = { creates: 0 };
      host.clearFailures().failWhen((call) => {
        if (call.method !== 'create') return undefined;
        calls.creates += 1;
        return new ClusterError(reason, message);
      });
      return calls;
    };

    const raced = failCreates(ClusterErrorReason.AlreadyExists, 'events already exists');
    await expect(createOrBumpEvent(host, clock, spec, about)).rejects.toThrow('already exists');
    expect(raced.creates).toBe(2);

    const forbidden = failCreates(ClusterErrorReason.Forbidden, 'events is forbidden');
    await expect(createOrBumpEvent(host, clock, spec, about)).rejects.toThrow('forbidden');
    expect(forbidden.creates).toBe(1);
  });
});
