/**
 * Garbage collection: only this tenant's copies of this kind whose source is no longer desired,
 * never an object without a uid; deletes with a uid precondition; never from an incomplete
 * listing.
 */
import { describe, expect, it } from '@jest/globals';
import type { GcCandidate } from '../../../../lib/engine/gc/candidates.js';
import { planGc, type TenantListing } from '../../../../lib/engine/gc/candidates.js';
import { collectGarbage, deleteCandidate } from '../../../../lib/engine/gc/gc.js';
import { Labels, runPass } from '../../../../lib/engine/index.js';
import { sourceKey } from '../../../../lib/engine/names/provenance.js';
import {
  ClusterError,
  type DeletePreconditions,
  type KindRef,
  type KubeObject,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  HOST_NS,
  hn,
  hostCopyOf,
  passContext,
  RecordingSink,
  secret,
  TENANT,
} from '../support.js';

/** A host copy as listed: with the uid the server gave it. */
const stored = (object: KubeObject, uid = `host-${object.metadata.name}`): KubeObject => ({
  ...object,
  metadata: { ...object.metadata, uid },
});

const listing = (desired: string[], listed: string[] = desired): TenantListing => ({
  tenant: TENANT,
  kind: 'ConfigMap',
  desired: new Set(desired),
  listed: new Set(listed),
});

describe('sourceKey', () => {
  it('is <virtual namespace>/<name>', () => {
    expect(sourceKey('default', 'app')).toBe('default/app');
  });
});

describe('planGc', () => {
  const withoutUid = hostCopyOf(cm('default', 'no-uid'));
  const halfManaged: KubeObject = stored({
    ...CONFIGMAP,
    metadata: {
      namespace: HOST_NS,
      name: 'half',
      labels: {
        [Labels.ManagedBy]: 'tenantplane',
        [Labels.Tenant]: TENANT,
        [Labels.Kind]: 'ConfigMap',
      },
    },
  });
  const cases: Array<{
    name: string;
    host: KubeObject[];
    listing: TenantListing;
    expected: Array<{ name: string; reason: string }>;
  }> = [
    {
      name: 'a copy whose source is gone',
      host: [stored(hostCopyOf(cm('default', 'gone')))],
      listing: listing([]),
      expected: [
        { name: hn('default', 'gone'), reason: 'tenant ConfigMap default/gone no longer exists' },
      ],
    },
    {
      name: 'a copy whose source is listed but excluded',
      host: [stored(hostCopyOf(cm('default', 'off')))],
      listing: listing([], ['default/off']),
      expected: [
        {
          name: hn('default', 'off'),
          reason: 'tenant ConfigMap default/off is excluded from syncing by the sync policy',
        },
      ],
    },
    {
      name: 'a copy whose source is desired is kept',
      host: [stored(hostCopyOf(cm('default', 'keep')))],
      listing: listing(['default/keep']),
      expected: [],
    },
    {
      name: 'another tenant’s copy is never a candidate',
      host: [stored(hostCopyOf(cm('default', 'theirs'), 'prod'))],
      listing: listing([]),
      expected: [],
    },
    {
      name: 'another kind’s copy is never a candidate',
      host: [stored(hostCopyOf(secret('default', 'db')))],
      listing: listing([]),
      expected: [],
    },
    {
      name: 'a copy without a uid is never a candidate',
      host: [withoutUid],
      listing: listing([]),
      expected: [],
    },
    {
      name: 'a foreign object is never a candidate',
      host: [stored({ ...CONFIGMAP, metadata: { namespace: HOST_NS, name: 'foreign' } })],
      listing: listing([]),
      expected: [],
    },
    {
      name: 'an object with incomplete reverse-mapping metadata is never a candidate',
      host: [halfManaged],
      listing: listing([]),
      expected: [],
    },
    {
      name: 'only the gone ones among many',
      host: [
        stored(hostCopyOf(cm('default', 'keep'))),
        stored(hostCopyOf(cm('default', 'gone'))),
        stored(hostCopyOf(cm('team', 'gone'))),
      ],
      listing: listing(['default/keep', 'team/other'], ['default/keep', 'team/other']),
      expected: [
        { name: hn('default', 'gone'), reason: 'tenant ConfigMap default/gone no longer exists' },
        { name: hn('team', 'gone'), reason: 'tenant ConfigMap team/gone no longer exists' },
      ],
    },
  ];
  it.each(cases)('$name', ({ host, listing: l, expected }) => {
    const candidates = planGc(host, l);
    expect(candidates.map((c) => ({ name: c.object.metadata.name, reason: c.reason }))).toEqual(
      expected,
    );
  });

  it('reads the source from the metadata, not the host name (hashed names included)', () => {
    const long = 'n'.repeat(100);
    const copy = stored(hostCopyOf(cm('default', long)));
    expect(copy.metadata.name).not.toContain(long);
    const [candidate] = planGc([copy], listing([]));
    expect(candidate?.ref).toMatchObject({ virtualNamespace: 'default', virtualName: long });
    expect(planGc([copy], listing([`default/${long}`]))).toEqual([]);
  });
});

