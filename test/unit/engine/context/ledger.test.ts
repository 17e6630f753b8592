/**
 * The Ledger, what a pass has done so far: how each Decision is counted and what it tells the
 * known copies, terminating copies counted once, what complete listings wanted (kept only during
 * a namespace move), the kinds started and objects seen, warnings, bookkeeping writes and progress.
 * What `decide` records and streams, and a failed write's error, are in pass-context.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { effectiveBudget, PassBounds } from '../../../../lib/engine/bounds/budget.js';
import { type DecisionInput, Ledger } from '../../../../lib/engine/context/ledger.js';
import { resourceKey } from '../../../../lib/engine/names/resource-key.js';
import { ClusterError, type KindRef, type KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, cm, HOST_NS, passContext, SECRET, TENANT } from '../support.js';

const WIDGET: KindRef = { apiVersion: 'example.com/v1', kind: 'Widget' };
const WIDGET_V2: KindRef = { apiVersion: 'example.com/v2', kind: 'Widget' };

/** A Decision about tenant `default/<name>` of `rule`, its copy `<name>-copy`. */
function input(
  action: DecisionInput['action'],
  name: string,
  extra: Partial<DecisionInput> = {},
): DecisionInput {
  return {
    action,
    rule: CONFIGMAP,
    tenantRef: { namespace: 'default', name },
    hostRef: { namespace: HOST_NS, name: `${name}-copy` },
    reason: `because ${name}`,
    ...extra,
  };
}

/** A ledger of its own, whose known copies keep the `referenced` kinds. */
function ledger(
  options: { dryRun?: boolean; keepWanted?: boolean; referenced?: KindRef[] } = {},
): Ledger {
  return new Ledger(
    {
      tenant: TENANT,
      passId: 'pass-1',
      dryRun: options.dryRun === true,
      ...(options.keepWanted === undefined ? {} : { keepWanted: options.keepWanted }),
      ...(options.referenced ? { referenced: new Set(options.referenced.map(resourceKey)) } : {}),
      sensitive: (kind) => kind.kind === 'Secret',
    },
    new PassBounds(effectiveBudget(), { now: () => 0 }),
    [],
  );
}

describe('decide: the counts', () => {
  const refused = new ClusterError('Invalid', 'denied');
  const cases: Array<{
    name: string;
    decisions: DecisionInput[];
    expected: { counts: object; failed: object; alreadyGone: number; unsettled: number };
  }> = [
    {
      name: 'every action made counts once',
      decisions: [input('Create', 'a'), input('Update', 'b'), input('Delete', 'c')],
      expected: {
        counts: { Create: 1, Update: 1, Delete: 1, Skip: 0 },
        failed: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
        alreadyGone: 0,
        unsettled: 0,
      },
    },
    {
      name: 'a Skip is counted and left unsettled (the next full pass decides it again)',
      decisions: [input('Skip', 'a'), input('Skip', 'b')],
      expected: {
        counts: { Create: 0, Update: 0, Delete: 0, Skip: 2 },
        failed: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
        alreadyGone: 0,
        unsettled: 2,
      },
    },
    {
      name: 'a delete that found its object gone is alreadyGone, not a Delete made',
      decisions: [input('Delete', 'a', { alreadyGone: true }), input('Delete', 'b')],
      expected: {
        counts: { Create: 0, Update: 0, Delete: 1, Skip: 0 },
        failed: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
        alreadyGone: 1,
        unsettled: 0,
      },
    },
    {
      name: 'failed writes count as failed, whatever else they say',
      decisions: [
        input('Create', 'a', { error: refused }),
        input('Delete', 'b', { error: refused, alreadyGone: true }),
      ],
      expected: {
        counts: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
        failed: { Create: 1, Update: 0, Delete: 1, Skip: 0 },
        alreadyGone: 0,
        unsettled: 0,
      },
    },
  ];
  it.each(cases)('$name', ({ decisions, expected }) => {
    const ctx = passContext();
    for (const decision of decisions) ctx.ledger.decide(decision);
    const { recorder } = ctx.ledger;
    expect({ ...recorder.tally(), unsettled: recorder.unsettled }).toEqual(expected);
    expect(recorder.decisions).toHaveLength(decisions.length);
  });

  it('records alreadyGone on the Decision only when it is so', () => {
    const ctx = passContext();
    ctx.ledger.decide(input('Delete', 'gone', { alreadyGone: true }));
    ctx.ledger.decide(input('Delete', 'there', { alreadyGone: false }));
    expect(ctx.ledger.recorder.decisions.map((d) => d.alreadyGone)).toEqual([true, undefined]);
    expect('alreadyGone' in (ctx.ledger.recorder.decisions[1] ?? {})).toBe(false);
  });

  it('unsettle counts a Decision a full pass would make again, beside the Skips', () => {
    const ctx = passContext();
    ctx.ledger.decide(input('Skip', 'a'));
    ctx.ledger.unsettle();
    ctx.ledger.unsettle();
    expect(ctx.ledger.recorder.unsettled).toBe(3);
  });
});

