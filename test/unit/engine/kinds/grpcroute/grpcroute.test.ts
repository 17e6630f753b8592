/**
 * The GRPCRoute translator: the route rules every route kind shares (`kinds/httproute/route.ts`,
 * whose table is `test/unit/engine/kinds/httproute/route.test.ts`), for the GRPCRoute's own
 * fields: its parents, its rules' backends and filters' mirrors, its hostnames, claimed per kind.
 */
import { describe, expect, it } from '@jest/globals';
import { kindModule, referencesOf } from '../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../lib/engine/names/naming.js';
import {
  GATEWAY_API,
  HOST_SUFFIXES,
  PARENT,
  routeObject,
  routeTranslator,
} from '../httproute/support.js';
import { TENANT } from '../support.js';

const GRPC_ROUTE = { apiVersion: GATEWAY_API, kind: 'GRPCRoute' };
const GATEWAYS = { parents: [PARENT], hostSuffixes: HOST_SUFFIXES };
const grpc = (over: Record<string, unknown> = {}) =>
  routeObject(GRPC_ROUTE.kind, {
    parentRefs: [PARENT],
    hostnames: ['api.apps.example.com'],
    rules: [
      {
        matches: [{ method: { service: 'shop.Cart', method: 'Add' } }],
        backendRefs: [{ name: 'cart', port: 9090 }],
        filters: [
          {
            type: 'RequestMirror',
            requestMirror: { backendRef: { name: 'shadow', port: 9090 } },
          },
        ],
      },
    ],
    ...over,
  });

const under = routeTranslator(GATEWAYS);

describe('GRPCRoute translator', () => {
  it('backends and mirrors name the copies; the parent keeps its Gateway; matches as written', () => {
    const result = under(grpc());
    expect(result).toHaveProperty('host.spec', {
      parentRefs: [PARENT],
      hostnames: ['api.apps.example.com'],
      rules: [
        {
          matches: [{ method: { service: 'shop.Cart', method: 'Add' } }],
          backendRefs: [{ name: hostName('cart', 'shop', TENANT), port: 9090 }],
          filters: [
            {
              type: 'RequestMirror',
              requestMirror: {
                backendRef: { name: hostName('shadow', 'shop', TENANT), port: 9090 },
              },
            },
          ],
        },
      ],
    });
    expect(referencesOf(grpc()).map((r) => r.name)).toEqual(['cart', 'shadow']);
  });

  it.each([
    [
      'a Gateway not listed',
      grpc({ parentRefs: [{ name: 'internal', namespace: 'gateways' }] }),
      'spec.parentRefs[0] names the Gateway gateways/internal, which is not one the policy allows',
    ],
    [
      'a backend in another namespace',
      grpc({ rules: [{ backendRefs: [{ name: 'cart', namespace: 'other', port: 9090 }] }] }),
      'spec.rules[0].backendRefs[0].namespace "other" is another namespace',
    ],
    [
      'a hostname outside the suffixes',
      grpc({ hostnames: ['api.bank.example.org'] }),
      'spec.hostnames[0] "api.bank.example.org" is not a hostname the policy allows',
    ],
  ])('%s: a Skip naming the field', (_name, object, says) => {
    expect(under(object)).toEqual({ refused: expect.stringContaining(says) });
  });

  it('a hostname another GRPCRoute of the host namespace claimed first is refused', () => {
    const claims = new Map([['api.apps.example.com', { others: '2024-01-01T00:00:00Z other' }]]);
    expect(under(grpc(), claims)).toEqual({
      refused:
        'spec.hostnames[0] "api.apps.example.com" is already served by another GRPCRoute of the host namespace, which named it first',
    });
  });

  it('the module brings back status.parents', () => {
    expect(kindModule(GRPC_ROUTE).statusBack?.fields).toEqual(['parents']);
  });
});