/** A host cluster whose deletes are recorded with their preconditions. */
function recordingDeletes(hostApi: MemoryCluster) {
  const sent: Array<{ name: string; preconditions: DeletePreconditions }> = [];
  const remove = hostApi.delete.bind(hostApi);
  hostApi.delete = async (
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
  ) => {
    sent.push({ name, preconditions });
    return remove(kind, namespace, name, preconditions);
  };
  return sent;
}

function candidateFor(hostApi: MemoryCluster, name: string): GcCandidate {
  const object = hostApi.peek(CONFIGMAP, HOST_NS, hn('default', name)) as KubeObject;
  const [candidate] = planGc([object], listing([]));
  if (!candidate) throw new Error(`no candidate for ${name}`);
  return candidate;
}

describe('deleteCandidate', () => {
  it('deletes with the uid precondition of the listed object', async () => {
    const hostApi = new MemoryCluster('host').seed(hostCopyOf(cm('default', 'gone')));
    const sent = recordingDeletes(hostApi);
    const candidate = candidateFor(hostApi, 'gone');
    await deleteCandidate(hostApi, candidate);
    expect(sent).toEqual([
      {
        name: hn('default', 'gone'),
        preconditions: {
          uid: candidate.object.metadata.uid,
          resourceVersion: candidate.object.metadata.resourceVersion,
        },
      },
    ]);
    expect(hostApi.objects(CONFIGMAP)).toEqual([]);
  });

  it('an object recreated under the name (another uid) is not deleted: Conflict', async () => {
    const hostApi = new MemoryCluster('host').seed(hostCopyOf(cm('default', 'gone')));
    const candidate = candidateFor(hostApi, 'gone');
    hostApi.remove(CONFIGMAP, HOST_NS, hn('default', 'gone'));
    hostApi.seed(hostCopyOf(cm('default', 'gone')));
    await expect(deleteCandidate(hostApi, candidate)).rejects.toMatchObject({ reason: 'Conflict' });
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(1);
  });

  it('an object already gone is reported as such, not as deleted', async () => {
    const hostApi = new MemoryCluster('host').seed(hostCopyOf(cm('default', 'gone')));
    const candidate = candidateFor(hostApi, 'gone');
    await expect(deleteCandidate(hostApi, candidate)).resolves.toBe('deleted');
    await expect(deleteCandidate(hostApi, candidate)).resolves.toBe('already-gone');
  });

  it('any other failure is thrown', async () => {
    const hostApi = new MemoryCluster('host').seed(hostCopyOf(cm('default', 'gone')));
    const forbidden = new ClusterError('Forbidden', 'delete is forbidden');
    hostApi.failWhen((call) => (call.method === 'delete' ? forbidden : undefined));
    await expect(deleteCandidate(hostApi, candidateFor(hostApi, 'gone'))).rejects.toBe(forbidden);
  });
});

