/**
 * The in-sync memo: a warm process compares on a full pass only what changed since a pass found it
 * in sync. The pure memo first (which states hit), then passes on the in-memory clusters: every
 * real change (a tenant edit, host drift, a policy change) still goes the whole way, a dry run
 * neither reads nor fills the memo, and the memo is what leaves the unchanged objects out.
 */
import { describe, expect, it } from '@jest/globals';
import {
  InSyncMemo,
  objectVersion,
  policyDigest,
} from '../../../../lib/engine/context/in-sync-memo.js';
import { runPass } from '../../../../lib/engine/index.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, decisionLines, HOST_NS, hn, TENANT } from '../support.js';

const RULE = { apiVersion: 'v1', kind: 'ConfigMap' };

function object(name: string, uid: string, resourceVersion: string): KubeObject {
  return { ...CONFIGMAP, metadata: { name, uid, resourceVersion } };
}

describe('KindMemo', () => {
  const source = object('a', 'tenant-uid', '10');
  const copy = object('a-x-default-x-dev', 'host-uid', '20');
  const cases: Array<{
    name: string;
    source: KubeObject;
    copies: KubeObject[];
    expected: boolean;
  }> = [
    { name: 'the same two states hit', source, copies: [copy], expected: true },
    {
      name: 'a tenant write (a new resourceVersion) misses',
      source: object('a', 'tenant-uid', '11'),
      copies: [copy],
      expected: false,
    },
    {
      name: 'a recreated tenant object (a new uid) misses',
      source: object('a', 'other-uid', '10'),
      copies: [copy],
      expected: false,
    },
    {
      name: 'a host write misses',
      source,
      copies: [object('a-x-default-x-dev', 'host-uid', '21')],
      expected: false,
    },
    { name: 'a copy gone misses', source, copies: [], expected: false },
    {
      name: 'a copy being deleted misses',
      source,
      copies: [
        {
          ...copy,
          metadata: { ...copy.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' },
        },
      ],
      expected: false,
    },
  ];

  it.each(cases)('$name', (c) => {
    const memo = new InSyncMemo();
    const first = memo.forPass(TENANT, 'policy').kind(RULE);
    first.record('default/a', objectVersion(source), copy);
    first.end(true);
    const byName = new Map(c.copies.map((o) => [o.metadata.name, o]));
    expect(memo.forPass(TENANT, 'policy').kind(RULE).inSync('default/a', c.source, byName)).toBe(
      c.expected,
    );
  });

  it('forgets a tenant’s entries when its policy changes, and no other tenant’s', () => {
    const memo = new InSyncMemo();
    for (const tenant of ['dev', 'prod']) {
      const kind = memo.forPass(tenant, 'policy-1').kind(RULE);
      kind.record('default/a', objectVersion(source), copy);
      kind.end(true);
    }
    expect(memo.size).toBe(2);
    const byName = new Map([[copy.metadata.name, copy]]);
    expect(memo.forPass('dev', 'policy-2').kind(RULE).inSync('default/a', source, byName)).toBe(
      false,
    );
    expect(memo.size).toBe(1);
    expect(memo.forPass('prod', 'policy-1').kind(RULE).inSync('default/a', source, byName)).toBe(
      true,
    );
  });

  it('a complete listing keeps only what it saw in sync; an incomplete one forgets nothing', () => {
    const memo = new InSyncMemo();
    const fill = memo.forPass(TENANT, 'p').kind(RULE);
    fill.record('default/a', objectVersion(source), copy);
    fill.record(
      'default/b',
      { uid: 'uid-b', resourceVersion: '1' },
      object('b-x-default-x-dev', 'host-b', '5'),
    );
    fill.end(true);
    const partial = memo.forPass(TENANT, 'p').kind(RULE);
    partial.inSync('default/a', source, new Map([[copy.metadata.name, copy]]));
    partial.end(false);
    expect(memo.size).toBe(2);
    const complete = memo.forPass(TENANT, 'p').kind(RULE);
    complete.inSync('default/a', source, new Map([[copy.metadata.name, copy]]));
    complete.end(true);
    expect(memo.size).toBe(1);
  });

  it('records nothing for a state without a uid or resourceVersion', () => {
    const memo = new InSyncMemo();
    const kind = memo.forPass(TENANT, 'p').kind(RULE);
    kind.record('default/a', undefined, copy);
    kind.record('default/b', { uid: 'uid-b', resourceVersion: '1' }, object('b', '', '1'));
    kind.end(true);
    expect(memo.size).toBe(0);
  });

  it('the policy digest follows the spec and the tenant API server, not key order', () => {
    const spec = { hostNamespace: 'h', toHost: [RULE] };
    expect(policyDigest(spec, 'https://t')).toBe(
      policyDigest({ toHost: [RULE], hostNamespace: 'h' }, 'https://t'),
    );
    expect(policyDigest(spec, 'https://t')).not.toBe(policyDigest(spec, 'https://u'));
    expect(policyDigest(spec, 'https://t')).not.toBe(
      policyDigest({ ...spec, hostNamespace: 'g' }, 'https://t'),
    );
  });
});

describe('a warm full pass (runPass with a memo)', () => {
  const tenantState = [cm('default', 'a'), cm('default', 'b'), cm('default', 'c')];

  async function warm() {
    const c = clusters(tenantState, []);
    const memo = new InSyncMemo();
    const full = (extra: { dryRun?: boolean; memo?: InSyncMemo } = { memo }) =>
      runPass({ tenant: TENANT, ...c, path: 'full', ...extra });
    // The first pass creates (nothing in sync yet); the second finds all three in sync.
    expect(decisionLines((await full()).decisions)).toHaveLength(3);
    expect((await full()).decisions).toEqual([]);
    expect(memo.size).toBe(3);
    return { ...c, memo, full };
  }

  const copyOf = (hostApi: ReturnType<typeof clusters>['hostApi'], name: string) =>
    hostApi.peek(CONFIGMAP, HOST_NS, hn('default', name)) as KubeObject;

  it('leaves out exactly the unchanged objects: a state Kubernetes cannot make (content changed, resourceVersion kept) goes unseen with the memo and is repaired without it', async () => {
    const { hostApi, full } = await warm();
    const silent = copyOf(hostApi, 'a');
    hostApi.tamper({ ...silent, data: { k: 'edited without a new resourceVersion' } });
    expect((await full()).decisions).toEqual([]);
    const cold = await full({});
    expect(decisionLines(cold.decisions)).toEqual([
      `Update ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
  });

  it('a tenant edit and host drift still go the whole way; the rest stays in the memo', async () => {
    const { tenantApi, hostApi, full, memo } = await warm();
    tenantApi.replace(cm('default', 'b', { k: 'new' }));
    hostApi.replace({ ...copyOf(hostApi, 'c'), data: { k: 'drifted' } });
    const pass = await full();
    expect(decisionLines(pass.decisions)).toEqual([
      `Update ConfigMap default/b -> ${hn('default', 'b')}`,
      `Update ConfigMap default/c -> ${hn('default', 'c')}`,
    ]);
    expect(copyOf(hostApi, 'b').data).toEqual({ k: 'new' });
    expect(copyOf(hostApi, 'c').data).toEqual({ k: 'v' });
    // The updated copies are in sync from the next pass on, and remembered again.
    expect((await full()).decisions).toEqual([]);
    expect(memo.size).toBe(3);
  });

  it('a policy change compares everything again', async () => {
    const { tenantApi, hostApi, full } = await warm();
    tenantApi.replace(cm('default', 'a', { k: 'v' }, { labels: { team: 'shop' } }));
    // Unchanged since: b and c; a is new. Then the policy drops the label key from every copy.
    expect(decisionLines((await full()).decisions)).toEqual([
      `Update ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    hostApi.replace({
      ...tc,
      spec: {
        ...(tc.spec as Record<string, unknown>),
        toHost: [{ ...RULE, exclude: { labelKeys: ['team'] } }],
      },
    });
    const pass = await full();
    expect(pass.errors).toEqual([]);
    expect(decisionLines(pass.decisions)).toEqual([
      `Update ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
    expect(copyOf(hostApi, 'a').metadata.labels?.team).toBeUndefined();
  });

  it('a dry run neither uses nor fills the memo', async () => {
    const { hostApi, full, memo } = await warm();
    const silent = copyOf(hostApi, 'a');
    hostApi.tamper({ ...silent, data: { k: 'edited without a new resourceVersion' } });
    const dry = await full({ dryRun: true, memo });
    expect(decisionLines(dry.decisions)).toEqual([
      `Update ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
    expect(memo.size).toBe(3);
  });
});
