/** dryRunClient: a dry run's host client answers writes as a successful write would, sends none. */
import { describe, expect, it } from '@jest/globals';
import { dryRunClient } from '../../../../lib/engine/context/dry-run.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm, HOST_NS, hostCopyOf } from '../support.js';

describe('dryRunClient', () => {
  const copy = () => ({
    ...hostCopyOf(cm('default', 'a')),
    metadata: { ...hostCopyOf(cm('default', 'a')).metadata, namespace: HOST_NS },
  });

  it('reads from the cluster it wraps', async () => {
    const host = new MemoryCluster('host').seed(copy());
    const dry = dryRunClient(host);
    const listed = await dry.list(CONFIGMAP, { namespace: HOST_NS });
    expect(listed.items.map((o) => o.metadata.name)).toEqual([copy().metadata.name]);
    expect(await dry.get(CONFIGMAP, HOST_NS, copy().metadata.name)).toBeDefined();
    expect(host.callsOf('list')).toHaveLength(1);
    expect(host.callsOf('get')).toHaveLength(1);
  });

  it.each([
    [
      'create',
      (dry: ReturnType<typeof dryRunClient>) =>
        dry.create({ ...copy(), metadata: { ...copy().metadata, name: 'new' } }),
    ],
    [
      'update',
      (dry: ReturnType<typeof dryRunClient>) => dry.update({ ...copy(), data: { k: 'changed' } }),
    ],
    [
      'delete',
      (dry: ReturnType<typeof dryRunClient>) =>
        dry.delete(CONFIGMAP, HOST_NS, copy().metadata.name, { uid: 'u' }),
    ],
    [
      'patchStatus',
      (dry: ReturnType<typeof dryRunClient>) =>
        dry.patchStatus(CONFIGMAP, HOST_NS, copy().metadata.name, { x: 1 }),
    ],
  ] as const)('answers %s without sending it', async (_method, write) => {
    const host = new MemoryCluster('host').seed(copy());
    const before = host.peek(CONFIGMAP, HOST_NS, copy().metadata.name);
    await write(dryRunClient(host));
    expect(host.requestCount().writes).toBe(0);
    expect(host.calls).toEqual([]);
    expect(host.peek(CONFIGMAP, HOST_NS, copy().metadata.name)).toEqual(before);
    expect(host.peek(CONFIGMAP, HOST_NS, 'new')).toBeUndefined();
  });

  it('answers a create or update with the object as written', async () => {
    const dry = dryRunClient(new MemoryCluster('host'));
    const object = copy();
    expect(await dry.create(object)).toEqual(object);
    expect(await dry.update(object)).toEqual(object);
  });
});
