/**
 * The pass keeps every listed host object of a kind until GC, so it keeps them compact: without
 * `metadata.managedFields` and `status`. These tests prove that the compact copy keeps everything
 * apply and GC read, and that a pass over host objects carrying managedFields and status decides
 * and writes exactly as before: update bodies carry the host's metadata but neither managedFields
 * nor status, GC deletes with the uid precondition, and an in-sync object is not written.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { listHostObjects } from '../../../../lib/engine/listing/host-listing.js';
import { compactHostObject } from '../../../../lib/engine/listing/host-view.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  passContext,
  TENANT,
} from '../support.js';

const managedFields = [
  {
    manager: 'tenantplane',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2025-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } },
  },
];

/** A host object as the server lists it: server metadata, managedFields and a status. */
function asListed(object: KubeObject, uid: string): KubeObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      uid,
      resourceVersion: '7',
      creationTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['example.com/keep'],
      managedFields,
    },
    status: { phase: 'Whatever', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

describe('compactHostObject', () => {
  it('drops managedFields and status and keeps every other field', () => {
    const listed = asListed(hostCopyOf(cm('default', 'app')), 'host-uid-1');
    const before = structuredClone(listed);
    const compact = compactHostObject(listed);

    expect(compact.metadata.managedFields).toBeUndefined();
    expect('managedFields' in compact.metadata).toBe(false);
    expect('status' in compact).toBe(false);
    const { managedFields: _m, ...metadata } = before.metadata;
    const { status: _s, ...rest } = before;
    expect(compact).toEqual({ ...rest, metadata });
    // The listed object itself is untouched.
    expect(listed).toEqual(before);
  });

  it('keeps an object without managedFields or status as it is', () => {
    const listed = hostCopyOf(cm('default', 'app'));
    expect(compactHostObject(listed)).toEqual(listed);
  });
});

describe('a pass over host objects that carry managedFields and status', () => {
  it('updates, deletes and leaves in-sync objects exactly as without them', async () => {
    const changed = cm('default', 'changed', { k: 'new' });
    const same = cm('default', 'same');
    const gone = cm('default', 'gone');
    const { tenantApi, hostApi } = clusters(
      [changed, same],
      [
        asListed(hostCopyOf(cm('default', 'changed', { k: 'old' })), 'uid-changed'),
        asListed(hostCopyOf(same), 'uid-same'),
        asListed(hostCopyOf(gone), 'uid-gone'),
      ],
    );
    const sent: KubeObject[] = [];
    const update = hostApi.update.bind(hostApi);
    hostApi.update = async (object) => {
      sent.push(structuredClone(object));
      return update(object);
    };

    const stored = hostApi.peek(changed, HOST_NS, hn('default', 'changed'));
    const result = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });

    expect(result.errors).toEqual([]);
    expect(decisionLines(result.decisions)).toEqual([
      `Delete ConfigMap default/gone -> ${hn('default', 'gone')}`,
      `Update ConfigMap default/changed -> ${hn('default', 'changed')}`,
    ]);
    expect(sent).toHaveLength(1);
    const [body] = sent;
    expect(body?.metadata).toMatchObject({
      name: hn('default', 'changed'),
      namespace: HOST_NS,
      uid: 'uid-changed',
      resourceVersion: stored?.metadata.resourceVersion,
      creationTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['example.com/keep'],
    });
    expect(body?.metadata.managedFields).toBeUndefined();
    expect(body?.status).toBeUndefined();
    expect(body?.data).toEqual({ k: 'new' });
    expect(hostApi.callsOf('delete').map((c) => c.name)).toEqual([hn('default', 'gone')]);
    expect(hostApi.callsOf('update').map((c) => c.name)).toEqual([hn('default', 'changed')]);
    // The host's own records of the objects the pass did not write are untouched.
    const kept = hostApi.peek(same, HOST_NS, hn('default', 'same'));
    expect(kept?.metadata.managedFields).toEqual(managedFields);
    expect(kept?.status).toBeDefined();
  });
});

