/**
 * Decisions: the recorder counts every action, keeps the order, streams each decision to every
 * sink as it is made, and contains a sink that throws.
 */
import { describe, expect, it } from '@jest/globals';
import { DecisionRecorder, emptyCounts } from '../../../../lib/engine/context/decisions.js';
import type {
  Decision,
  DecisionAction,
  DecisionCounts,
  DecisionSink,
  PassResult,
} from '../../../../lib/ports/index.js';
import { RecordingSink, TENANT } from '../support.js';

function decision(action: DecisionAction, name: string): Decision {
  return {
    action,
    tenant: TENANT,
    kind: 'ConfigMap',
    apiVersion: 'v1',
    tenantRef: { namespace: 'default', name },
    hostRef: { namespace: 'tenant-dev', name: `${name}-x-default-x-dev` },
    reason: `because ${name}`,
    passId: 'pass-1',
    dryRun: false,
  };
}

const RESULT = { passId: 'pass-1' } as PassResult;

/** A sink whose every call throws. */
const throwing = (error: Error): DecisionSink => ({
  decision: () => {
    throw error;
  },
  passFinished: async () => {
    throw error;
  },
});

describe('emptyCounts', () => {
  it('is zero for every action, and a fresh object each time', () => {
    const counts = emptyCounts();
    expect(counts).toEqual({ Create: 0, Update: 0, Delete: 0, Skip: 0 });
    counts.Create = 5;
    expect(emptyCounts().Create).toBe(0);
  });
});

describe('DecisionRecorder', () => {
  const cases: Array<{ name: string; actions: DecisionAction[]; expected: DecisionCounts }> = [
    { name: 'nothing recorded', actions: [], expected: emptyCounts() },
    {
      name: 'one of each',
      actions: ['Create', 'Update', 'Delete', 'Skip'],
      expected: { Create: 1, Update: 1, Delete: 1, Skip: 1 },
    },
    {
      name: 'repeated actions add up',
      actions: ['Create', 'Create', 'Skip', 'Create', 'Delete'],
      expected: { Create: 3, Update: 0, Delete: 1, Skip: 1 },
    },
  ];
  it.each(cases)('counts: $name', ({ actions, expected }) => {
    const recorder = new DecisionRecorder([]);
    actions.forEach((action, i) => {
      recorder.record(decision(action, `o${i}`));
    });
    expect(recorder.counts).toEqual(expected);
    expect(recorder.decisions.map((d) => d.action)).toEqual(actions);
  });

  it('delivers each decision to every sink as it is recorded, in order', () => {
    const first = new RecordingSink();
    const second = new RecordingSink();
    const recorder = new DecisionRecorder([first, second]);
    const a = decision('Create', 'a');
    recorder.record(a);
    // Streamed at once, not at the end of the pass.
    expect(first.decisions).toEqual([a]);
    expect(second.decisions).toEqual([a]);
    const b = decision('Skip', 'b');
    recorder.record(b);
    expect(first.decisions).toEqual([a, b]);
    expect(second.decisions).toEqual([a, b]);
    expect(first.results).toEqual([]);
  });

  it('contains a sink that throws: the others still get the decision', () => {
    const boom = new Error('sink down');
    const after = new RecordingSink();
    const recorder = new DecisionRecorder([throwing(boom), after]);
    expect(() => recorder.record(decision('Create', 'a'))).not.toThrow();
    expect(after.decisions.map((d) => d.tenantRef.name)).toEqual(['a']);
    expect(recorder.counts.Create).toBe(1);
  });

  it('contains a throwing sink without an error handler too', async () => {
    const recorder = new DecisionRecorder([throwing(new Error('down'))]);
    expect(() => recorder.record(decision('Delete', 'a'))).not.toThrow();
    await expect(recorder.finish(RESULT)).resolves.toBeUndefined();
    expect(recorder.decisions).toHaveLength(1);
  });

  it('finish calls passFinished once on every sink and contains a failing one', async () => {
    const boom = new Error('flush failed');
    const ok = new RecordingSink();
    const recorder = new DecisionRecorder([throwing(boom), ok]);
    await expect(recorder.finish(RESULT)).resolves.toBeUndefined();
    expect(ok.results).toEqual([RESULT]);
  });
});
