import { describe, expect, it } from '@jest/globals';
import { type Condition, recordedConditions, runPass } from '../../../../lib/engine/index.js';
import {
  type ConditionInput,
  conditionsPatch,
  conditionTime,
  mergeConditions,
  passConditions,
} from '../../../../lib/engine/report/conditions.js';
import { ClusterError, type PassResult, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, TENANT } from '../support.js';

const T0 = '2030-01-01T00:00:00Z';
const T1 = '2030-01-01T00:05:00Z';

function ready(status: 'True' | 'False', reason = 'Converged', generation = 1): ConditionInput {
  return { type: 'Ready', status, reason, message: `m-${reason}`, observedGeneration: generation };
}

function result(overrides: Partial<PassResult> = {}): PassResult {
  return {
    passId: 'p',
    tenant: TENANT,
    dryRun: false,
    startedAt: T0,
    finishedAt: T0,
    durationMs: 0,
    complete: true,
    counts: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
    objectsSeen: {},
    errors: [],
    requests: { tenant: { reads: 0, writes: 0 }, host: { reads: 0, writes: 0 } },
    decisions: [],
    ...overrides,
  };
}

describe('mergeConditions', () => {
  it('adds a new condition with lastTransitionTime now', () => {
    const merged = mergeConditions([], [ready('True')], T0);
    expect(merged).toEqual({
      changed: true,
      conditions: [{ ...ready('True'), lastTransitionTime: T0 }],
    });
  });

  it('an identical condition is no change and keeps its lastTransitionTime', () => {
    const recorded: Condition[] = [{ ...ready('True'), lastTransitionTime: T0 }];
    expect(mergeConditions(recorded, [ready('True')], T1)).toEqual({
      changed: false,
      conditions: recorded,
    });
  });

  it('a new message or generation with the same status keeps lastTransitionTime', () => {
    const recorded: Condition[] = [{ ...ready('False', 'PassIncomplete'), lastTransitionTime: T0 }];
    const next = { ...ready('False', 'ObjectErrors', 2) };
    const merged = mergeConditions(recorded, [next], T1);
    expect(merged.changed).toBe(true);
    expect(merged.conditions).toEqual([{ ...next, lastTransitionTime: T0 }]);
  });

  it('a flipped status resets lastTransitionTime', () => {
    const recorded: Condition[] = [{ ...ready('False', 'PassFailed'), lastTransitionTime: T0 }];
    const merged = mergeConditions(recorded, [ready('True')], T1);
    expect(merged).toEqual({
      changed: true,
      conditions: [{ ...ready('True'), lastTransitionTime: T1 }],
    });
  });

  it('keeps conditions of other types in place and a recorded one without a time gets now', () => {
    const foreign: Condition = {
      type: 'Audited',
      status: 'True',
      reason: 'Done',
      message: '',
      lastTransitionTime: T0,
    };
    const noTime = { ...ready('True'), lastTransitionTime: '' };
    const merged = mergeConditions([foreign, noTime], [ready('True')], T1);
    expect(merged).toEqual({
      changed: true,
      conditions: [foreign, { ...ready('True'), lastTransitionTime: T1 }],
    });
  });
});

describe('conditionsPatch', () => {
  const recorded = {
    observedGeneration: 1,
    conditions: [{ ...ready('True'), lastTransitionTime: T0 }],
  };

  it('is undefined when conditions and observedGeneration are unchanged (no write)', () => {
    expect(conditionsPatch(recorded, [ready('True')], 1, T1)).toBeUndefined();
  });

  it('a new generation alone is a change: observedGeneration, same lastTransitionTime', () => {
    expect(conditionsPatch(recorded, [ready('True', 'Converged', 2)], 2, T1)).toEqual({
      observedGeneration: 2,
      conditions: [{ ...ready('True', 'Converged', 2), lastTransitionTime: T0 }],
    });
  });

  it('nothing recorded: everything is written', () => {
    expect(conditionsPatch(undefined, [ready('True')], 1, T0)).toEqual({
      observedGeneration: 1,
      conditions: [{ ...ready('True'), lastTransitionTime: T0 }],
    });
  });

  it('without a generation, no observedGeneration', () => {
    const input = { ...ready('True') };
    delete input.observedGeneration;
    expect(conditionsPatch({}, [input], undefined, T0)).toEqual({
      conditions: [{ ...input, lastTransitionTime: T0 }],
    });
  });
});

describe('recordedConditions', () => {
  it('ignores malformed entries', () => {
    const good = { ...ready('True'), lastTransitionTime: T0 };
    const status = {
      conditions: [good, 'x', { type: 'Ready', status: 'Maybe' }, { status: 'True' }],
    };
    expect(recordedConditions(status)).toEqual([good]);
    expect(recordedConditions(undefined)).toEqual([]);
    expect(recordedConditions({ conditions: {} })).toEqual([]);
  });
});

