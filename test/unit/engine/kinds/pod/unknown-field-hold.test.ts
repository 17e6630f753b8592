/**
 * A running Pod that gets a field the engine does not know (a newer tenant apiserver that defaults
 * it on every Pod) keeps its host copy as it was: no update, no delete, a Skip that says so. A Pod
 * without a copy gets none. Every other refusal of a running Pod is a deliberate tenant change and
 * still collects its copy.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const NEW_FIELD = 'podQuota';
const ALLOWED = { workloads: { pods: { allowFields: [`spec.${NEW_FIELD}`] } } };

const pod = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  ...POD,
  metadata: { namespace: 'shop', name, uid: `uid-${name}` },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }], ...spec },
});
/** The Pod as a newer tenant apiserver shows it: with a field this engine does not know. */
const withNewField = (p: KubeObject, extra: Record<string, unknown> = {}): KubeObject => ({
  ...p,
  spec: { ...(p.spec as object), [NEW_FIELD]: { cpu: '2' }, ...extra },
});

/** The host copies a pass makes of `pods` under the policy `spec`, as the host holds them. */
async function copiesOf(pods: KubeObject[], spec: Record<string, unknown> = {}) {
  const { tenantApi, hostApi } = clusters(pods, [], { toHost: [POD], ...spec });
  const made = await runPass({ tenant: 'dev', tenantApi, hostApi });
  expect(made.errors).toEqual([]);
  return hostApi.objects(POD).filter((o) => o.metadata.namespace === HOST_NS);
}

/** Every host namespace object as `Kind name uid@resourceVersion`. */
const versions = (objects: readonly KubeObject[]) =>
  objects
    .filter((o) => o.metadata.namespace === HOST_NS)
    .map((o) => `${o.kind} ${o.metadata.name} ${o.metadata.uid}@${o.metadata.resourceVersion}`)
    .sort();

const KEPT =
  /^the Pod sets spec\.podQuota, a field this engine does not know .*; kept: the host copy keeps running as it was \(neither updated nor deleted\); nothing is written until the engine knows the field or the policy allows it; .*\(spec\.workloads\.pods\.allowFields: spec\.podQuota\)$/;
const NOT_CREATED =
  /^the Pod sets spec\.podQuota, a field this engine does not know .*; it gets no host copy: nothing is written until the engine knows the field or the policy allows it; /;

interface Case {
  name: string;
  /** The tenant Pods now. */
  tenantState: KubeObject[];
  /** The copies on the host before the pass: those a pass made of these Pods (and policy). */
  hostState: { of: KubeObject[]; policy?: Record<string, unknown> };
  /** The policy of the pass. */
  policy?: Record<string, unknown>;
  /** `unchanged`: every host namespace object at the uid@resourceVersion it had. */
  expectedHostState: 'unchanged' | string[];
  expectedDecisions: string[];
  expectedReasons?: RegExp[];
}

