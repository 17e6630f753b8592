/**
 * The realignment's delete (`release.ts`) against a tenant whose garbage collector is simulated:
 * an `Orphan` delete leaves the Service waiting (`orphan` finalizer) until the collector lets it
 * go; a collector that answers frees the name (orphaned); one that does not is overridden by a
 * `Background` delete (forced); a Service changed since it was read is left alone.
 */
import { describe, expect, it } from '@jest/globals';
import { dryRunClient } from '../../../../../lib/engine/context/dry-run.js';
import { releaseService } from '../../../../../lib/engine/kinds/service/release.js';
import {
  type DeleteOptions,
  type DeletePreconditions,
  type KindRef,
  type KubeObject,
  SERVICE,
} from '../../../../../lib/ports/index.js';
import { MemoryCluster } from '../../../fakes/memory-cluster.js';

/** A tenant whose collector lets an orphaning Service go after `collectorPolls` LISTs (never: -1). */
class CollectedCluster extends MemoryCluster {
  private lists = 0;
  /** The propagation each delete of the engine asked for. */
  readonly asked: (string | undefined)[] = [];
  constructor(private readonly collectorPolls: number) {
    super('tenant');
  }

  override async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
    options?: DeleteOptions,
  ): Promise<void> {
    this.asked.push(options?.propagationPolicy);
    const current = this.peek(kind, namespace, name);
    const stale =
      current?.metadata.uid !== preconditions.uid ||
      (preconditions.resourceVersion !== undefined &&
        preconditions.resourceVersion !== current?.metadata.resourceVersion);
    if (options?.propagationPolicy !== 'Orphan' || !current || stale) {
      await super.delete(kind, namespace, name, preconditions, options); // or its Conflict
      return;
    }
    this.seed({
      ...current,
      metadata: { ...current.metadata, deletionTimestamp: 'now', finalizers: ['orphan'] },
    });
  }

  override async list(kind: KindRef, options = {}) {
    const waiting = this.objects(SERVICE).find((s) => s.metadata.deletionTimestamp);
    if (waiting && this.collectorPolls >= 0 && ++this.lists > this.collectorPolls) {
      const { uid = '' } = waiting.metadata;
      await super.delete(SERVICE, waiting.metadata.namespace, waiting.metadata.name, { uid });
    }
    return super.list(kind, options);
  }
}

const web: KubeObject = {
  ...SERVICE,
  metadata: { namespace: 'shop', name: 'web' },
  spec: { ports: [{ port: 80 }] },
};
const timing = { waitMs: 300, pollMs: 10 };

describe('releaseService', () => {
  it.each([
    { name: 'a collector that answers at once', polls: 0, gone: 'orphaned', deletes: ['Orphan'] },
    {
      name: 'a collector that answers after a few looks',
      polls: 3,
      gone: 'orphaned',
      deletes: ['Orphan'],
    },
    {
      name: 'a collector that never answers',
      polls: -1,
      gone: 'forced',
      deletes: ['Orphan', 'Background'],
    },
  ])('$name: the name is free ($gone)', async ({ polls, gone, deletes }) => {
    const api = new CollectedCluster(polls);
    const service = await api.create(web);
    const released = await releaseService(api, service, () => false, timing);
    expect(released).toEqual({ gone });
    expect(api.peek(SERVICE, 'shop', 'web')).toBeUndefined();
    expect(api.asked).toEqual(deletes);
  });

  it('a Service changed since it was read: nothing deleted, the failure returned', async () => {
    const api = new CollectedCluster(0);
    const service = await api.create(web);
    await api.update({ ...service, metadata: { ...service.metadata, labels: { a: 'b' } } });
    const released = await releaseService(api, service, () => false, timing);
    expect(released).toMatchObject({ gone: false, waiting: false });
    expect(api.peek(SERVICE, 'shop', 'web')?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('a dry run (the delete only answered): nothing waits, one look', async () => {
    const api = new CollectedCluster(-1);
    const service = await api.create(web);
    const started = Date.now();
    const released = await releaseService(dryRunClient(api), service, () => false, {
      waitMs: 60_000,
      pollMs: 10,
    });
    expect(released).toEqual({ gone: 'orphaned' });
    expect(api.asked).toEqual([]);
    expect(api.peek(SERVICE, 'shop', 'web')?.metadata.uid).toBe(service.metadata.uid);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a pass stopping: the wait ends at once, and the Service is let go', async () => {
    const api = new CollectedCluster(-1);
    const service = await api.create(web);
    const started = Date.now();
    const released = await releaseService(api, service, () => true, { waitMs: 60_000, pollMs: 10 });
    expect(released).toEqual({ gone: 'forced' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
