/**
 * The HTTPRoute translator: parents only host Gateways the policy lists, backends only Services of
 * the route's own namespace (renamed to their host copies), hostnames under the policy's suffixes
 * and not claimed first by another route of the host namespace; and the status back, with each
 * parent as the tenant wrote it.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { HostClaim } from '../../../../../lib/engine/kinds/frame/host-claims.js';
import { routeStatusToTenant } from '../../../../../lib/engine/kinds/httproute/route.js';
import { kindModule, referencesOf } from '../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../lib/engine/names/naming.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT } from '../support.js';
import {
  GATEWAY_API as API,
  HOST_SUFFIXES,
  PARENT,
  routeObject,
  routeTranslator,
} from './support.js';

const GATEWAYS = {
  parents: [
    { namespace: 'gateways', name: 'shared' },
    { namespace: 'gateways', name: 'edge', sectionName: 'https' },
  ],
  hostSuffixes: HOST_SUFFIXES,
};
const route = (spec: Record<string, unknown>) => routeObject('HTTPRoute', spec);
const spec = (over: Record<string, unknown> = {}) => ({
  parentRefs: [PARENT],
  hostnames: ['shop.apps.example.com'],
  rules: [{ backendRefs: [{ name: 'web', port: 80 }] }],
  ...over,
});

/** The translation under `spec.workloads.gateways` = `limits`, the host's claims as given. */
const under = routeTranslator(GATEWAYS);

function hostOf(object: KubeObject): KubeObject {
  const result = under(object);
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host;
}

