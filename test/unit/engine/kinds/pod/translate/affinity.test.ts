/**
 * A Pod's affinity terms and topology spread constraints stay inside its tenant and virtual
 * namespace: tables for the shapes and refusals, a property for the promise.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type ApiLabelSelector,
  hostLabels,
} from '../../../../../../lib/engine/kinds/frame/selectors.js';
import { podSelectorFields } from '../../../../../../lib/engine/kinds/pod/translate/affinity.js';
import { Labels } from '../../../../../../lib/engine/names/metadata.js';
import { reverseMappingLabels } from '../../../../../../lib/engine/names/reverse-mapping.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { selects } from '../../../../../fixtures/label-selectors.js';
import { hostOf, TENANT, tenantObject, translated } from '../../support.js';

type Spec = Record<string, unknown>;
const web = { name: 'web', image: 'nginx:1' };
const pod = (spec: Spec) => tenantObject('v1', 'Pod', { spec: { containers: [web], ...spec } });
const ZONE = 'topology.kubernetes.io/zone';
const CARRIED_MANAGED_BY = 'app.kubernetes.io.carried.tenantplane.io/managed-by';
/** The scope labels of virtual namespace `shop` of tenant `dev` (the table's Pod). */
const OWN = { [Labels.Tenant]: TENANT, [Labels.VirtualNamespace]: 'shop' };
const vnsIn = (...values: string[]) => ({
  key: Labels.VirtualNamespace,
  operator: 'In',
  values,
});
const byName = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });

const affinity = (kind: 'podAffinity' | 'podAntiAffinity', term: Spec) => ({
  affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: [term] } },
});
const preferred = (term: Spec) => ({
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: term }],
    },
  },
});

describe('Pod affinity and topology spread on the host', () => {
  const cases: Array<{ name: string; tenantState: Spec; expectedHostState: Spec }> = [
    {
      name: 'a required affinity term is scoped to the Pod’s own virtual namespace',
      tenantState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'db' } },
        topologyKey: ZONE,
      }),
      expectedHostState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'db', ...OWN } },
        topologyKey: ZONE,
      }),
    },
    {
      name: 'a preferred anti-affinity term is scoped, its weight kept, a reserved key carried',
      tenantState: preferred({
        labelSelector: {
          matchExpressions: [
            { key: 'app.kubernetes.io/managed-by', operator: 'In', values: ['Helm'] },
          ],
        },
        topologyKey: 'kubernetes.io/hostname',
      }),
      expectedHostState: preferred({
        labelSelector: {
          matchLabels: OWN,
          matchExpressions: [{ key: CARRIED_MANAGED_BY, operator: 'In', values: ['Helm'] }],
        },
        topologyKey: 'kubernetes.io/hostname',
      }),
    },
    {
      name: 'listed namespaces become a virtual-namespace requirement; the field leaves',
      tenantState: affinity('podAntiAffinity', {
        labelSelector: { matchLabels: { app: 'web' } },
        namespaces: ['shop', 'billing'],
        topologyKey: ZONE,
      }),
      expectedHostState: affinity('podAntiAffinity', {
        labelSelector: {
          matchLabels: { app: 'web', [Labels.Tenant]: TENANT },
          matchExpressions: [vnsIn('shop', 'billing')],
        },
        topologyKey: ZONE,
      }),
    },
    {
      name: 'a namespaceSelector by name is translated; its union with namespaces is one In',
      tenantState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'web' } },
        namespaces: ['shop'],
        namespaceSelector: byName('billing'),
        topologyKey: ZONE,
      }),
      expectedHostState: affinity('podAffinity', {
        labelSelector: {
          matchLabels: { app: 'web', [Labels.Tenant]: TENANT },
          matchExpressions: [vnsIn('billing', 'shop')],
        },
        topologyKey: ZONE,
      }),
    },
    {
      name: 'namespaceSelector {} reaches every virtual namespace of the tenant, no other tenant',
      tenantState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'web' } },
        namespaces: ['shop'],
        namespaceSelector: {},
        topologyKey: ZONE,
      }),
      expectedHostState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'web', [Labels.Tenant]: TENANT } },
        topologyKey: ZONE,
      }),
    },
    {
      name: 'a term without a selector stays without one; matchLabelKeys and mismatchLabelKeys drop',
      tenantState: affinity('podAntiAffinity', {
        namespaces: ['billing'],
        matchLabelKeys: ['pod-template-hash'],
        mismatchLabelKeys: ['tier'],
        topologyKey: ZONE,
      }),
      expectedHostState: affinity('podAntiAffinity', { topologyKey: ZONE }),
    },
    {
      name: 'node affinity is kept as written',
      tenantState: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
          },
        },
      },
      expectedHostState: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
          },
        },
      },
    },
    {
      name: 'topology spread counts the own virtual namespace only; matchLabelKeys drop; none stays none',
      tenantState: {
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } },
            matchLabelKeys: ['pod-template-hash'],
          },
          { maxSkew: 2, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      },
      expectedHostState: {
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc', ...OWN } },
          },
          { maxSkew: 2, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      },
    },
  ];
  it.each(cases)('$name', ({ tenantState, expectedHostState }) => {
    expect(hostOf(pod(tenantState)).spec).toMatchObject(expectedHostState);
    const spec = hostOf(pod(tenantState)).spec as Spec;
    for (const field of ['affinity', 'topologySpreadConstraints']) {
      expect(spec[field]).toEqual(expectedHostState[field]);
    }
  });

  const refusals: Array<{ name: string; tenantState: Spec; says: RegExp }> = [
    {
      name: 'a namespaceSelector on a namespace label the host cannot see',
      tenantState: affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'db' } },
        namespaceSelector: { matchLabels: { team: 'shop' } },
        topologyKey: ZONE,
      }),
      says: /affinity term spec\.affinity\.podAffinity\.requiredDuringSchedulingIgnoredDuringExecution\[0\] cannot be translated: .*"team"/,
    },
    {
      name: 'a preferred term’s namespaceSelector expression on another label',
      tenantState: preferred({
        labelSelector: { matchLabels: { app: 'db' } },
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Exists' }] },
        topologyKey: ZONE,
      }),
      says: /spec\.affinity\.podAntiAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]\.podAffinityTerm cannot be translated: .*"env"/,
    },
    {
      name: 'a union of namespaces and a selector that is not one In',
      tenantState: affinity('podAntiAffinity', {
        labelSelector: { matchLabels: { app: 'db' } },
        namespaces: ['shop'],
        namespaceSelector: {
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['billing'] },
          ],
        },
        topologyKey: ZONE,
      }),
      says: /podAntiAffinity\.requiredDuringSchedulingIgnoredDuringExecution\[0\] cannot be translated: .*union/,
    },
  ];
  it.each(refusals)('refuses the Pod for $name, naming the term', ({ tenantState, says }) => {
    expect(translated(pod(tenantState))).toEqual({ refused: expect.stringMatching(says) });
  });

  it('never mutates the tenant object', () => {
    const source = pod(
      affinity('podAffinity', {
        labelSelector: { matchLabels: { app: 'db' } },
        namespaces: ['billing'],
        matchLabelKeys: ['x'],
        topologyKey: ZONE,
      }),
    );
    const before = structuredClone(source);
    hostOf(source);
    expect(source).toEqual(before);
  });
});

