import { beforeEach, describe, expect, it } from '@jest/globals';
import {
  KubernetesEventsSink,
  PASS_SUMMARY_REASON,
} from '../../../../lib/adapters/events/index.js';
import {
  ClusterError,
  ClusterErrorReason,
  type Decision,
  DecisionAction,
  type KubeObject,
  TENANT_CLUSTER as TENANT_CLUSTER_KIND,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { decision, passResult } from '../support.js';

const EVENT = { apiVersion: 'v1', kind: 'Event' };
const TC_UID = 'tc-uid-1';
const { Create, Update, Delete, Skip } = DecisionAction;

function events(host: MemoryCluster): KubeObject[] {
  return host.objects(EVENT);
}

function decisionEvents(host: MemoryCluster): KubeObject[] {
  return events(host).filter((e) => e.reason !== PASS_SUMMARY_REASON);
}

function summaries(host: MemoryCluster): KubeObject[] {
  return events(host).filter((e) => e.reason === PASS_SUMMARY_REASON);
}

describe('KubernetesEventsSink', () => {
  let host: MemoryCluster;
  let now: number;
  const clock = { now: () => now };

  beforeEach(() => {
    host = new MemoryCluster('host').seed({
      ...TENANT_CLUSTER_KIND,
      metadata: { name: 'dev', uid: TC_UID },
      spec: { hostNamespace: 'tenant-dev' },
    });
    now = Date.parse('2030-01-01T10:00:00.123Z');
  });

  it('writes one Event per decision about the TenantCluster, plus a summary', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    const ds = [decision(Create, 'app'), decision(Delete, 'old'), decision(Update, 'cfg')];
    for (const d of ds) sink.decision(d);
    await sink.passFinished(passResult(ds));

    const written = decisionEvents(host);
    expect(written).toHaveLength(3);
    const del = written.find((e) => e.reason === 'Delete')!;
    expect(del).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'default' },
      involvedObject: {
        apiVersion: 'tenantplane.io/v1alpha1',
        kind: 'TenantCluster',
        name: 'dev',
        uid: TC_UID,
      },
      type: 'Warning',
      count: 1,
      firstTimestamp: '2030-01-01T10:00:00Z',
      lastTimestamp: '2030-01-01T10:00:00Z',
      source: { component: 'tenantplane-sync' },
      reportingComponent: 'tenantplane-sync',
      message: 'ConfigMap default/old -> host tenant-dev/old-x-default-x-dev: Delete because old',
    });
    expect((del.involvedObject as Record<string, unknown>).namespace).toBeUndefined();
    expect(del.metadata.annotations).toMatchObject({
      'tenantplane.io/host-ref': 'tenant-dev/old-x-default-x-dev',
      'tenantplane.io/tenant-ref': 'default/old',
    });
    for (const e of written.filter((x) => x.reason !== 'Delete')) expect(e.type).toBe('Normal');

    expect(summaries(host)).toHaveLength(1);
    expect(summaries(host)[0]).toMatchObject({
      type: 'Normal',
      message:
        'Pass pass-1: 1 Create, 1 Update, 1 Delete, 0 Skip, 0 errors; complete. Every decision has its own Event.',
    });
    expect(sink.lastReport).toEqual({
      passId: 'pass-1',
      created: 3,
      bumped: 0,
      notEmitted: 0,
      summary: 'created',
      failures: [],
    });
  });

  it('writes nothing for a pass that decided nothing, and nothing on a dry run', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(passResult([]));
    const dry = [decision(Create, 'a', { dryRun: true })];
    await sink.passFinished(passResult(dry, { dryRun: true }));
    expect(events(host)).toEqual([]);
    expect(host.requestCount()).toEqual({ reads: 0, writes: 0 });
  });

  it('writes a Warning summary for a pass that decided nothing but failed somewhere', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(
      passResult([], {
        complete: false,
        incompleteReason:
          'ConfigMap: the tenant listing failed, so its garbage collection was skipped',
        errors: [
          { kind: 'ConfigMap', message: 'listing tenant ConfigMap objects failed: forbidden' },
        ],
      }),
    );
    expect(decisionEvents(host)).toEqual([]);
    expect(summaries(host)).toHaveLength(1);
    expect(summaries(host)[0]).toMatchObject({ type: 'Warning' });
    expect(String(summaries(host)[0]?.message)).toMatch(
      /1 error; incomplete: ConfigMap: the tenant listing failed/,
    );
  });

  it('caps decision Events per pass, Deletes and Skips first, and says so in the summary', async () => {
    const ds: Decision[] = [];
    for (let i = 0; i < 30; i++) ds.push(decision(Create, `c${i}`));
    for (let i = 0; i < 3; i++) ds.push(decision(Skip, `s${i}`));
    for (let i = 0; i < 2; i++) ds.push(decision(Delete, `d${i}`));
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(passResult(ds));

    const written = decisionEvents(host);
    expect(written).toHaveLength(25);
    expect(written.filter((e) => e.reason === 'Delete')).toHaveLength(2);
    expect(written.filter((e) => e.reason === 'Skip')).toHaveLength(3);
    expect(written.filter((e) => e.reason === 'Create')).toHaveLength(20);
    const summary = summaries(host);
    expect(summary).toHaveLength(1);
    expect(summary[0]!.message).toContain('10 of 35 decisions are not shown as Events');
    expect(summary[0]!.message).toContain('the logs have all of them (passId pass-1)');
    expect(sink.lastReport?.notEmitted).toBe(10);
  });

  it('honours maxEventsPerPass', async () => {
    const ds = [decision(Create, 'a'), decision(Create, 'b'), decision(Skip, 'c')];
    const sink = new KubernetesEventsSink({
      hostApi: host,
      tenant: 'dev',
      clock,
      maxEventsPerPass: 1,
    });
    await sink.passFinished(passResult(ds));
    expect(decisionEvents(host).map((e) => e.reason)).toEqual(['Skip']);
    expect(summaries(host)[0]!.message).toContain('2 of 3 decisions are not shown');
  });

  it('bumps count and lastTimestamp of a decision that repeats every pass instead of adding Events', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    const skip = (passId: string) =>
      decision(Skip, 'app', { passId, reason: 'host object is owned by another tenant source' });
    await sink.passFinished(passResult([skip('p1')]));
    now += 300_000;
    await sink.passFinished(passResult([skip('p2')]));
    now += 300_000;
    await sink.passFinished(passResult([skip('p3')]));

    const written = decisionEvents(host);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      count: 3,
      firstTimestamp: '2030-01-01T10:00:00Z',
      lastTimestamp: '2030-01-01T10:10:00Z',
    });
    expect(written[0]!.metadata.annotations?.['tenantplane.io/pass-id']).toBe('p3');
    // The identical summaries of the three passes are one Event too.
    expect(summaries(host)).toHaveLength(1);
    expect(summaries(host)[0]!.count).toBe(3);
    expect(summaries(host)[0]!.message).toContain('Pass p3:');
    expect(sink.lastReport).toMatchObject({ created: 0, bumped: 1, summary: 'bumped' });
  });

  it('a different decision about the same object gets its own Event', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(passResult([decision(Create, 'app')]));
    await sink.passFinished(passResult([decision(Update, 'app', { passId: 'pass-2' })]));
    await sink.passFinished(
      passResult([decision(Update, 'app', { passId: 'pass-3', reason: 'data changed again' })]),
    );
    expect(decisionEvents(host)).toHaveLength(3);
  });

  it('groups identical decisions of one pass into one Event with their count', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(passResult([decision(Skip, 'x'), decision(Skip, 'x')]));
    expect(decisionEvents(host)).toHaveLength(1);
    expect(decisionEvents(host)[0]!.count).toBe(2);
  });

  it('marks an incomplete or erroring pass summary as Warning and says why', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    const ds = [decision(Create, 'a', { error: 'admission webhook denied the request' })];
    await sink.passFinished(
      passResult(ds, {
        complete: false,
        incompleteReason: 'write budget of 1 reached',
        errors: [{ kind: 'ConfigMap', message: 'admission webhook denied the request' }],
      }),
    );
    const summary = summaries(host)[0]!;
    expect(summary.type).toBe('Warning');
    expect(summary.message).toContain('1 error; incomplete: write budget of 1 reached.');
    // The Event of a failed write says so: its reason, its type and its message.
    const failed = decisionEvents(host)[0]!;
    expect(failed.message).toContain('(Create failed: admission webhook denied the request)');
    expect(failed.reason).toBe('CreateFailed');
    expect(failed.type).toBe('Warning');
  });

  it('counts failed and already-gone decisions apart in the summary', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    const ds = [decision(Create, 'a', { error: 'denied' }), decision(Create, 'b')];
    await sink.passFinished(
      passResult(ds, {
        counts: { Create: 1, Update: 0, Delete: 0, Skip: 0 },
        failed: { Create: 1, Update: 0, Delete: 0, Skip: 0 },
        alreadyGone: 2,
        errors: [{ kind: 'ConfigMap', message: 'denied' }],
      }),
    );
    expect(summaries(host)[0]!.message).toContain(
      '1 Create, 0 Update, 0 Delete, 0 Skip, 1 failed (1 Create), 2 already gone, 1 error;',
    );
  });

  it('uses the decisions it was given when the pass result carries none', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    const ds = [decision(Create, 'a'), decision(Create, 'b')];
    for (const d of ds) sink.decision(d);
    await sink.passFinished({ ...passResult(ds), decisions: [] });
    expect(decisionEvents(host)).toHaveLength(2);
  });

  it('never throws into the pass: failures go to onError and the report', async () => {
    const errors: Error[] = [];
    const sink = new KubernetesEventsSink({
      hostApi: host,
      tenant: 'dev',
      clock,
      onError: (e) => errors.push(e),
    });
    host.failWhen((call) =>
      call.method === 'create' && call.kind === 'Event'
        ? new ClusterError(ClusterErrorReason.Forbidden, 'events is forbidden')
        : undefined,
    );
    await expect(
      sink.passFinished(passResult([decision(Create, 'a'), decision(Delete, 'b')])),
    ).resolves.toBeUndefined();
    expect(errors).toHaveLength(3);
    expect(errors[0]!.message).toMatch(/for TenantCluster dev: events is forbidden$/);
    expect(sink.lastReport).toMatchObject({ created: 0, summary: 'none' });
    expect(sink.lastReport?.failures).toHaveLength(3);

    // A throwing onError and a missing TenantCluster are contained too.
    host.clearFailures();
    for (const o of host.objects()) host.remove(o, o.metadata.namespace, o.metadata.name);
    const throwing = new KubernetesEventsSink({
      hostApi: host,
      tenant: 'dev',
      clock,
      onError: () => {
        throw new Error('boom');
      },
    });
    await expect(
      throwing.passFinished(passResult([decision(Create, 'a')])),
    ).resolves.toBeUndefined();
    expect(throwing.lastReport?.failures).toEqual([
      'writing Events for TenantCluster dev: the TenantCluster does not exist on the host',
    ]);
    expect(events(host)).toEqual([]);
  });

  it('retries once when the Event changed between its GET and the update', async () => {
    const sink = new KubernetesEventsSink({ hostApi: host, tenant: 'dev', clock });
    await sink.passFinished(passResult([decision(Skip, 'a')]));
    let conflicts = 1;
    host.failWhen((call) => {
      if (call.method === 'update' && conflicts > 0) {
        conflicts -= 1;
        return new ClusterError(ClusterErrorReason.Conflict, 'the object has been modified');
      }
      return undefined;
    });
    await sink.passFinished(passResult([decision(Skip, 'a', { passId: 'pass-2' })]));
    expect(conflicts).toBe(0);
    expect(sink.lastReport?.failures).toEqual([]);
    expect(decisionEvents(host)[0]!.count).toBe(2);
  });
});
