/**
 * Retiring copies that lost their reason to exist: a kind that left the policy, a host namespace
 * the tenant left, a deleted TenantCluster. Only this tenant's copies of that kind in that
 * namespace, each delete with uid and resourceVersion preconditions, each one explained.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { retireCopies, retireStale, retireTenant } from '../../../../lib/engine/gc/retire.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import type { Remembered } from '../../../../lib/engine/tenant/lifecycle.js';
import {
  ClusterError,
  type DeletePreconditions,
  type KindRef,
  type KubeObject,
} from '../../../../lib/ports/index.js';
import {
  type FakeCall,
  MemoryCluster,
  type MemoryClusterOptions,
} from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  type PassContextOptions,
  passContext,
  SECRET,
  secret,
  TENANT,
} from '../support.js';

const OLD_NS = 'tenant-dev-old';
const copyIn = (source: KubeObject, hostNamespace: string, tenant = TENANT): KubeObject =>
  toHostObject(source, { tenant, hostNamespace });

const unmanaged: KubeObject = { ...CONFIGMAP, metadata: { namespace: HOST_NS, name: 'mine' } };
const terminating = (source: KubeObject): KubeObject => {
  const copy = hostCopyOf(source);
  copy.metadata.deletionTimestamp = '2030-01-01T00:00:00Z';
  copy.metadata.finalizers = ['host.io/hold'];
  return copy;
};

/** Every host object as `namespace/Kind name`, sorted. */
const hostRefs = (hostApi: MemoryCluster): string[] =>
  hostApi
    .objects()
    .map((o) => `${o.metadata.namespace ?? ''}/${o.kind} ${o.metadata.name}`)
    .sort();

function setup(
  hostState: KubeObject[],
  options: Omit<PassContextOptions, 'hostApi'> & { host?: MemoryClusterOptions } = {},
) {
  const hostApi = new MemoryCluster('host', options.host).seed(...hostState);
  const deletes: Array<{ name: string; preconditions: DeletePreconditions }> = [];
  const original = hostApi.delete.bind(hostApi);
  jest.spyOn(hostApi, 'delete').mockImplementation(async (kind, namespace, name, preconditions) => {
    deletes.push({ name, preconditions });
    return original(kind, namespace, name, preconditions);
  });
  const ctx = passContext({ ...options, hostApi });
  return { hostApi, ctx, deletes };
}

const forbidden = (method: FakeCall['method'], kind: string) => (call: FakeCall) =>
  call.method === method && call.kind === kind
    ? new ClusterError('Forbidden', `${kind} is forbidden`, { status: 403 })
    : undefined;