const WEB = hn('shop', 'web');
const API = hn('shop', 'api');
const CASES: Case[] = [
  {
    name: 'a running Pod gets a field the engine does not know: its copy kept as it was',
    tenantState: [withNewField(pod('web'))],
    hostState: { of: [pod('web')] },
    expectedHostState: 'unchanged',
    expectedDecisions: [`Skip Pod shop/web -> ${WEB}`],
    expectedReasons: [KEPT],
  },
  {
    name: 'every running Pod gets it at once (a newer apiserver defaults it): all kept, nothing for the delete guard to hold',
    tenantState: ['a', 'b', 'c', 'd', 'e'].map((n) => withNewField(pod(n))),
    hostState: { of: ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)) },
    expectedHostState: 'unchanged',
    expectedDecisions: ['a', 'b', 'c', 'd', 'e'].map(
      (n) => `Skip Pod shop/${n} -> ${hn('shop', n)}`,
    ),
    expectedReasons: [KEPT, KEPT, KEPT, KEPT, KEPT],
  },
  {
    name: 'it also changes what an update would write (an image): still nothing written',
    tenantState: [withNewField(pod('web'), { containers: [{ name: 'c', image: 'i:2' }] })],
    hostState: { of: [pod('web')] },
    expectedHostState: 'unchanged',
    expectedDecisions: [`Skip Pod shop/web -> ${WEB}`],
    expectedReasons: [KEPT],
  },
  {
    name: 'a new Pod with the field: no copy made',
    tenantState: [pod('web'), withNewField(pod('api'))],
    hostState: { of: [pod('web')] },
    expectedHostState: 'unchanged',
    expectedDecisions: [`Skip Pod shop/api -> ${API}`],
    expectedReasons: [NOT_CREATED],
  },
  {
    name: 'the policy allows the field: the copy made with it is in sync, nothing to say',
    tenantState: [withNewField(pod('web'))],
    hostState: { of: [withNewField(pod('web'))], policy: ALLOWED },
    policy: ALLOWED,
    expectedHostState: 'unchanged',
    expectedDecisions: [],
  },
  {
    name: 'the policy allows it, the copy kept without it: a change a running Pod cannot take, no write',
    tenantState: [withNewField(pod('web'))],
    hostState: { of: [pod('web')] },
    policy: ALLOWED,
    expectedHostState: 'unchanged',
    expectedDecisions: [`Skip Pod shop/web -> ${WEB}`],
    expectedReasons: [/^the Pod.s spec\.podQuota changed; a running Pod cannot change it/],
  },
  {
    name: 'the policy allows it, a new Pod: created with the field',
    tenantState: [withNewField(pod('api'))],
    hostState: { of: [] },
    policy: ALLOWED,
    expectedHostState: [`Pod ${API}`],
    expectedDecisions: [`Create Pod shop/api -> ${API}`],
  },
  {
    name: 'another refusal with it (host network): a deliberate change, the copy goes as before',
    tenantState: [withNewField(pod('web'), { hostNetwork: true }), pod('a'), pod('b')],
    hostState: { of: [pod('web'), pod('a'), pod('b')] },
    expectedHostState: [`Pod ${hn('shop', 'a')}`, `Pod ${hn('shop', 'b')}`],
    expectedDecisions: [`Delete Pod shop/web -> ${WEB}`, `Skip Pod shop/web -> ${WEB}`],
  },
];

describe('a Pod field the engine does not know, on a running Pod', () => {
  it.each(CASES)(
    '$name',
    async ({
      tenantState,
      hostState,
      policy,
      expectedHostState,
      expectedDecisions,
      expectedReasons,
    }) => {
      const copies = await copiesOf(hostState.of, hostState.policy);
      const { tenantApi, hostApi } = clusters(tenantState, copies, { toHost: [POD], ...policy });
      const before = versions(hostApi.objects());
      for (const n of [1, 2]) {
        const result = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
        expect({ n, errors: result.errors }).toEqual({ n, errors: [] });
        if (n === 2) continue;
        const pods = result.decisions.filter((d) => d.kind === 'Pod');
        expect(decisionLines(pods)).toEqual(expectedDecisions);
        if (expectedReasons) {
          const reasons = [...pods].sort((a, b) =>
            a.tenantRef.name.localeCompare(b.tenantRef.name),
          );
          expect(reasons.map((d) => d.reason)).toEqual(
            expectedReasons.map((r) => expect.stringMatching(r)),
          );
        }
      }
      if (expectedHostState === 'unchanged') expect(versions(hostApi.objects())).toEqual(before);
      else
        expect(
          hostApi
            .objects(POD)
            .map((o) => `Pod ${o.metadata.name}`)
            .sort(),
        ).toEqual(expectedHostState);
    },
  );
});

describe('on a resumed pass (the tenant Pod changed, the watch brings it)', () => {
  it('keeps the copy as it was: no write, the Skip saying so', async () => {
    const { tenantApi, hostApi } = clusters([pod('web')], [], { toHost: [POD] });
    const run = () => runPass({ tenant: 'dev', tenantApi, hostApi });
    expect((await run()).errors).toEqual([]);
    expect((await run()).path).toBe('resumed');
    const before = versions(hostApi.objects());
    await tenantApi.update(withNewField(tenantApi.peek(POD, 'shop', 'web') as KubeObject));
    const kept = await run();
    expect(kept.errors).toEqual([]);
    expect({ path: kept.path, why: kept.pathReason }).toEqual({ path: 'resumed', why: undefined });
    expect(kept.decisions.filter((d) => d.kind === 'Pod').map((d) => d.reason)).toEqual([
      expect.stringMatching(KEPT),
    ]);
    expect(versions(hostApi.objects())).toEqual(before);
  });
});
