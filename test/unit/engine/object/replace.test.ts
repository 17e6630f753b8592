/**
 * Replace: which refusals name immutable fields, which changes an update can never express, and
 * how a replacement runs (delete with uid + resourceVersion preconditions, then create), pass by
 * pass on the in-memory fake, which refuses immutable updates like an apiserver.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import {
  immutableFields,
  replaceCopy,
  replacementCause,
  sourceRecreated,
} from '../../../../lib/engine/object/replace.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  SECRET,
  secret,
  TENANT,
} from '../support.js';

const invalid = (message: string) => new ClusterError('Invalid', message, { status: 422 });

describe('immutableFields', () => {
  const cases: Array<{ name: string; error: unknown; expected: string[] | undefined }> = [
    {
      name: 'a ConfigMap with immutable set',
      error: invalid(
        'ConfigMap "a" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      ),
      expected: ['data'],
    },
    {
      name: 'several causes at once',
      error: invalid(
        'ConfigMap "a" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
      ),
      expected: ['immutable', 'data'],
    },
    {
      name: "a Secret's type",
      error: invalid(
        'Secret "s" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      ),
      expected: ['type'],
    },
    {
      name: 'a nested field of a custom resource',
      error: invalid(
        'Gadget.example.com "g" is invalid: spec.size: Invalid value: 3: field is immutable',
      ),
      expected: ['spec.size'],
    },
    {
      name: 'a CEL rule saying the value is immutable, with no field named',
      error: invalid('Value is immutable'),
      expected: ['(unnamed field)'],
    },
    {
      name: 'another 422 (an admission policy)',
      error: invalid('ConfigMaps in this namespace may not carry the key forbidden'),
      expected: undefined,
    },
    {
      name: 'a Forbidden that mentions immutability',
      error: new ClusterError('Forbidden', 'field is immutable'),
      expected: undefined,
    },
    { name: 'a plain error', error: new Error('field is immutable'), expected: undefined },
    { name: 'no error', error: undefined, expected: undefined },
  ];
  it.each(cases)('$name', ({ error, expected }) => {
    expect(immutableFields(error)).toEqual(expected);
  });
});

describe('sourceRecreated and replacementCause', () => {
  it('compares the virtual-uid annotations', () => {
    const old = hostCopyOf(cm('default', 'a', {}, { uid: 'u1' }));
    const recreated = hostCopyOf(cm('default', 'a', {}, { uid: 'u2' }));
    expect(sourceRecreated(recreated, old)).toBe(true);
    expect(sourceRecreated(old, old)).toBe(false);
    const unknown = { ...old, metadata: { ...old.metadata, annotations: {} } };
    expect(sourceRecreated(recreated, unknown)).toBe(false);
  });

  it('says which field forced the replacement and why', () => {
    const source = {
      tenant: TENANT,
      kind: 'Secret',
      virtualNamespace: 'default',
      virtualName: 's',
    };
    expect(replacementCause(source, ['type'], true)).toBe(
      'tenant Secret default/s was recreated and type is immutable on the host copy',
    );
    expect(replacementCause(source, ['data', 'immutable'], false)).toBe(
      'data, immutable are immutable on the host copy and tenant Secret default/s changed it',
    );
  });
});

describe('replaceCopy', () => {
  const observed = {
    ...hostCopyOf(cm('default', 'a')),
    metadata: { ...hostCopyOf(cm('default', 'a')).metadata, uid: 'h1', resourceVersion: '7' },
  };
  const calls: string[] = [];
  const ctx = (failDelete?: unknown, failCreate?: unknown) => ({
    delete: async (copy: KubeObject) => {
      calls.push(`delete ${copy.metadata.uid}@${copy.metadata.resourceVersion}`);
      if (failDelete) throw failDelete;
    },
    create: async () => {
      calls.push('create');
      if (failCreate) throw failCreate;
    },
  });
  const cases: Array<{
    name: string;
    failDelete?: unknown;
    failCreate?: unknown;
    expectedCalls: string[];
    expected: Record<string, unknown>;
  }> = [
    {
      name: 'deletes with the copy it read, then creates',
      expectedCalls: ['delete h1@7', 'create'],
      expected: {
        deleted: { reason: expect.stringMatching(/^replacement: cause/) },
        created: { reason: expect.stringMatching(/created anew/) },
      },
    },
    {
      name: 'a copy changed since it was read (Conflict) is left alone: nothing is created',
      failDelete: new ClusterError('Conflict', 'precondition failed'),
      expectedCalls: ['delete h1@7'],
      expected: { deleted: { error: expect.objectContaining({ reason: 'Conflict' }) } },
    },
    {
      name: 'a copy already gone is simply created',
      failDelete: new ClusterError('NotFound', 'gone'),
      expectedCalls: ['delete h1@7', 'create'],
      expected: { deleted: { alreadyGone: true }, created: {} },
    },
    {
      name: 'a failed create is the Create decision’s error',
      failCreate: new ClusterError('Invalid', 'denied'),
      expectedCalls: ['delete h1@7', 'create'],
      expected: { created: { error: expect.objectContaining({ reason: 'Invalid' }) } },
    },
  ];
  it.each(cases)('$name', async (c) => {
    calls.length = 0;
    const outcome = await replaceCopy(ctx(c.failDelete, c.failCreate), observed, 'cause');
    expect(calls).toEqual(c.expectedCalls);
    expect(outcome).toMatchObject(c.expected);
  });
});

describe('replacement in a pass', () => {
  const immutable = (data: Record<string, string>, uid: string): KubeObject => ({
    ...cm('default', 'cfg', data, { uid }),
    immutable: true,
  });

  it('a recreated immutable ConfigMap converges in one pass: Delete + Create, new data', async () => {
    const { tenantApi, hostApi } = clusters(
      [immutable({ k: 'new' }, 'u2')],
      [hostCopyOf(immutable({ k: 'old' }, 'u1'))],
      { toHost: [CONFIGMAP] },
    );
    const old = hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'cfg'));
    const result = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      `Create ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
      `Delete ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
    ]);
    expect(result.decisions.map((d) => d.reason)).toEqual([
      expect.stringMatching(
        /^replacement: tenant ConfigMap default\/cfg was recreated and data is immutable/,
      ),
      expect.stringMatching(/^replacement: .*created anew/),
    ]);
    expect(result.errors).toEqual([]);
    expect(result.counts).toEqual({ Create: 1, Update: 0, Delete: 1, Skip: 0 });
    // Two writes, no refused update first: the change was predicted.
    expect(result.requests.host.writes).toBe(2);
    expect(hostApi.callsOf('update')).toEqual([]);
    const now = hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'cfg'));
    expect(now?.data).toEqual({ k: 'new' });
    expect(now?.metadata.uid).not.toBe(old?.metadata.uid);
    expect(now?.metadata.annotations?.[Annotations.VirtualUid]).toBe('u2');
    expect(hostApi.callsOf('delete')).toHaveLength(1);

    const again = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
    expect(again.decisions).toEqual([]);
    expect(again.requests.host.writes).toBe(0);
  });

  it('a Secret whose type changed is replaced', async () => {
    const { tenantApi, hostApi } = clusters(
      [secret('default', 's', 'kubernetes.io/basic-auth')],
      [hostCopyOf(secret('default', 's', 'Opaque'))],
      { toHost: [SECRET] },
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      `Create Secret default/s -> ${hn('default', 's')}`,
      `Delete Secret default/s -> ${hn('default', 's')}`,
    ]);
    expect(result.decisions[0]?.reason).toMatch(/type is immutable/);
    expect(hostApi.peek(SECRET, HOST_NS, hn('default', 's'))?.type).toBe(
      'kubernetes.io/basic-auth',
    );
  });

  it('an update the host refuses as immutable (not predicted) is followed by the replacement', async () => {
    // A mutable copy, but the host refuses updates of its data (a CEL rule, say).
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'cfg', { k: 'new' })],
      [hostCopyOf(cm('default', 'cfg', { k: 'old' }))],
      { toHost: [CONFIGMAP] },
    );
    hostApi.failWhen((call) =>
      call.method === 'update'
        ? invalid('ConfigMap "x" is invalid: data: Invalid value: "k": field is immutable')
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      `Create ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
      `Delete ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
    ]);
    expect(result.decisions[0]?.reason).toMatch(
      /the host refused the update because data is immutable/,
    );
    expect(result.requests.host.writes).toBe(3);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'cfg'))?.data).toEqual({ k: 'new' });
  });

  it('with no budget left for the replacement, the next pass replaces at once', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'cfg', { k: 'new' })],
      [hostCopyOf(cm('default', 'cfg', { k: 'old' }))],
      { toHost: [CONFIGMAP] },
    );
    hostApi.failWhen((call) =>
      call.method === 'update'
        ? invalid('ConfigMap "x" is invalid: data: field is immutable')
        : undefined,
    );
    const first = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 1 } });
    expect(first.failed?.Update).toBe(1);
    const second = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 2 } });
    expect(decisionLines(second.decisions)).toEqual([
      `Create ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
      `Delete ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
    ]);
    expect(hostApi.callsOf('update')).toHaveLength(1);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('default', 'cfg'))?.data).toEqual({ k: 'new' });
  });

  it('never replaces an object the engine does not own', async () => {
    const foreign: KubeObject = {
      ...CONFIGMAP,
      metadata: { namespace: HOST_NS, name: hn('default', 'cfg') },
      immutable: true,
      data: { k: 'theirs' },
    };
    const { tenantApi, hostApi } = clusters([immutable({ k: 'mine' }, 'u2')], [foreign], {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      `Skip ConfigMap default/cfg -> ${hn('default', 'cfg')}`,
    ]);
    // The lease the status write was made under aside.
    expect(hostApi.callsOf('delete').filter((c) => c.kind !== 'Lease')).toEqual([]);
  });

  it('a dry run reports the replacement and writes nothing', async () => {
    const { tenantApi, hostApi } = clusters(
      [immutable({ k: 'new' }, 'u2')],
      [hostCopyOf(immutable({ k: 'old' }, 'u1'))],
      { toHost: [CONFIGMAP] },
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, dryRun: true });
    expect(result.decisions.map((d) => d.action).sort()).toEqual(['Create', 'Delete']);
    expect(hostApi.requestCount().writes).toBe(0);
  });
});