describe('passConditions', () => {
  const of = (r: PassResult) =>
    passConditions(r).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);

  it('a complete pass without errors: Ready True, Degraded False, Converged', () => {
    expect(of(result({ tenantClusterGeneration: 3 }))).toEqual([
      'Ready=True Converged: the last pass completed and every object converged',
      'Degraded=False Converged: the last pass completed and every object converged',
    ]);
    expect(passConditions(result({ tenantClusterGeneration: 3 }))[0]?.observedGeneration).toBe(3);
    expect(passConditions(result())[0]).not.toHaveProperty('observedGeneration');
  });

  it('object errors: Ready False, Degraded True, ObjectErrors with the first error', () => {
    const errors = [
      {
        kind: 'ConfigMap',
        tenantRef: { namespace: 'a', name: 'b' },
        message: 'no',
        reason: 'Invalid',
      },
      { kind: 'ConfigMap', message: 'also no' },
    ];
    expect(of(result({ errors }))).toEqual([
      'Ready=False ObjectErrors: 2 object errors, first: ConfigMap a/b: no (Invalid)',
      'Degraded=True ObjectErrors: 2 object errors, first: ConfigMap a/b: no (Invalid)',
    ]);
  });

  it('an incomplete pass: PassIncomplete with the reason', () => {
    const r = result({ complete: false, incompleteReason: 'the pass deadline was reached' });
    expect(of(r)[0]).toBe('Ready=False PassIncomplete: the pass deadline was reached');
    const withErrors = { ...r, errors: [{ kind: 'Secret', message: 'listing failed' }] };
    expect(of(withErrors)[1]).toBe(
      'Degraded=True PassIncomplete: the pass deadline was reached; 1 object error, first: Secret: listing failed',
    );
  });

  it('clips a long message', () => {
    const r = result({ complete: false, incompleteReason: 'x'.repeat(5000) });
    expect(passConditions(r)[0]?.message).toHaveLength(1024);
  });
});

describe('conditions written by a pass', () => {
  type Status = { observedGeneration?: number; conditions?: Condition[] };
  const statusOf = (api: ReturnType<typeof clusters>['hostApi']) =>
    api.peek(TENANT_CLUSTER, undefined, TENANT)?.status as Status;

  it('sets Ready once, writes nothing while it holds, and shows a spec edit by observedGeneration', async () => {
    let now = Date.parse(T0);
    const clock = { now: () => now };
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)!;
    hostApi.replace({ ...tc, metadata: { ...tc.metadata, generation: 1 } });
    const run = () => runPass({ tenant: TENANT, tenantApi, hostApi, clock });

    expect((await run()).statusWritten).toBe(true);
    const first = statusOf(hostApi);
    expect(first.observedGeneration).toBe(1);
    expect(
      first.conditions?.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]),
    ).toEqual([
      ['Ready', 'True', 'Converged', T0],
      ['Degraded', 'False', 'Converged', T0],
    ]);

    now += 60_000;
    const writes = hostApi.requestCount().writes;
    expect((await run()).statusWritten).toBe(false);
    expect(hostApi.requestCount().writes).toBe(writes);

    // A spec edit that decides nothing: the generation moves, the conditions' times do not.
    const edited = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)!;
    hostApi.replace({ ...edited, metadata: { ...edited.metadata, generation: 2 } });
    now += 60_000;
    const afterEdit = await run();
    expect(afterEdit.decisions).toEqual([]);
    expect(afterEdit.statusWritten).toBe(true);
    const second = statusOf(hostApi);
    expect(second.observedGeneration).toBe(2);
    expect(second.conditions?.map((c) => [c.observedGeneration, c.lastTransitionTime])).toEqual([
      [2, T0],
      [2, T0],
    ]);
  });

  it('a pass with object errors flips Ready to False and a clean pass flips it back', async () => {
    let now = Date.parse(T0);
    const clock = { now: () => now };
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((call) =>
      call.method === 'create' && call.kind === 'ConfigMap'
        ? new ClusterError('Invalid', 'denied', { status: 422 })
        : undefined,
    );
    await runPass({ tenant: TENANT, tenantApi, hostApi, clock });
    const failed = statusOf(hostApi).conditions?.find((c) => c.type === 'Ready');
    expect(failed).toMatchObject({
      status: 'False',
      reason: 'ObjectErrors',
      lastTransitionTime: T0,
    });

    hostApi.clearFailures();
    // Past the failed object's back-off (retry-backoff.ts), so this pass retries it.
    now += 10 * 60_000;
    await runPass({ tenant: TENANT, tenantApi, hostApi, clock });
    const recovered = statusOf(hostApi).conditions?.find((c) => c.type === 'Ready');
    expect(recovered).toMatchObject({
      status: 'True',
      reason: 'Converged',
      lastTransitionTime: conditionTime(now),
    });
  });
});

describe('conditionTime', () => {
  it('is RFC 3339 in whole seconds', () => {
    expect(conditionTime(Date.parse('2030-01-01T00:00:01.999Z'))).toBe('2030-01-01T00:00:01Z');
  });
});
