/** The PodDisruptionBudget translator: its selector scoped to the tenant and virtual namespace. */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type ApiLabelSelector,
  hostLabels,
} from '../../../../../lib/engine/kinds/frame/selectors.js';
import {
  PDB_MODULE,
  PDB_TRANSLATOR,
} from '../../../../../lib/engine/kinds/pod-disruption-budget/pod-disruption-budget.js';
import { Labels } from '../../../../../lib/engine/names/metadata.js';
import { reverseMappingLabels } from '../../../../../lib/engine/names/reverse-mapping.js';
import { toHostObject } from '../../../../../lib/engine/object/transform.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { selects } from '../../../../fixtures/label-selectors.js';
import { HOST_NAMESPACE, hostOf as registryHostOf, TENANT, tenantObject } from '../support.js';

const CARRIED_MANAGED_BY = 'app.kubernetes.io.carried.tenantplane.io/managed-by';
const own = { [Labels.Tenant]: TENANT, [Labels.VirtualNamespace]: 'shop' };

const budget = (spec: Record<string, unknown>, namespace = 'shop') =>
  tenantObject('policy/v1', 'PodDisruptionBudget', { spec }, { namespace });

/** The generic transform, then the translator: what the registry does for a kind it lists. */
function hostOf(source: KubeObject, tenant = TENANT): KubeObject {
  const target = { tenant, hostNamespace: HOST_NAMESPACE };
  return PDB_TRANSLATOR.toHost(toHostObject(source, target), {
    ...target,
    virtualNamespace: source.metadata.namespace ?? '',
    source,
  });
}

describe('PodDisruptionBudget translator', () => {
  it('is the policy/v1 kind, and its module serves this translator', () => {
    expect(PDB_TRANSLATOR.kind).toEqual({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' });
    expect(PDB_MODULE).toEqual({ kind: PDB_TRANSLATOR.kind, translator: PDB_TRANSLATOR });
  });

  const cases: Array<{
    name: string;
    spec: Record<string, unknown>;
    expected: Record<string, unknown>;
  }> = [
    {
      name: 'matchLabels scoped to the tenant and virtual namespace; minAvailable untouched',
      spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } },
      expected: { minAvailable: 3, selector: { matchLabels: { app: 'web', ...own } } },
    },
    {
      name: 'matchExpressions kept in order, keys through the key function, scope spoofs dropped',
      spec: {
        maxUnavailable: '25%',
        selector: {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['web', 'api'] },
            { key: 'app.kubernetes.io/managed-by', operator: 'Exists' },
            { key: Labels.Tenant, operator: 'In', values: ['victim'] },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        },
      },
      expected: {
        maxUnavailable: '25%',
        selector: {
          matchLabels: own,
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['web', 'api'] },
            { key: CARRIED_MANAGED_BY, operator: 'Exists' },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        },
      },
    },
    {
      name: 'a spoofed scope label is replaced by the engine’s',
      spec: {
        minAvailable: 1,
        selector: { matchLabels: { app: 'web', [Labels.VirtualNamespace]: 'billing' } },
      },
      expected: { minAvailable: 1, selector: { matchLabels: { app: 'web', ...own } } },
    },
    {
      name: 'the empty selector (every Pod of the namespace) is every Pod of the virtual namespace',
      spec: { maxUnavailable: 1, selector: {} },
      expected: { maxUnavailable: 1, selector: { matchLabels: own } },
    },
    {
      name: 'an absent selector (no Pod at all in policy/v1) stays absent: it selects none on the host either',
      spec: { minAvailable: '50%', unhealthyPodEvictionPolicy: 'AlwaysAllow' },
      expected: { minAvailable: '50%', unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    },
    {
      name: 'maxUnavailable, minAvailable and the eviction policy stay as written',
      spec: {
        maxUnavailable: 0,
        unhealthyPodEvictionPolicy: 'IfHealthyBudget',
        selector: { matchLabels: { app: 'db' } },
      },
      expected: {
        maxUnavailable: 0,
        unhealthyPodEvictionPolicy: 'IfHealthyBudget',
        selector: { matchLabels: { app: 'db', ...own } },
      },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(budget(spec)).spec).toEqual(expected);
  });

  it('is listed in the registry, which serves the same host object', () => {
    const source = budget({ minAvailable: 3, selector: { matchLabels: { app: 'web' } } });
    expect(registryHostOf(source).spec).toEqual(hostOf(source).spec);
    expect(registryHostOf(source).spec).toEqual({
      minAvailable: 3,
      selector: { matchLabels: { app: 'web', ...own } },
    });
  });

  it('is renamed and re-namespaced by the generic transform; its status is not copied', () => {
    const source = {
      ...budget({ minAvailable: 3, selector: { matchLabels: { app: 'web' } } }),
      status: { expectedPods: 7, currentHealthy: 7, desiredHealthy: 3, disruptionsAllowed: 4 },
    };
    const host = hostOf(source);
    expect(host.metadata).toMatchObject({ name: 'web-x-shop-x-dev', namespace: HOST_NAMESPACE });
    expect(host.status).toBeUndefined();
  });

  it('never mutates the tenant object', () => {
    const source = budget({
      minAvailable: 2,
      selector: {
        matchLabels: { app: 'web', [Labels.Tenant]: 'victim' },
        matchExpressions: [{ key: 'app.kubernetes.io/managed-by', operator: 'Exists' }],
      },
    });
    const before = structuredClone(source);
    hostOf(source);
    expect(source).toEqual(before);
  });
});