describe('collectGarbage', () => {
  const RULE = { apiVersion: 'v1', kind: 'ConfigMap' };

  function setup(names: string[], options: Parameters<typeof passContext>[0] = {}) {
    const hostApi = new MemoryCluster('host').seed(
      ...names.map((name) => hostCopyOf(cm('default', name))),
    );
    const ctx = passContext({ ...options, hostApi });
    return { hostApi, ctx, host: hostApi.objects(CONFIGMAP) };
  }

  it('does nothing from an incomplete listing', async () => {
    const { hostApi, ctx, host } = setup(['gone']);
    const gc = await collectGarbage(ctx, RULE, host, { ...listing([]), complete: false });
    expect(gc).toEqual({ ran: false, candidates: 0 });
    expect(hostApi.calls).toEqual([]);
    expect(ctx.ledger.recorder.decisions).toEqual([]);
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(1);
  });

  it('does nothing once the pass is stopped', async () => {
    const { hostApi, ctx, host } = setup(['gone']);
    ctx.scope.bounds.halt('stopped for the test');
    const gc = await collectGarbage(ctx, RULE, host, { ...listing([]), complete: true });
    expect(gc).toEqual({ ran: false, candidates: 0 });
    expect(hostApi.calls).toEqual([]);
  });

  it('deletes the copies whose source is gone and records a Delete for each', async () => {
    const { hostApi, ctx, host } = setup(['keep', 'gone']);
    const gc = await collectGarbage(ctx, RULE, host, {
      ...listing(['default/keep']),
      complete: true,
    });
    expect(gc).toEqual({ ran: true, candidates: 1 });
    expect(hostApi.objects(CONFIGMAP).map((o) => o.metadata.name)).toEqual([hn('default', 'keep')]);
    expect(ctx.ledger.recorder.decisions).toEqual([
      {
        action: 'Delete',
        tenant: TENANT,
        kind: 'ConfigMap',
        apiVersion: 'v1',
        tenantRef: { namespace: 'default', name: 'gone' },
        hostRef: { namespace: HOST_NS, name: hn('default', 'gone') },
        reason: 'tenant ConfigMap default/gone no longer exists',
        passId: 'pass-1',
        dryRun: false,
      },
    ]);
    expect(ctx.scope.bounds.writes).toBe(1);
  });

  it('a dry run decides the Delete and sends nothing', async () => {
    const { hostApi, ctx, host } = setup(['gone'], { dryRun: true });
    const gc = await collectGarbage(ctx, RULE, host, { ...listing([]), complete: true });
    expect(gc).toEqual({ ran: true, candidates: 1 });
    expect(hostApi.calls).toEqual([]);
    expect(ctx.ledger.recorder.decisions.map((d) => [d.action, d.dryRun])).toEqual([
      ['Delete', true],
    ]);
    expect(ctx.scope.bounds.writes).toBe(1);
  });

  it('a failed delete is still the Delete decision, with its error', async () => {
    const { hostApi, ctx, host } = setup(['gone']);
    hostApi.failWhen((call) =>
      call.method === 'delete' ? new ClusterError('Forbidden', 'delete is forbidden') : undefined,
    );
    await collectGarbage(ctx, RULE, host, { ...listing([]), complete: true });
    expect(ctx.ledger.recorder.decisions.map((d) => [d.action, d.error])).toEqual([
      ['Delete', 'delete is forbidden'],
    ]);
    expect(ctx.ledger.errors.errors).toEqual([
      {
        kind: 'ConfigMap',
        tenantRef: { namespace: 'default', name: 'gone' },
        hostRef: { namespace: HOST_NS, name: hn('default', 'gone') },
        message: 'delete is forbidden',
        reason: 'Forbidden',
      },
    ]);
  });

  it('stops at the write budget and reports every candidate it found', async () => {
    const { hostApi, ctx, host } = setup(['a', 'b', 'c'], { budget: { maxWrites: 1 } });
    const gc = await collectGarbage(ctx, RULE, host, { ...listing([]), complete: true });
    expect(gc).toEqual({ ran: true, candidates: 3 });
    expect(hostApi.callsOf('delete')).toHaveLength(1);
    expect(ctx.ledger.recorder.decisions).toHaveLength(1);
    expect(ctx.scope.bounds.stopReason).toMatch(/write budget of 1 write was spent/);
  });
});

/**
 * GC deletes carry uid AND resourceVersion preconditions: a copy adopted by an operator (its
 * managed-by label removed) between the listing and the delete is refused by the server (409),
 * and the pass records a Skip that says so, never retries the delete, and the next pass leaves
 * the adopted object alone.
 */
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
