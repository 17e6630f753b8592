/** The one key function and selector scoping: tables for the shapes, properties for the promises. */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type ApiLabelSelector,
  carriedLabels,
  hostLabelKey,
  hostLabels,
  namespaceRequirements,
  type SelectorScope,
  scopeLabelSelector,
  scopeSelectorMap,
} from '../../../../../lib/engine/kinds/frame/selectors.js';
import { Labels } from '../../../../../lib/engine/names/metadata.js';
import { reverseMappingLabels } from '../../../../../lib/engine/names/reverse-mapping.js';
import { selects } from '../../../../fixtures/label-selectors.js';

const CARRIED_MANAGED_BY = 'app.kubernetes.io.carried.tenantplane.io/managed-by';

describe('hostLabelKey', () => {
  const cases = [
    { name: 'a plain key stays', key: 'app', expected: 'app' },
    { name: 'a prefixed key stays', key: 'example.com/tier', expected: 'example.com/tier' },
    {
      name: 'managed-by is carried',
      key: 'app.kubernetes.io/managed-by',
      expected: CARRIED_MANAGED_BY,
    },
    {
      name: 'an engine key other than the scope is carried',
      key: 'tenantplane.io/kind',
      expected: 'tenantplane.io.carried.tenantplane.io/kind',
    },
    {
      name: 'a subdomain of the reserved domain is carried',
      key: 'x.tenantplane.io/evil',
      expected: 'x.tenantplane.io.carried.tenantplane.io/evil',
    },
    {
      name: 'a carried key stays (idempotent)',
      key: CARRIED_MANAGED_BY,
      expected: CARRIED_MANAGED_BY,
    },
    { name: 'the tenant scope key stays', key: Labels.Tenant, expected: Labels.Tenant },
    {
      name: 'the namespace scope key stays',
      key: Labels.VirtualNamespace,
      expected: Labels.VirtualNamespace,
    },
  ];
  it.each(cases)('$name: $key', ({ key, expected }) => {
    expect(hostLabelKey(key)).toBe(expected);
  });

  it('replaces a prefix too long to carry by its digest, still a valid key prefix', () => {
    const prefix = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(50)}.tenantplane.io`;
    const carried = hostLabelKey(`${prefix}/x`);
    expect(carried).toMatch(/^h[0-9a-f]{16}\.carried\.tenantplane\.io\/x$/);
    expect(hostLabelKey(carried)).toBe(carried);
  });
});

describe('carriedLabels and hostLabels', () => {
  const labels = {
    app: 'web',
    'app.kubernetes.io/managed-by': 'Helm',
    [Labels.Tenant]: 'victim',
    [Labels.VirtualNamespace]: 'other',
  };
  it('carries the reserved keys only, never the scope keys', () => {
    expect(carriedLabels(labels)).toEqual({ [CARRIED_MANAGED_BY]: 'Helm' });
    expect(carriedLabels(labels, (k) => k.startsWith('app.kubernetes.io/'))).toEqual({});
  });
  it('maps every key, leaving out the scope keys', () => {
    expect(hostLabels(labels)).toEqual({ app: 'web', [CARRIED_MANAGED_BY]: 'Helm' });
  });
});

describe('scopeSelectorMap', () => {
  it('scopes a Service selector, a reserved key carried, a spoofed scope replaced', () => {
    expect(
      scopeSelectorMap(
        { app: 'web', 'app.kubernetes.io/managed-by': 'Helm', [Labels.Tenant]: 'victim' },
        { tenant: 'dev', virtualNamespace: 'shop' },
      ),
    ).toEqual({
      app: 'web',
      [CARRIED_MANAGED_BY]: 'Helm',
      [Labels.Tenant]: 'dev',
      [Labels.VirtualNamespace]: 'shop',
    });
  });
});

describe('scopeLabelSelector', () => {
  const one: SelectorScope = { tenant: 'dev', virtualNamespace: 'shop' };
  const cases: Array<{
    name: string;
    selector: unknown;
    scope: SelectorScope;
    expected: ApiLabelSelector;
  }> = [
    {
      name: 'everything ({}) becomes everything of the virtual namespace',
      selector: {},
      scope: one,
      expected: { matchLabels: { [Labels.Tenant]: 'dev', [Labels.VirtualNamespace]: 'shop' } },
    },
    {
      name: 'expressions keep their order, keys mapped, scope requirements replaced',
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'app.kubernetes.io/managed-by', operator: 'In', values: ['Helm'] },
          { key: Labels.VirtualNamespace, operator: 'Exists' },
          { key: 'tier', operator: 'NotIn', values: ['db'] },
        ],
      },
      scope: one,
      expected: {
        matchLabels: { app: 'web', [Labels.Tenant]: 'dev', [Labels.VirtualNamespace]: 'shop' },
        matchExpressions: [
          { key: CARRIED_MANAGED_BY, operator: 'In', values: ['Helm'] },
          { key: 'tier', operator: 'NotIn', values: ['db'] },
        ],
      },
    },
    {
      name: 'several virtual namespaces: a requirement on the namespace label',
      selector: { matchLabels: { app: 'web' } },
      scope: {
        tenant: 'dev',
        virtualNamespace: [{ key: Labels.VirtualNamespace, operator: 'In', values: ['a', 'b'] }],
      },
      expected: {
        matchLabels: { app: 'web', [Labels.Tenant]: 'dev' },
        matchExpressions: [{ key: Labels.VirtualNamespace, operator: 'In', values: ['a', 'b'] }],
      },
    },
    {
      name: 'every virtual namespace of the tenant: the tenant label alone',
      selector: { matchLabels: { app: 'web' } },
      scope: { tenant: 'dev', virtualNamespace: [] },
      expected: { matchLabels: { app: 'web', [Labels.Tenant]: 'dev' } },
    },
  ];
  it.each(cases)('$name', ({ selector, scope, expected }) => {
    expect(scopeLabelSelector(selector, scope)).toEqual(expected);
  });

  it('never mutates its input', () => {
    const selector = {
      matchExpressions: [{ key: 'app.kubernetes.io/managed-by', operator: 'Exists' }],
    };
    const before = structuredClone(selector);
    scopeLabelSelector(selector, one);
    expect(selector).toEqual(before);
  });
});

describe('namespaceRequirements', () => {
  const cases = [
    { name: 'every namespace: no requirement', selector: {}, expected: { requirements: [] } },
    {
      name: 'a namespace by name',
      selector: { matchLabels: { 'kubernetes.io/metadata.name': 'billing' } },
      expected: {
        requirements: [{ key: Labels.VirtualNamespace, operator: 'In', values: ['billing'] }],
      },
    },
    {
      name: 'namespaces by a name expression',
      selector: {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['x'] },
        ],
      },
      expected: {
        requirements: [{ key: Labels.VirtualNamespace, operator: 'NotIn', values: ['x'] }],
      },
    },
    {
      name: 'a namespace label the host cannot see is refused, naming it',
      selector: { matchLabels: { team: 'frontend' } },
      expected: {
        refused:
          'its namespaceSelector selects namespaces by the label "team", which the host cannot see: only kubernetes.io/metadata.name can be translated',
      },
    },
  ];
  it.each(cases)('$name', ({ selector, expected }) => {
    expect(namespaceRequirements(selector)).toEqual(expected);
  });
});

// Properties. Small alphabets, so that tenants, namespaces and keys collide often.
const tenants = fc.constantFrom('dev', 'prod', 'a-x-b');
const namespaces = fc.constantFrom('default', 'shop', 'billing');
const plainKeys = [
  'app',
  'tier',
  'example.com/team',
  'app.kubernetes.io/managed-by',
  'tenantplane.io/kind',
  'x.tenantplane.io/y',
];
const anyKeys = [
  ...plainKeys,
  Labels.Tenant,
  Labels.VirtualNamespace,
  CARRIED_MANAGED_BY,
  Labels.ManagedBy,
];
const values = fc.constantFrom('web', 'db', 'Helm', 'tenantplane', 'dev', 'shop', '');

function selectorOf(keys: readonly string[]): fc.Arbitrary<ApiLabelSelector> {
  const key = fc.constantFrom(...keys);
  const expression = fc.oneof(
    fc.record({
      key,
      operator: fc.constantFrom('In', 'NotIn'),
      values: fc.array(values, { minLength: 1, maxLength: 2 }),
    }),
    fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
  );
  return fc.record(
    {
      matchLabels: fc.dictionary(key, values, { maxKeys: 2 }),
      matchExpressions: fc.array(expression, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
}
const labelsOf = (keys: readonly string[]) =>
  fc.dictionary(fc.constantFrom(...keys), values, { maxKeys: 4 });

/** A tenant Pod's labels on the host: the tenant's under the key function, then the engine's. */
function hostPodLabels(labels: Record<string, string>, tenant: string, vns: string) {
  return { ...hostLabels(labels), ...reverseMappingLabels(tenant, 'Pod', vns) };
}

describe('selector scoping properties', () => {
  it('the key function is idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...anyKeys), fc.string()), (key) => {
        expect(hostLabelKey(hostLabelKey(key))).toBe(hostLabelKey(key));
      }),
    );
  });

  it('scoping is idempotent', () => {
    fc.assert(
      fc.property(selectorOf(anyKeys), tenants, namespaces, (selector, tenant, vns) => {
        const scope = { tenant, virtualNamespace: vns };
        const once = scopeLabelSelector(selector, scope);
        expect(scopeLabelSelector(once, scope)).toEqual(once);
        const map = scopeSelectorMap(selector.matchLabels, scope);
        expect(scopeSelectorMap(map, scope)).toEqual(map);
      }),
    );
  });

  it('is injective across tenants and virtual namespaces', () => {
    fc.assert(
      fc.property(
        selectorOf(anyKeys),
        selectorOf(anyKeys),
        tenants,
        namespaces,
        tenants,
        namespaces,
        (s1, s2, t1, v1, t2, v2) => {
          fc.pre(t1 !== t2 || v1 !== v2);
          const a = scopeLabelSelector(s1, { tenant: t1, virtualNamespace: v1 });
          const b = scopeLabelSelector(s2, { tenant: t2, virtualNamespace: v2 });
          expect(a).not.toEqual(b);
        },
      ),
    );
  });

  it('a scoped selector never matches a Pod of another tenant or virtual namespace', () => {
    fc.assert(
      fc.property(
        selectorOf(anyKeys),
        labelsOf(anyKeys),
        tenants,
        namespaces,
        tenants,
        namespaces,
        (selector, labels, t1, v1, t2, v2) => {
          fc.pre(t1 !== t2 || v1 !== v2);
          const scoped = scopeLabelSelector(selector, { tenant: t1, virtualNamespace: v1 });
          expect(selects(scoped, hostPodLabels(labels, t2, v2))).toBe(false);
          const map = scopeSelectorMap(selector.matchLabels, { tenant: t1, virtualNamespace: v1 });
          expect(selects(map, hostPodLabels(labels, t2, v2))).toBe(false);
        },
      ),
    );
  });

  it('selects on the host exactly the Pods it selects in the tenant namespace, reserved keys included', () => {
    fc.assert(
      fc.property(
        selectorOf(plainKeys),
        labelsOf(plainKeys),
        tenants,
        namespaces,
        (selector, labels, tenant, vns) => {
          const scoped = scopeLabelSelector(selector, { tenant, virtualNamespace: vns });
          expect(selects(scoped, hostPodLabels(labels, tenant, vns))).toBe(
            selects(selector, labels),
          );
        },
      ),
    );
  });
});