describe('HTTPRoute translator', () => {
  it('parents keep the host Gateway (namespace made explicit); backends and mirrors name the copies', () => {
    const host = hostOf(
      route(
        spec({
          parentRefs: [
            { name: 'shared', namespace: 'gateways' },
            { name: 'edge', namespace: 'gateways', sectionName: 'https' },
          ],
          rules: [
            {
              backendRefs: [
                { name: 'web', port: 80, weight: 90 },
                { name: 'canary', namespace: 'shop', port: 80, weight: 10 },
              ],
              filters: [
                {
                  type: 'RequestMirror',
                  requestMirror: { backendRef: { name: 'shadow', port: 80 } },
                },
              ],
            },
          ],
        }),
      ),
    );
    const hostSpec = host.spec as Record<string, unknown>;
    expect(host.metadata).toMatchObject({
      namespace: HOST_NAMESPACE,
      name: hostName('web', 'shop', TENANT),
    });
    expect(hostSpec.parentRefs).toEqual([
      { name: 'shared', namespace: 'gateways' },
      { name: 'edge', namespace: 'gateways', sectionName: 'https' },
    ]);
    expect(hostSpec.rules).toEqual([
      {
        backendRefs: [
          { name: hostName('web', 'shop', TENANT), port: 80, weight: 90 },
          { name: hostName('canary', 'shop', TENANT), port: 80, weight: 10 },
        ],
        filters: [
          {
            type: 'RequestMirror',
            requestMirror: { backendRef: { name: hostName('shadow', 'shop', TENANT), port: 80 } },
          },
        ],
      },
    ]);
    expect(hostSpec.hostnames).toEqual(['shop.apps.example.com']);
  });

  it('a parent without a namespace is a Gateway of the route’s own namespace', () => {
    const own = {
      parents: [{ namespace: 'shop', name: 'mine' }],
      hostSuffixes: ['.apps.example.com'],
    };
    const result = under(route(spec({ parentRefs: [{ name: 'mine' }] })), new Map(), own);
    expect(result).toHaveProperty('host.spec.parentRefs', [{ name: 'mine', namespace: 'shop' }]);
  });

  const refused: Array<{ name: string; spec: Record<string, unknown>; says: string }> = [
    {
      name: 'a Gateway the policy does not list',
      spec: spec({ parentRefs: [{ name: 'internal', namespace: 'gateways' }] }),
      says: 'spec.parentRefs[0] names the Gateway gateways/internal, which is not one the policy allows (spec.workloads.gateways.parents: gateways/shared, gateways/edge:https)',
    },
    {
      name: 'a listener other than the one listed',
      spec: spec({ parentRefs: [{ name: 'edge', namespace: 'gateways', sectionName: 'admin' }] }),
      says: 'spec.parentRefs[0] names the Gateway gateways/edge (listener admin), which is not one',
    },
    {
      name: 'no listener where the policy lists one',
      spec: spec({ parentRefs: [PARENT, { name: 'edge', namespace: 'gateways' }] }),
      says: 'spec.parentRefs[1] names the Gateway gateways/edge, which is not one',
    },
    {
      name: 'a parent that is not a Gateway (a mesh Service)',
      spec: spec({ parentRefs: [{ group: '', kind: 'Service', name: 'web' }] }),
      says: 'spec.parentRefs[0] is a Service of group "", not a Gateway',
    },
    {
      name: 'a backend in another namespace (another tenant’s copies are not reachable either)',
      spec: spec({
        rules: [{ backendRefs: [{ name: 'web', namespace: 'tenant-victim', port: 80 }] }],
      }),
      says: 'spec.rules[0].backendRefs[0].namespace "tenant-victim" is another namespace',
    },
    {
      name: 'a backend of another kind',
      spec: spec({
        rules: [{ backendRefs: [{ group: 'example.com', kind: 'Bucket', name: 'b' }] }],
      }),
      says: 'spec.rules[0].backendRefs[0] is a Bucket of group "example.com"',
    },
    {
      name: 'a mirror to another namespace',
      spec: spec({
        rules: [
          {
            backendRefs: [{ name: 'web', port: 80 }],
            filters: [
              {
                type: 'RequestMirror',
                requestMirror: { backendRef: { name: 'x', namespace: 'other' } },
              },
            ],
          },
        ],
      }),
      says: 'spec.rules[0].filters[0].requestMirror.backendRef.namespace "other" is another namespace',
    },
    {
      name: 'an extension filter',
      spec: spec({
        rules: [
          {
            backendRefs: [{ name: 'web', port: 80 }],
            filters: [
              { type: 'ExtensionRef', extensionRef: { group: 'x.io', kind: 'Lua', name: 'l' } },
            ],
          },
        ],
      }),
      says: 'spec.rules[0].filters[0].extensionRef names an object of the gateway implementation',
    },
    {
      name: 'a filter the engine does not know (an experimental external auth with a backend)',
      spec: spec({
        rules: [
          {
            backendRefs: [{ name: 'web', port: 80 }],
            filters: [
              {
                type: 'ExternalAuth',
                externalAuth: { protocol: 'HTTP', backendRef: { name: 'auth', namespace: 'x' } },
              },
            ],
          },
        ],
      }),
      says: 'spec.rules[0].filters[0].externalAuth is a filter the engine does not know',
    },
    {
      name: 'a route field the engine does not know (default Gateways, attached unnamed)',
      spec: spec({ useDefaultGateways: 'All' }),
      says: 'spec.useDefaultGateways is a route field the engine does not know',
    },
    {
      name: 'a rule field the engine does not know',
      spec: spec({ rules: [{ backendRefs: [{ name: 'web' }], mirrorEverything: true }] }),
      says: 'spec.rules[0].mirrorEverything is a route field the engine does not know',
    },
    {
      name: 'a hostname outside the suffixes',
      spec: spec({ hostnames: ['shop.apps.example.com', 'login.bank.example.org'] }),
      says: 'spec.hostnames[1] "login.bank.example.org" is not a hostname the policy allows (spec.workloads.gateways.hostSuffixes: .apps.example.com)',
    },
    {
      name: 'no hostnames: every hostname of the listener',
      spec: spec({ hostnames: [] }),
      says: 'spec.hostnames is empty, so the route would answer for every hostname',
    },
  ];

  it.each(refused)('$name: a Skip naming the field', ({ spec: s, says }) => {
    const result = under(route(s));
    expect(result).toEqual({ refused: expect.stringContaining(says) });
  });

  it('a hostname another route of the host namespace claimed first is refused, its own kept', () => {
    const claims = new Map<string, HostClaim>([
      ['shop.apps.example.com', { others: '2024-01-01T00:00:00Z victim' }],
      ['*.mine.apps.example.com', { others: '2024-01-01T00:00:00Z victim' }],
      [
        'own.apps.example.com',
        { ours: '2024-01-01T00:00:00Z a', others: '2025-01-01T00:00:00Z b' },
      ],
    ]);
    expect(under(route(spec()), claims)).toEqual({
      refused:
        'spec.hostnames[0] "shop.apps.example.com" is already served by another HTTPRoute of the host namespace, which named it first',
    });
    const wild = under(route(spec({ hostnames: ['a.mine.apps.example.com'] })), claims);
    expect(wild).toEqual({
      refused: expect.stringContaining('through its *.mine.apps.example.com'),
    });
    expect(under(route(spec({ hostnames: ['own.apps.example.com'] })), claims)).toHaveProperty(
      'host',
    );
    expect(under(route(spec()), null)).toEqual({
      refused: expect.stringContaining("the host namespace's HTTPRoutes were not read"),
    });
  });

  it('the default policy allows no Gateway', () => {
    expect(under(route(spec()), new Map(), {})).toEqual({
      refused: expect.stringContaining('(spec.workloads.gateways.parents: none)'),
    });
  });

  it('references: the backends’ Services, optional', () => {
    expect(referencesOf(route(spec()))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'web',
        path: 'spec.rules[0].backendRefs[0]',
        optional: true,
      },
    ]);
  });

  it('every backend of any allowed route names a copy of its own namespace and tenant (property)', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(fc.array(fc.array(name, { maxLength: 3 }), { maxLength: 3 }), (rules) => {
        const s = spec({
          rules: rules.map((names) => ({ backendRefs: names.map((n) => ({ name: n })) })),
        });
        const host = hostOf(route(s));
        const hostRules = (host.spec as { rules: Array<{ backendRefs: Array<{ name: string }> }> })
          .rules;
        const want = rules.map((names) => names.map((n) => hostName(n, 'shop', TENANT)));
        expect(hostRules.map((r) => r.backendRefs.map((b) => b.name))).toEqual(want);
      }),
    );
  });
});