describe('retireCopies', () => {
  const a = cm('default', 'a');
  const b = cm('apps', 'b');

  interface Case {
    name: string;
    hostState: KubeObject[];
    kind?: KindRef;
    expectedHostState: string[];
    expectedDecisions: string[];
    expectedResult: { clean: boolean; left: number };
    expectedTerminating?: number;
  }
  const CASES: Case[] = [
    {
      name: "deletes only this tenant's copies of the kind in the namespace",
      hostState: [
        hostCopyOf(a),
        hostCopyOf(b),
        hostCopyOf(cm('default', 'p'), 'prod'),
        unmanaged,
        hostCopyOf(secret('default', 's')),
        copyIn(cm('default', 'o'), OLD_NS),
      ],
      expectedHostState: [
        `${HOST_NS}/ConfigMap ${hn('default', 'p', 'prod')}`,
        `${HOST_NS}/ConfigMap mine`,
        `${HOST_NS}/Secret ${hn('default', 's')}`,
        `${OLD_NS}/ConfigMap ${hn('default', 'o')}`,
      ].sort(),
      expectedDecisions: [
        `Delete ConfigMap apps/b -> ${hn('apps', 'b')}`,
        `Delete ConfigMap default/a -> ${hn('default', 'a')}`,
      ],
      expectedResult: { clean: true, left: 0 },
    },
    {
      name: 'terminating copies are counted, not deleted',
      hostState: [terminating(a), hostCopyOf(b)],
      expectedHostState: [`${HOST_NS}/ConfigMap ${hn('default', 'a')}`],
      expectedDecisions: [`Delete ConfigMap apps/b -> ${hn('apps', 'b')}`],
      expectedResult: { clean: false, left: 1 },
      expectedTerminating: 1,
    },
    {
      name: 'nothing to retire is clean',
      hostState: [unmanaged],
      expectedHostState: [`${HOST_NS}/ConfigMap mine`],
      expectedDecisions: [],
      expectedResult: { clean: true, left: 0 },
    },
  ];

  it.each(CASES)(
    '$name',
    async ({
      hostState,
      kind,
      expectedHostState,
      expectedDecisions,
      expectedResult,
      expectedTerminating,
    }) => {
      const { hostApi, ctx, deletes } = setup(hostState);
      const result = await retireCopies(ctx, kind ?? CONFIGMAP, HOST_NS, 'because');
      expect(result).toEqual(expectedResult);
      expect(hostRefs(hostApi)).toEqual(expectedHostState);
      expect(decisionLines(ctx.ledger.recorder.decisions)).toEqual(expectedDecisions);
      expect(ctx.ledger.recorder.decisions.every((d) => d.reason === 'because')).toBe(true);
      expect(ctx.ledger.terminating).toBe(expectedTerminating ?? 0);
      expect(deletes).toHaveLength(expectedDecisions.length);
      expect(ctx.ledger.errors.errors).toEqual([]);
    },
  );

  it('deletes with the uid and resourceVersion it listed', async () => {
    const { hostApi, ctx, deletes } = setup([hostCopyOf(a)]);
    const listed = hostApi.objects(CONFIGMAP)[0] as KubeObject;
    await retireCopies(ctx, CONFIGMAP, HOST_NS, 'because');
    expect(deletes).toEqual([
      {
        name: hn('default', 'a'),
        preconditions: {
          uid: listed.metadata.uid,
          resourceVersion: listed.metadata.resourceVersion,
        },
      },
    ]);
    expect(ctx.ledger.recorder.decisions[0]).toMatchObject({
      action: 'Delete',
      tenantRef: { namespace: 'default', name: 'a' },
      hostRef: { namespace: HOST_NS, name: hn('default', 'a') },
    });
  });

  it('a kind the host does not serve has no copies: clean', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(a)], { host: { installedKinds: [CONFIGMAP] } });
    expect(await retireCopies(ctx, SECRET, HOST_NS, 'because')).toEqual({ clean: true, left: 0 });
    expect(ctx.ledger.errors.errors).toEqual([]);
    expect(hostApi.requestCount().writes).toBe(0);
  });

  it.each([
    ['list', 1, 0],
    ['delete', 1, 1],
  ] as const)(
    'a Forbidden %s names what to grant or the kubectl delete -l',
    async (method, left, decided) => {
      const { hostApi, ctx } = setup([hostCopyOf(a)]);
      hostApi.failWhen(forbidden(method, 'ConfigMap'));
      const result = await retireCopies(ctx, CONFIGMAP, HOST_NS, 'because');
      expect(result).toEqual({ clean: false, left });
      expect(ctx.ledger.errors.errors).toHaveLength(1);
      expect(ctx.ledger.errors.errors[0]?.message).toContain(
        `kubectl delete configmap -n ${HOST_NS} -l app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=${TENANT},tenantplane.io/kind=ConfigMap`,
      );
      expect(ctx.ledger.errors.errors[0]?.message).toContain('grant');
      expect(ctx.ledger.recorder.decisions).toHaveLength(decided);
      expect(hostApi.objects(CONFIGMAP)).toHaveLength(1);
    },
  );

  // A refusal that quotes the copy (an admission policy's messageExpression over oldObject) was
  // embedded raw in the retire hint (issue 20, finding 4). Every path reduces it now.
  const CANARY = 'canary-s3cr3t';
  const quoting =
    (reason: 'Forbidden' | 'Invalid', method: FakeCall['method']) => (call: FakeCall) =>
      call.method === method
        ? new ClusterError(reason, `denied: password is ${CANARY}`, {
            status: reason === 'Forbidden' ? 403 : 422,
          })
        : undefined;
  const sensitiveCases = [
    {
      name: 'a Secret, Forbidden delete',
      kind: SECRET,
      source: secret('default', 's'),
      reason: 'Forbidden',
      method: 'delete',
    },
    {
      name: 'a Secret, Forbidden listing',
      kind: SECRET,
      source: secret('default', 's'),
      reason: 'Forbidden',
      method: 'list',
    },
    {
      name: 'a sensitive ConfigMap, Invalid delete',
      kind: { ...CONFIGMAP, sensitive: true },
      source: a,
      reason: 'Invalid',
      method: 'delete',
    },
    {
      name: 'a sensitive ConfigMap, Forbidden delete',
      kind: { ...CONFIGMAP, sensitive: true },
      source: a,
      reason: 'Forbidden',
      method: 'delete',
    },
  ] as const;
  it.each(sensitiveCases)(
    '$name: the server’s message is withheld from errors and Decisions',
    async ({ kind, source, reason, method }) => {
      const { hostApi, ctx } = setup([hostCopyOf(source)]);
      hostApi.failWhen(quoting(reason, method));
      await retireCopies(ctx, kind, HOST_NS, 'because');
      const recorded = JSON.stringify({
        errors: ctx.ledger.errors.errors,
        decisions: ctx.ledger.recorder.decisions,
      });
      expect(recorded).not.toContain(CANARY);
      expect(recorded).toContain('its message is withheld');
    },
  );

  it('a kind that is not sensitive keeps the server’s words in the hint', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(a)]);
    hostApi.failWhen(quoting('Forbidden', 'delete'));
    await retireCopies(ctx, CONFIGMAP, HOST_NS, 'because');
    expect(ctx.ledger.errors.errors[0]?.message).toContain(`password is ${CANARY}`);
  });

  it('stops at the write budget, leaving the rest', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(a), hostCopyOf(b), hostCopyOf(cm('x', 'c'))], {
      budget: { maxWrites: 1, concurrency: 1 },
    });
    const result = await retireCopies(ctx, CONFIGMAP, HOST_NS, 'because');
    expect(result.clean).toBe(false);
    expect(result.left).toBe(2);
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(2);
    expect(ctx.ledger.recorder.decisions).toHaveLength(1);
  });

  it('a dry run decides but writes nothing', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(a), hostCopyOf(b)], { dryRun: true });
    const result = await retireCopies(ctx, CONFIGMAP, HOST_NS, 'because');
    expect(result).toEqual({ clean: true, left: 0 });
    expect(hostApi.requestCount().writes).toBe(0);
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(2);
    expect(ctx.ledger.recorder.decisions.map((d) => d.dryRun)).toEqual([true, true]);
  });
});

