/**
 * The TLSRoute translator: the route rules every route kind shares (`kinds/httproute/route.ts`,
 * whose table is `test/unit/engine/kinds/httproute/route.test.ts`), for the TLSRoute's fields:
 * its parents, its SNI hostnames (claimed among the TLSRoutes), its rules' backends.
 */
import { describe, expect, it } from '@jest/globals';
import { kindModule } from '../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../lib/engine/names/naming.js';
import {
  GATEWAY_API,
  HOST_SUFFIXES,
  routeObject,
  routeTranslator,
  PARENT as SHARED,
} from '../httproute/support.js';
import { TENANT } from '../support.js';

const TLS_ROUTE = { apiVersion: GATEWAY_API, kind: 'TLSRoute' };
const PARENT = { ...SHARED, sectionName: 'tls' };
const GATEWAYS = { parents: [PARENT], hostSuffixes: HOST_SUFFIXES };
const tls = (over: Record<string, unknown> = {}) =>
  routeObject(TLS_ROUTE.kind, {
    parentRefs: [PARENT],
    hostnames: ['db.apps.example.com'],
    rules: [{ backendRefs: [{ name: 'db', port: 5432 }] }],
    ...over,
  });

const under = routeTranslator(GATEWAYS);

describe('TLSRoute translator', () => {
  it('the backend names the copy; the parent keeps its Gateway and listener', () => {
    expect(under(tls())).toHaveProperty('host.spec', {
      parentRefs: [PARENT],
      hostnames: ['db.apps.example.com'],
      rules: [{ backendRefs: [{ name: hostName('db', 'shop', TENANT), port: 5432 }] }],
    });
  });

  it.each([
    [
      'another listener',
      tls({ parentRefs: [{ ...PARENT, sectionName: 'admin' }] }),
      'spec.parentRefs[0] names the Gateway gateways/shared (listener admin), which is not one',
    ],
    [
      'a backend in another namespace',
      tls({ rules: [{ backendRefs: [{ name: 'db', namespace: 'other', port: 5432 }] }] }),
      'spec.rules[0].backendRefs[0].namespace "other" is another namespace',
    ],
    [
      'an SNI name outside the suffixes',
      tls({ hostnames: ['db.bank.example.org'] }),
      'spec.hostnames[0] "db.bank.example.org" is not a hostname the policy allows',
    ],
  ])('%s: a Skip naming the field', (_name, object, says) => {
    expect(under(object)).toEqual({ refused: expect.stringContaining(says) });
  });

  it('an SNI name another TLSRoute of the host namespace claimed first is refused', () => {
    const claims = new Map([['db.apps.example.com', { others: '2024-01-01T00:00:00Z other' }]]);
    expect(under(tls(), claims)).toEqual({
      refused: expect.stringContaining(
        'is already served by another TLSRoute of the host namespace',
      ),
    });
    expect(kindModule(TLS_ROUTE).statusBack?.fields).toEqual(['parents']);
  });
});