describe('HTTPRoute status back', () => {
  const accepted = {
    type: 'Accepted',
    status: 'True',
    reason: 'Accepted',
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    observedGeneration: 1,
  };
  const tenant = route(
    spec({ parentRefs: [{ name: 'shared', namespace: 'gateways' }, { name: 'mine' }] }),
  );
  tenant.metadata.namespace = 'gateways';
  const entry = (parentRef: Record<string, unknown>) => ({
    parentRef,
    controllerName: 'example.com/gateway',
    conditions: [accepted],
  });

  it('each parent as the tenant wrote it; an entry about no parent of the tenant’s left out', () => {
    const host = {
      parents: [
        entry({
          group: 'gateway.networking.k8s.io',
          kind: 'Gateway',
          name: 'shared',
          namespace: 'gateways',
        }),
        entry({ name: 'mine', namespace: 'gateways' }),
        entry({ name: 'stale', namespace: 'gateways' }),
      ],
    };
    expect(routeStatusToTenant(host, tenant)).toEqual({
      parents: [entry({ name: 'shared', namespace: 'gateways' }), entry({ name: 'mine' })],
    });
  });

  it('the module brings back status.parents, not waited for', () => {
    const rule = kindModule({ apiVersion: API, kind: 'HTTPRoute' }).statusBack;
    expect(rule?.fields).toEqual(['parents']);
    expect(rule?.settled(tenant)).toBe(true);
  });
});