describe('retireStale', () => {
  const policy = parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, toHost: [CONFIGMAP] });

  it('retires a kind that left toHost and forgets it', async () => {
    const { hostApi, ctx } = setup([
      hostCopyOf(cm('default', 'a')),
      hostCopyOf(secret('default', 's')),
    ]);
    const remembered: Remembered = {
      syncedKinds: [CONFIGMAP, SECRET],
      hostNamespaces: [HOST_NS],
      tenantClusterId: 'id-1',
    };
    const next = await retireStale(ctx, policy, remembered);
    expect(next).toEqual({
      syncedKinds: [CONFIGMAP],
      hostNamespaces: [HOST_NS],
      tenantClusterId: 'id-1',
    });
    expect(hostRefs(hostApi)).toEqual([`${HOST_NS}/ConfigMap ${hn('default', 'a')}`]);
    expect(decisionLines(ctx.ledger.recorder.decisions)).toEqual([
      `Delete Secret default/s -> ${hn('default', 's')}`,
    ]);
    expect(ctx.ledger.recorder.decisions[0]?.reason).toMatch(
      /kind Secret \(v1\) left the sync policy/,
    );
  });

  it('a sensitive kind that left toHost is retired with its messages withheld, and stays sensitive while remembered', async () => {
    const { hostApi, ctx } = setup([
      hostCopyOf(cm('default', 'a')),
      hostCopyOf(cm('default', 'b')),
    ]);
    hostApi.failWhen((call) =>
      call.method === 'delete' && call.name === hn('default', 'b')
        ? new ClusterError('Invalid', 'denied: password is canary-s3cr3t', { status: 422 })
        : undefined,
    );
    const secretsOnly = parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, toHost: [SECRET] });
    const next = await retireStale(ctx, secretsOnly, {
      syncedKinds: [{ ...CONFIGMAP, sensitive: true }],
      hostNamespaces: [HOST_NS],
    });
    expect(JSON.stringify(ctx.ledger.recorder.decisions)).not.toContain('canary-s3cr3t');
    expect(next.syncedKinds).toEqual([SECRET, { ...CONFIGMAP, sensitive: true }]);
  });

  it('remembers a kind it could not retire', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(secret('default', 's'))]);
    hostApi.failWhen(forbidden('delete', 'Secret'));
    const next = await retireStale(ctx, policy, {
      syncedKinds: [CONFIGMAP, SECRET],
      hostNamespaces: [HOST_NS],
    });
    expect(next).toEqual({ syncedKinds: [CONFIGMAP, SECRET], hostNamespaces: [HOST_NS] });
    expect(hostApi.objects(SECRET)).toHaveLength(1);
  });

  it('retires every kind from a host namespace the tenant left, and forgets it', async () => {
    const { hostApi, ctx } = setup([
      copyIn(cm('default', 'a'), OLD_NS),
      copyIn(secret('default', 's'), OLD_NS),
      copyIn(cm('default', 'p'), OLD_NS, 'prod'),
      hostCopyOf(cm('default', 'a')),
    ]);
    const next = await retireStale(ctx, policy, {
      syncedKinds: [CONFIGMAP, SECRET],
      hostNamespaces: [OLD_NS, HOST_NS],
    });
    expect(next).toEqual({ syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] });
    expect(hostRefs(hostApi)).toEqual(
      [
        `${HOST_NS}/ConfigMap ${hn('default', 'a')}`,
        `${OLD_NS}/ConfigMap ${hn('default', 'p', 'prod')}`,
      ].sort(),
    );
    const reasons = ctx.ledger.recorder.decisions.map(
      (d) => `${d.kind} ${d.hostRef.namespace} ${d.reason}`,
    );
    expect(reasons).toContain(
      `ConfigMap ${OLD_NS} the host namespace of tenant cluster "${TENANT}" changed from ${OLD_NS} to ${HOST_NS}`,
    );
    expect(reasons.filter((r) => r.startsWith(`Secret ${OLD_NS}`))).toHaveLength(1);
  });

  it('keeps remembering an old namespace that is not clean yet, first (where the lease lives)', async () => {
    const { hostApi, ctx } = setup([copyIn(cm('default', 'a'), OLD_NS)]);
    hostApi.failWhen((call) =>
      call.method === 'delete' && call.namespace === OLD_NS
        ? new ClusterError('Forbidden', 'no', { status: 403 })
        : undefined,
    );
    const next = await retireStale(ctx, policy, {
      syncedKinds: [CONFIGMAP],
      hostNamespaces: [OLD_NS, HOST_NS],
    });
    expect(next.hostNamespaces).toEqual([OLD_NS, HOST_NS]);
  });

  it('adds the current namespace after the remembered ones, and forgets a clean old one', async () => {
    const { ctx } = setup([copyIn(cm('default', 'a'), OLD_NS), hostCopyOf(cm('default', 'a'))]);
    const kept = await retireStale(ctx, policy, {
      syncedKinds: [CONFIGMAP],
      hostNamespaces: ['elsewhere', OLD_NS],
    });
    expect(kept.hostNamespaces).toEqual([HOST_NS]);
  });
});