describe('listHostObjects', () => {
  const seeded = () =>
    new MemoryCluster('host').seed(
      asListed(hostCopyOf(cm('default', 'a')), 'uid-a'),
      asListed(hostCopyOf(cm('default', 'b')), 'uid-b'),
      asListed(hostCopyOf(cm('default', 'c')), 'uid-c'),
      { ...CONFIGMAP, metadata: { namespace: 'elsewhere', name: 'x' } },
    );

  it('lists every page of the host namespace, compacted', async () => {
    const hostApi = seeded();
    const ctx = passContext({ hostApi, budget: { pageSize: 2 } });
    const objects = await listHostObjects(ctx.scope, CONFIGMAP);
    expect(objects?.map((o) => o.metadata.name)).toEqual([
      hn('default', 'a'),
      hn('default', 'b'),
      hn('default', 'c'),
    ]);
    expect(objects?.every((o) => !('managedFields' in o.metadata) && !('status' in o))).toBe(true);
    expect(hostApi.callsOf('list').map((c) => [c.namespace, c.options?.limit])).toEqual([
      [HOST_NS, 2],
      [HOST_NS, 2],
    ]);
  });

  it('reads the next page before it compacts the current one', async () => {
    const order: string[] = [];
    const listed = (name: string) =>
      new Proxy(asListed(hostCopyOf(cm('default', name)), `uid-${name}`), {
        get(target, field, receiver) {
          if (field === 'metadata') order.push(`compact ${name}`);
          return Reflect.get(target, field, receiver);
        },
      });
    const hostApi = new MemoryCluster('host');
    hostApi.list = async (_kind, options) => {
      const first = options?.continueToken === undefined;
      order.push(first ? 'list' : `list ${options?.continueToken}`);
      // `bytes` as the real client reports it: the page is sized without weighing its items.
      return first
        ? { items: [listed('a'), listed('b')], continueToken: 'page-2', bytes: 1000 }
        : { items: [listed('c')], bytes: 500 };
    };
    const ctx = passContext({ hostApi, budget: { pageSize: 2 } });
    const objects = await listHostObjects(ctx.scope, CONFIGMAP);
    expect(objects?.map((o) => o.metadata.name)).toEqual(
      ['a', 'b', 'c'].map((n) => hn('default', n)),
    );
    expect(order).toEqual(['list', 'list page-2', 'compact a', 'compact b', 'compact c']);
  });

  it('asks for the next page as soon as the client reads its continue token, before this page is parsed', async () => {
    const order: string[] = [];
    const pages: Record<string, { items: KubeObject[]; continueToken?: string }> = {
      first: { items: [asListed(hostCopyOf(cm('default', 'a')), 'uid-a')], continueToken: 'p2' },
      p2: { items: [asListed(hostCopyOf(cm('default', 'b')), 'uid-b')], continueToken: 'p3' },
      p3: { items: [asListed(hostCopyOf(cm('default', 'c')), 'uid-c')] },
    };
    const hostApi = new MemoryCluster('host');
    // Like the real client: the head of the response tells the token, then the page is parsed.
    hostApi.list = async (_kind, options) => {
      const page = pages[options?.continueToken ?? 'first'] as (typeof pages)[string];
      order.push(`list ${options?.continueToken ?? 'first'}`);
      // The answer comes over the network: after the listing took the page it read ahead.
      await new Promise((resolve) => setTimeout(resolve, 5));
      options?.onContinue?.(page.continueToken, 1_000);
      order.push(`parsed ${options?.continueToken ?? 'first'}`);
      return { ...page, bytes: 1_000 };
    };
    const ctx = passContext({ hostApi, budget: { pageSize: 1 } });
    const objects = await listHostObjects(ctx.scope, CONFIGMAP);
    expect(objects?.map((o) => o.metadata.name)).toEqual(
      ['a', 'b', 'c'].map((n) => hn('default', n)),
    );
    expect(order).toEqual([
      'list first',
      'list p2',
      'parsed first',
      'list p3',
      'parsed p2',
      'parsed p3',
    ]);
  });

  it('a token read early that the parsed page contradicts is dropped: the page’s own is read', async () => {
    const asked: string[] = [];
    const hostApi = new MemoryCluster('host');
    hostApi.list = async (_kind, options) => {
      const token = options?.continueToken ?? 'first';
      asked.push(token);
      if (token === 'first') {
        options?.onContinue?.('stale', 1_000);
        return { items: [asListed(hostCopyOf(cm('default', 'a')), 'uid-a')], continueToken: 'p2' };
      }
      return { items: [asListed(hostCopyOf(cm('default', token)), `uid-${token}`)] };
    };
    const ctx = passContext({ hostApi, budget: { pageSize: 1 } });
    const objects = await listHostObjects(ctx.scope, CONFIGMAP);
    expect(objects?.map((o) => o.metadata.name)).toEqual([hn('default', 'a'), hn('default', 'p2')]);
    expect(asked).toEqual(['first', 'stale', 'p2']);
  });

  it('asks for no page early once a bound stopped the pass', async () => {
    const hostApi = new MemoryCluster('host');
    const ctx = passContext({ hostApi, budget: { pageSize: 1 } });
    hostApi.list = async (_kind, options) => {
      ctx.scope.bounds.halt('stopped for the test');
      options?.onContinue?.('p2', 1_000);
      return { items: [asListed(hostCopyOf(cm('default', 'a')), 'uid-a')], continueToken: 'p2' };
    };
    expect(await listHostObjects(ctx.scope, CONFIGMAP)).toBeUndefined();
  });

  it('is undefined when a bound stops the pass between pages', async () => {
    let now = 0;
    const hostApi = seeded();
    hostApi.failWhen(() => {
      now += 1_000;
      return undefined;
    });
    const ctx = passContext({
      hostApi,
      budget: { pageSize: 2, deadline: 1_000 },
      clock: { now: () => now },
    });
    expect(await listHostObjects(ctx.scope, CONFIGMAP)).toBeUndefined();
    expect(hostApi.callsOf('list')).toHaveLength(1);
  });
});