describe('decide: the known copies', () => {
  const cases: Array<{ name: string; decision: DecisionInput; expected: object }> = [
    { name: 'a Create', decision: input('Create', 'a'), expected: { state: 'written' } },
    { name: 'an Update', decision: input('Update', 'a'), expected: { state: 'written' } },
    { name: 'a Delete', decision: input('Delete', 'a'), expected: { state: 'deleted' } },
    {
      name: 'a Delete that found it gone',
      decision: input('Delete', 'a', { alreadyGone: true }),
      expected: { state: 'deleted' },
    },
    { name: 'a Skip', decision: input('Skip', 'a'), expected: { state: 'unknown' } },
    {
      name: 'a failed Create',
      decision: input('Create', 'a', { error: new Error('refused') }),
      expected: { state: 'unknown' },
    },
    {
      name: 'a Create of a kind no kind refers to',
      decision: input('Create', 'a', { rule: SECRET }),
      expected: { state: 'unknown' },
    },
  ];
  it.each(cases)('$name: the copy is $expected.state', ({ decision, expected }) => {
    const l = ledger({ referenced: [CONFIGMAP] });
    l.decide(decision);
    expect(l.copies.lookup(decision.rule, 'a-copy')).toEqual(expected);
    expect(l.copies.lookup(decision.rule, 'b-copy')).toEqual({ state: 'unknown' });
  });

  it('a later Decision about the copy replaces what an earlier one said', () => {
    const l = ledger({ referenced: [CONFIGMAP] });
    l.decide(input('Create', 'a'));
    l.decide(input('Delete', 'a'));
    expect(l.copies.lookup(CONFIGMAP, 'a-copy')).toEqual({ state: 'deleted' });
  });

  it('without referenced kinds nothing is known: every copy must be read', () => {
    const l = ledger();
    l.decide(input('Create', 'a'));
    l.copies.listed(CONFIGMAP, new Map([['b-copy', cm(HOST_NS, 'b-copy')]]));
    expect(l.copies.lookup(CONFIGMAP, 'a-copy')).toEqual({ state: 'unknown' });
    expect(l.copies.lookup(CONFIGMAP, 'b-copy')).toEqual({ state: 'unknown' });
  });

  it('a listing of a referenced kind answers for every name, a write of this pass first', () => {
    const l = ledger({ referenced: [CONFIGMAP] });
    const listedCopy = cm(HOST_NS, 'b-copy');
    l.copies.listed(
      CONFIGMAP,
      new Map([
        ['a-copy', cm(HOST_NS, 'a-copy')],
        ['b-copy', listedCopy],
      ]),
    );
    l.decide(input('Delete', 'a'));
    expect(l.copies.lookup(CONFIGMAP, 'a-copy')).toEqual({ state: 'deleted' });
    expect(l.copies.lookup(CONFIGMAP, 'b-copy')).toEqual({ state: 'listed', copy: listedCopy });
    expect(l.copies.lookup(CONFIGMAP, 'c-copy')).toEqual({ state: 'listed', copy: undefined });
    // Another version of a kind is another kind.
    expect(l.copies.lookup({ apiVersion: 'v2', kind: 'ConfigMap' }, 'b-copy')).toEqual({
      state: 'unknown',
    });
  });
});

describe('terminating copies', () => {
  const terminating = (name: string, kind: KindRef = CONFIGMAP, namespace = HOST_NS) =>
    ({ ...kind, metadata: { namespace, name } }) as KubeObject;

  it('each copy counts once, however many paths meet it; wanted once, wanted for good', () => {
    const ctx = passContext();
    const { ledger: l } = ctx;
    expect([l.terminating, l.terminatingWanted]).toEqual([0, 0]);
    l.countTerminating(terminating('a')); // found by GC
    l.countTerminating(terminating('a'), 'wanted'); // and by apply, which still wants it
    l.countTerminating(terminating('a'));
    expect([l.terminating, l.terminatingWanted]).toEqual([1, 1]);
    l.countTerminating(terminating('b'));
    expect([l.terminating, l.terminatingWanted]).toEqual([2, 1]);
  });

  it.each([
    { name: 'another name', first: terminating('a'), other: terminating('b') },
    {
      name: 'another namespace',
      first: terminating('a'),
      other: terminating('a', CONFIGMAP, 'tenant-dev-old'),
    },
    { name: 'another kind', first: terminating('a'), other: terminating('a', SECRET) },
    {
      name: 'another apiVersion',
      first: terminating('a', WIDGET),
      other: terminating('a', WIDGET_V2),
    },
  ])('a copy of $name is another copy', ({ first, other }) => {
    const { ledger: l } = passContext();
    l.countTerminating(first, 'wanted');
    l.countTerminating(other, 'wanted');
    expect([l.terminating, l.terminatingWanted]).toEqual([2, 2]);
  });
});