describe('retireTenant', () => {
  const policy = parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, toHost: [CONFIGMAP] });
  const remembered: Remembered = { syncedKinds: [SECRET], hostNamespaces: [OLD_NS, HOST_NS] };

  it('deletes every copy of every remembered kind in every remembered namespace', async () => {
    const { hostApi, ctx } = setup([
      hostCopyOf(cm('default', 'a')),
      hostCopyOf(secret('default', 's')),
      copyIn(cm('default', 'o'), OLD_NS),
      hostCopyOf(cm('default', 'a'), 'prod'),
      unmanaged,
    ]);
    expect(await retireTenant(ctx, policy, remembered)).toEqual({ clean: true, left: 0 });
    expect(hostRefs(hostApi)).toEqual(
      [`${HOST_NS}/ConfigMap ${hn('default', 'a', 'prod')}`, `${HOST_NS}/ConfigMap mine`].sort(),
    );
    expect(ctx.ledger.recorder.decisions).toHaveLength(3);
    expect(
      ctx.ledger.recorder.decisions.every(
        (d) => d.reason === `TenantCluster "${TENANT}" is being deleted`,
      ),
    ).toBe(true);
  });

  it('counts the copies left', async () => {
    const { hostApi, ctx } = setup(
      [
        terminating(cm('default', 'held')),
        hostCopyOf(cm('default', 'a')),
        hostCopyOf(cm('default', 'b')),
      ],
      { budget: { maxWrites: 1, concurrency: 1 } },
    );
    // One write: one of the two deletable copies goes; the other and the terminating one are left.
    const { left, clean } = await retireTenant(ctx, policy, {
      syncedKinds: [],
      hostNamespaces: [HOST_NS],
    });
    expect(left).toBe(2);
    expect(clean).toBe(false);
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(2);
  });

  it('a namespace whose listing fails counts as at least one left', async () => {
    const { hostApi, ctx } = setup([]);
    hostApi.failWhen(forbidden('list', 'Secret'));
    const result = await retireTenant(ctx, policy, remembered);
    expect(result.clean).toBe(false);
    expect(result.left).toBeGreaterThanOrEqual(1);
  });
});