// Property: small alphabets, so that tenants, namespaces and keys collide often.
const tenants = fc.constantFrom('dev', 'prod', 'a-x-b');
const namespaces = fc.constantFrom('default', 'shop', 'billing');
const keys = [
  'app',
  'tier',
  'app.kubernetes.io/managed-by',
  Labels.Tenant,
  Labels.VirtualNamespace,
  CARRIED_MANAGED_BY,
];
const values = fc.constantFrom('web', 'db', 'Helm', 'tenantplane', 'dev', 'shop');
const key = fc.constantFrom(...keys);
const selector: fc.Arbitrary<ApiLabelSelector> = fc.record(
  {
    matchLabels: fc.dictionary(key, values, { maxKeys: 2 }),
    matchExpressions: fc.array(
      fc.oneof(
        fc.record({
          key,
          operator: fc.constantFrom('In', 'NotIn'),
          values: fc.array(values, { minLength: 1, maxLength: 2 }),
        }),
        fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
      ),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);
const term = fc.record(
  {
    labelSelector: selector,
    namespaces: fc.array(namespaces, { maxLength: 2 }),
    namespaceSelector: fc.oneof(
      fc.constant({}),
      namespaces.map(byName),
      fc.constant({
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['shop'] },
        ],
      }),
    ),
  },
  { requiredKeys: ['labelSelector'] },
);

/** Every selector of a translated spec: affinity terms and spread constraints. */
function selectorsOf(spec: Spec): ApiLabelSelector[] {
  const found: ApiLabelSelector[] = [];
  const affinityOf = (spec.affinity ?? {}) as Record<string, Record<string, Spec[]>>;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinityOf[kind] ?? {};
    for (const t of a.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      found.push(t.labelSelector as ApiLabelSelector);
    }
    for (const w of a.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
      found.push((w.podAffinityTerm as Spec).labelSelector as ApiLabelSelector);
    }
  }
  for (const c of (spec.topologySpreadConstraints ?? []) as Spec[]) {
    found.push(c.labelSelector as ApiLabelSelector);
  }
  return found;
}

describe('scoped affinity selectors', () => {
  it('never match a Pod of another tenant, nor of a virtual namespace the term does not reach', () => {
    fc.assert(
      fc.property(
        term,
        term,
        selector,
        fc.dictionary(key, values, { maxKeys: 4 }),
        tenants,
        namespaces,
        tenants,
        namespaces,
        (required, weighted, spread, labels, t1, v1, t2, v2) => {
          const source: KubeObject = {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'p', namespace: v1 },
            spec: {
              containers: [web],
              affinity: {
                podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [required] },
                podAntiAffinity: {
                  preferredDuringSchedulingIgnoredDuringExecution: [
                    { weight: 1, podAffinityTerm: weighted },
                  ],
                },
              },
              topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, labelSelector: spread }],
            },
          };
          const result = podSelectorFields(source.spec, { tenant: t1, virtualNamespace: v1 });
          if (!('fields' in result)) throw new Error(result.refused);
          const [req, pref, spr] = selectorsOf(result.fields) as [
            ApiLabelSelector,
            ApiLabelSelector,
            ApiLabelSelector,
          ];
          // A host Pod's labels: the tenant's under the key function, then the engine's scope.
          const other = { ...hostLabels(labels), ...reverseMappingLabels(t2, 'Pod', v2) };
          const reaches = (t: Spec) => {
            const names = (t.namespaces as string[] | undefined) ?? [];
            const ns = t.namespaceSelector as { matchLabels?: Record<string, string> } | undefined;
            if (ns === undefined) return names.length === 0 ? v2 === v1 : names.includes(v2);
            if (Object.keys(ns).length === 0) return true;
            const named = ns.matchLabels?.['kubernetes.io/metadata.name'] ?? 'shop';
            return names.includes(v2) || named === v2;
          };
          if (t1 !== t2 || !reaches(required)) expect(selects(req, other)).toBe(false);
          if (t1 !== t2 || !reaches(weighted)) expect(selects(pref, other)).toBe(false);
          if (t1 !== t2 || v1 !== v2) expect(selects(spr, other)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