describe('what complete listings wanted', () => {
  const sources = new Set(['default/a', 'default/b']);

  it('kept during a namespace move (passContext keepWanted), by apiVersion and kind', () => {
    const { ledger: l } = passContext({ keepWanted: true });
    l.listedWanted(CONFIGMAP, sources);
    l.listedWanted(WIDGET, new Set(['default/w']));
    expect(l.wantedSources(CONFIGMAP)).toBe(sources);
    expect(l.wantedSources(WIDGET)).toEqual(new Set(['default/w']));
    expect(l.wantedSources(WIDGET_V2)).toBeUndefined();
    expect(l.wantedSources(SECRET)).toBeUndefined();
  });

  it('a later complete listing of the kind replaces the earlier one', () => {
    const { ledger: l } = passContext({ keepWanted: true });
    l.listedWanted(CONFIGMAP, sources);
    l.listedWanted(CONFIGMAP, new Set());
    expect(l.wantedSources(CONFIGMAP)).toEqual(new Set());
  });

  it.each([
    { name: 'a steady pass (passContext)', make: () => passContext().ledger },
    { name: 'keepWanted false', make: () => ledger({ keepWanted: false }) },
    { name: 'keepWanted not given', make: () => ledger() },
  ])('not kept in $name', ({ make }) => {
    const l = make();
    l.listedWanted(CONFIGMAP, sources);
    expect(l.wantedSources(CONFIGMAP)).toBeUndefined();
  });
});

describe('kinds started and objects seen', () => {
  it('a kind starts once; its objects are counted from 0 by kind name', () => {
    const { ledger: l } = passContext();
    expect(l.kindsStarted).toBe(0);
    expect(l.hasStarted(CONFIGMAP)).toBe(false);
    l.startKind(CONFIGMAP);
    l.startKind(SECRET);
    expect(l.objectsSeen).toEqual({ ConfigMap: 0, Secret: 0 });
    l.sawObject('ConfigMap');
    l.sawObject('ConfigMap');
    l.startKind(CONFIGMAP); // started again: still once, its count kept
    expect(l.kindsStarted).toBe(2);
    expect(l.hasStarted(CONFIGMAP)).toBe(true);
    expect(l.hasStarted(WIDGET)).toBe(false);
    expect(l.objectsSeen).toEqual({ ConfigMap: 2, Secret: 0 });
  });

  it('two versions of a kind are two kinds started, their objects seen under one name', () => {
    const { ledger: l } = passContext();
    l.startKind(WIDGET);
    l.startKind(WIDGET_V2);
    l.sawObject('Widget');
    expect(l.kindsStarted).toBe(2);
    expect(l.hasStarted(WIDGET_V2)).toBe(true);
    expect(l.objectsSeen).toEqual({ Widget: 1 });
  });
});

describe('warnings, bookkeeping and progress', () => {
  it('keeps warnings in the order given', () => {
    const { ledger: l } = passContext();
    l.warn({ reason: 'MassDeleteGuard', message: 'held 20 deletions' });
    l.warn({ reason: 'Other', message: 'second' });
    expect(l.warnings).toEqual([
      { reason: 'MassDeleteGuard', message: 'held 20 deletions' },
      { reason: 'Other', message: 'second' },
    ]);
  });

  it.each([
    { dryRun: false, expected: 2 },
    { dryRun: true, expected: 0 },
  ])('bookkeeping writes with dryRun $dryRun: $expected', ({ dryRun, expected }) => {
    const { ledger: l } = passContext({ dryRun });
    l.bookkept();
    l.bookkept();
    expect(l.bookkeeping).toBe(expected);
  });

  it('progress goes to whoever listens, when someone does', () => {
    const l = ledger();
    l.progress({ kind: 'ConfigMap', listed: 1, written: 0 }); // no listener: nothing happens
    const heard: unknown[] = [];
    l.onProgress = (p) => heard.push(p);
    l.progress({ kind: 'ConfigMap', listed: 2, written: 1 });
    expect(heard).toEqual([{ kind: 'ConfigMap', listed: 2, written: 1 }]);
  });
});