// Small alphabets, so that tenants, namespaces and keys collide often, spoofed scope keys included.
const tenants = fc.constantFrom('dev', 'prod', 'a-x-b');
const namespaces = fc.constantFrom('default', 'shop', 'billing');
const keys = fc.constantFrom(
  'app',
  'tier',
  'example.com/team',
  'app.kubernetes.io/managed-by',
  Labels.Tenant,
  Labels.VirtualNamespace,
);
const values = fc.constantFrom('web', 'db', 'dev', 'shop', '');
const selectors: fc.Arbitrary<ApiLabelSelector> = fc.record(
  {
    matchLabels: fc.dictionary(keys, values, { maxKeys: 3 }),
    matchExpressions: fc.array(
      fc.oneof(
        fc.record({
          key: keys,
          operator: fc.constantFrom('In', 'NotIn'),
          values: fc.array(values, { minLength: 1, maxLength: 2 }),
        }),
        fc.record({ key: keys, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);

describe('PodDisruptionBudget translator properties', () => {
  it('the copy’s selector always requires the tenant and virtual-namespace labels, and never selects a Pod of another tenant or virtual namespace', () => {
    fc.assert(
      fc.property(
        selectors,
        tenants,
        namespaces,
        fc.dictionary(keys, values, { maxKeys: 4 }),
        tenants,
        namespaces,
        (selector, tenant, vns, podLabels, otherTenant, otherVns) => {
          const spec = { minAvailable: 1, selector };
          const host = hostOf(budget(spec, vns), tenant);
          const scoped = (host.spec as { selector: ApiLabelSelector }).selector;
          expect(scoped.matchLabels?.[Labels.Tenant]).toBe(tenant);
          expect(scoped.matchLabels?.[Labels.VirtualNamespace]).toBe(vns);
          expect(host.spec).toMatchObject({ minAvailable: 1 });
          // A host Pod carries the tenant's labels (through the key function) and the engine's.
          const podOf = (t: string, v: string) => ({
            ...hostLabels(podLabels),
            ...reverseMappingLabels(t, 'Pod', v),
          });
          if (otherTenant !== tenant || otherVns !== vns) {
            expect(selects(scoped, podOf(otherTenant, otherVns))).toBe(false);
          }
        },
      ),
    );
  });
});