describe('retireCopies of a copy deleted by someone else in the meantime', () => {
  it('is reported as already gone, not counted as a Delete', async () => {
    const { hostApi, ctx } = setup([hostCopyOf(cm('a', 'x'))]);
    hostApi.failWhen((c) =>
      c.method === 'delete' ? new ClusterError('NotFound', 'configmaps "x" not found') : undefined,
    );
    const result = await retireCopies(
      ctx,
      CONFIGMAP,
      HOST_NS,
      'kind ConfigMap (v1) left the sync policy',
    );
    expect(result).toEqual({ clean: true, left: 0 });
    const tally = ctx.ledger.recorder.tally();
    expect(tally.counts.Delete).toBe(0);
    expect(tally.alreadyGone).toBe(1);
    expect(ctx.ledger.recorder.decisions[0]?.reason).toMatch(/already gone/);
  });
});

describe('a namespace move deletes an old copy only once it is not needed', () => {
  const policy = parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, toHost: [CONFIGMAP] });
  const move = { syncedKinds: [CONFIGMAP], hostNamespaces: [OLD_NS, HOST_NS] };
  const cases: Array<{
    name: string;
    hostState: KubeObject[];
    wanted?: string[];
    expectedOld: string[];
  }> = [
    {
      name: 'a copy whose replacement exists in the new namespace goes',
      hostState: [copyIn(cm('default', 'a'), OLD_NS), hostCopyOf(cm('default', 'a'))],
      expectedOld: [],
    },
    {
      name: 'a copy without a replacement stays while the listing is unknown',
      hostState: [copyIn(cm('default', 'a'), OLD_NS)],
      expectedOld: [hn('default', 'a')],
    },
    {
      name: 'a copy without a replacement stays while its source still wants one',
      hostState: [copyIn(cm('default', 'a'), OLD_NS)],
      wanted: ['default/a'],
      expectedOld: [hn('default', 'a')],
    },
    {
      name: 'a copy whose source no longer wants one goes',
      hostState: [copyIn(cm('default', 'a'), OLD_NS), copyIn(cm('default', 'b'), OLD_NS)],
      wanted: ['default/b'],
      expectedOld: [hn('default', 'b')],
    },
  ];
  it.each(cases)('$name', async ({ hostState, wanted, expectedOld }) => {
    const { hostApi, ctx } = setup(hostState, { keepWanted: true });
    if (wanted) ctx.ledger.listedWanted(CONFIGMAP, new Set(wanted));
    const next = await retireStale(ctx, policy, move);
    const old = hostApi
      .objects(CONFIGMAP)
      .filter((o) => o.metadata.namespace === OLD_NS)
      .map((o) => o.metadata.name);
    expect(old.sort()).toEqual(expectedOld.sort());
    expect(next.hostNamespaces).toEqual(expectedOld.length > 0 ? [OLD_NS, HOST_NS] : [HOST_NS]);
    if (expectedOld.length > 0) {
      expect(ctx.ledger.errors.incompleteKinds.join('\n')).toContain(
        `wait until ${expectedOld.length === 1 ? 'its' : 'their'} replacement exists in ${HOST_NS}`,
      );
    }
  });
});
