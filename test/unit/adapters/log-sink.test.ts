import { describe, expect, it } from '@jest/globals';
import {
  DECISION_LOG_MESSAGE,
  decisionLogRecord,
  LogSink,
  PASS_LOG_MESSAGE,
  passLogRecord,
} from '../../../lib/adapters/log-sink.js';
import { DecisionAction } from '../../../lib/ports/index.js';
import { decision, passResult } from './support.js';

describe('decisionLogRecord', () => {
  it('has the documented fields and nothing else', () => {
    const record = decisionLogRecord(decision(DecisionAction.Skip, 'app'));
    expect(record).toEqual({
      type: 'decision',
      message: DECISION_LOG_MESSAGE,
      tenant: 'dev',
      passId: 'pass-1',
      action: 'Skip',
      kind: 'ConfigMap',
      apiVersion: 'v1',
      tenantRef: 'default/app',
      tenantNamespace: 'default',
      tenantName: 'app',
      hostRef: 'tenant-dev/app-x-default-x-dev',
      hostNamespace: 'tenant-dev',
      hostName: 'app-x-default-x-dev',
      reason: 'Skip because app',
      dryRun: false,
    });
  });

  it('carries the error of a failed write', () => {
    const record = decisionLogRecord(
      decision(DecisionAction.Create, 'app', { error: 'forbidden', dryRun: true }),
    );
    expect(record.error).toBe('forbidden');
    expect(record.dryRun).toBe(true);
  });

  it('never copies anything beyond the documented fields (no Secret data, no credentials)', () => {
    const canary = 'CANARY-3f1b0e-secret-value';
    // Whatever a caller smuggles into a Decision object, only the documented fields are copied.
    const sneaky = {
      ...decision(DecisionAction.Create, 'creds', { kind: 'Secret' }),
      data: { password: canary },
      object: { stringData: { token: canary } },
      kubeconfig: `token: ${canary}`,
    };
    const line = JSON.stringify(decisionLogRecord(sneaky));
    expect(line).not.toContain(canary);
    expect(Object.keys(JSON.parse(line)).sort()).toEqual(
      [
        'type',
        'message',
        'tenant',
        'passId',
        'action',
        'kind',
        'apiVersion',
        'tenantRef',
        'tenantNamespace',
        'tenantName',
        'hostRef',
        'hostNamespace',
        'hostName',
        'reason',
        'dryRun',
      ].sort(),
    );
  });
});

describe('passLogRecord', () => {
  it('summarises the pass with flat, query-friendly fields', () => {
    const ds = [
      decision(DecisionAction.Create, 'a'),
      decision(DecisionAction.Create, 'b'),
      decision(DecisionAction.Delete, 'c'),
    ];
    const errors = Array.from({ length: 12 }, (_, i) => ({
      kind: 'ConfigMap',
      tenantRef: { namespace: 'default', name: `e${i}` },
      hostRef: { namespace: 'tenant-dev', name: `e${i}-x-default-x-dev` },
      reason: 'Invalid',
      message: `bad ${i}`,
    }));
    const record = passLogRecord(
      passResult(ds, {
        complete: false,
        incompleteReason: 'deadline reached',
        errors,
        objectsSeen: { ConfigMap: 40, Secret: 2 },
        note: 'just a note',
      }),
    );
    expect(record).toMatchObject({
      type: 'pass',
      message: PASS_LOG_MESSAGE,
      tenant: 'dev',
      passId: 'pass-1',
      dryRun: false,
      startedAt: '2030-01-01T00:00:00.000Z',
      finishedAt: '2030-01-01T00:00:01.500Z',
      durationMs: 1500,
      complete: false,
      incompleteReason: 'deadline reached',
      note: 'just a note',
      creates: 2,
      updates: 0,
      deletes: 1,
      skips: 0,
      decisions: 3,
      errors: 12,
      objectsSeen: 42,
      objectsSeenByKind: { ConfigMap: 40, Secret: 2 },
      tenantReads: 2,
      tenantWrites: 0,
      hostReads: 3,
      hostWrites: 3,
    });
    expect(record.firstErrors).toHaveLength(10);
    expect((record.firstErrors as unknown[])[0]).toEqual({
      kind: 'ConfigMap',
      tenantRef: 'default/e0',
      hostRef: 'tenant-dev/e0-x-default-x-dev',
      reason: 'Invalid',
      message: 'bad 0',
    });
    expect(record.summary).toBe(
      'pass incomplete (deadline reached): 2 created, 0 updated, 1 deleted, 0 skipped, 12 errors in 1500 ms',
    );
    // The decisions themselves are in their own records, not repeated here.
    expect(JSON.stringify(record)).not.toContain('Create because');
  });

  it('counts failed writes and already-gone deletes apart from what was done', () => {
    const record = passLogRecord(
      passResult([], {
        counts: { Create: 1, Update: 0, Delete: 0, Skip: 0 },
        failed: { Create: 2, Update: 1, Delete: 0, Skip: 0 },
        alreadyGone: 1,
      }),
    );
    expect(record).toMatchObject({
      creates: 1,
      deletes: 0,
      failedWrites: 3,
      alreadyGone: 1,
      decisions: 5,
    });
    expect(record.summary).toMatch(
      /1 created, 0 updated, 0 deleted, 0 skipped, 3 failed, 1 already gone, /,
    );
  });

  it('says which path the pass took and why a kind did not resume', () => {
    const record = passLogRecord(
      passResult([], { path: 'full', pathReason: 'ConfigMap: the resume failed: 410 Gone' }),
    );
    expect(record).toMatchObject({
      path: 'full',
      pathReason: 'ConfigMap: the resume failed: 410 Gone',
    });
    expect(passLogRecord(passResult([], { path: 'resumed' }))).toMatchObject({ path: 'resumed' });
  });

  it('leaves optional fields out of a complete pass', () => {
    const record = passLogRecord(passResult([]));
    expect(record).not.toHaveProperty('incompleteReason');
    expect(record).not.toHaveProperty('note');
    expect(record).not.toHaveProperty('path');
    expect(record).not.toHaveProperty('pathReason');
    expect(record.complete).toBe(true);
    expect(record.firstErrors).toEqual([]);
  });
});

describe('LogSink', () => {
  it('writes one JSON-serialisable record per decision and one per pass', async () => {
    const lines: string[] = [];
    const sink = new LogSink((r) => lines.push(JSON.stringify(r)));
    const ds = [decision(DecisionAction.Create, 'a'), decision(DecisionAction.Update, 'b')];
    for (const d of ds) sink.decision(d);
    await sink.passFinished(passResult(ds));
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['decision', 'decision', 'pass']);
  });

  it('never throws into the pass when writing fails', async () => {
    const sink = new LogSink(() => {
      throw new Error('stdout closed');
    });
    expect(() => sink.decision(decision(DecisionAction.Create, 'a'))).not.toThrow();
    await expect(sink.passFinished(passResult([]))).resolves.toBeUndefined();
  });
});
