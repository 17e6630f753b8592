/**
 * A host Gateway as the tenant sees it, pure: the allowed Gateways of the policy's parents, each
 * once; the copy in the host Gateway's namespace and name with its spec and the engine's marks,
 * only the allowed listeners when every entry names one; the host status with each condition's
 * generation in the copy's terms; the merge patch that turns one status into another.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  allowedGateways,
  GATEWAY,
  gatewayCopy,
  gatewayStatus,
  mergePatch,
} from '../../../../lib/engine/classes/gateway-copy.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

const listener = (name: string) => ({ name, protocol: 'HTTP', port: 80 });
const condition = (type: string, observedGeneration: number) => ({
  type,
  status: 'True',
  observedGeneration,
});
const host = (listeners: string[], over: Partial<KubeObject> = {}): KubeObject => ({
  ...GATEWAY,
  metadata: {
    namespace: 'gateways',
    name: 'shared',
    uid: 'u1',
    resourceVersion: '7',
    generation: 4,
    labels: { team: 'edge', 'tenantplane.io/tenant': 'other' },
  },
  spec: { gatewayClassName: 'example', listeners: listeners.map(listener) },
  status: {
    addresses: [{ type: 'IPAddress', value: '192.0.2.1' }],
    conditions: [condition('Accepted', 4), condition('Programmed', 3)],
    listeners: listeners.map((name) => ({
      name,
      attachedRoutes: 1,
      conditions: [condition('Programmed', 4)],
    })),
  },
  ...over,
});

describe('allowed Gateways', () => {
  it.each([
    ['one entry, every listener', [{ namespace: 'g', name: 'a' }], [{ namespace: 'g', name: 'a' }]],
    [
      'two listeners of one Gateway, sorted Gateways',
      [
        { namespace: 'g', name: 'b', sectionName: 'https' },
        { namespace: 'g', name: 'a' },
        { namespace: 'g', name: 'b', sectionName: 'http' },
      ],
      [
        { namespace: 'g', name: 'a' },
        { namespace: 'g', name: 'b', sections: new Set(['https', 'http']) },
      ],
    ],
    [
      'an entry without a listener makes the whole Gateway allowed',
      [
        { namespace: 'g', name: 'a', sectionName: 'https' },
        { namespace: 'g', name: 'a' },
      ],
      [{ namespace: 'g', name: 'a' }],
    ],
    ['none', [], []],
  ])('%s', (_, parents, expected) => {
    expect(allowedGateways(parents)).toEqual(expected);
  });
});

describe('the tenant copy of a host Gateway', () => {
  it('keeps the namespace, name, spec and labels, with the engine’s marks and nothing of the host’s identity or status', () => {
    const copy = gatewayCopy(
      host(['http', 'https']),
      { namespace: 'gateways', name: 'shared' },
      't1',
    );
    expect(copy).toEqual({
      ...GATEWAY,
      metadata: {
        namespace: 'gateways',
        name: 'shared',
        labels: {
          team: 'edge',
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': 't1',
          'tenantplane.io/from-host': 'true',
        },
        annotations: {},
      },
      spec: host(['http', 'https']).spec,
    });
  });

  it.each([
    ['one allowed listener', ['https'], ['https']],
    ['two allowed listeners, in the host’s order', ['https', 'http'], ['http', 'https']],
    ['a listener the host lacks is not invented', ['https', 'grpc'], ['https']],
  ])('%s', (_, sections, kept) => {
    const allowed = { namespace: 'gateways', name: 'shared', sections: new Set(sections) };
    const copy = gatewayCopy(host(['http', 'https']), allowed, 't1');
    expect(copy?.spec).toMatchObject({ listeners: kept.map(listener) });
    const status = gatewayStatus(host(['http', 'https']), allowed, 1);
    expect((status.listeners as { name: string }[]).map((l) => l.name)).toEqual(kept);
  });

  it('is none when no allowed listener is on the host Gateway', () => {
    const allowed = { namespace: 'gateways', name: 'shared', sections: new Set(['grpc']) };
    expect(gatewayCopy(host(['http']), allowed, 't1')).toBeUndefined();
  });

  it('never shows a listener outside the allowed ones (property)', () => {
    const name = fc.constantFrom<string>('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1 }), fc.array(name), (onHost, sections) => {
        const allowed = { namespace: 'gateways', name: 'shared', sections: new Set(sections) };
        const copy = gatewayCopy(host(onHost), allowed, 't1');
        const shown = copy ? (copy.spec as { listeners: { name: string }[] }).listeners : [];
        expect(shown.every((l) => sections.includes(l.name))).toBe(true);
        expect(copy === undefined).toBe(!onHost.some((l) => sections.includes(l)));
        if (copy) expect(copy.metadata).toMatchObject({ namespace: 'gateways', name: 'shared' });
      }),
    );
  });
});

describe('the status a copy shows', () => {
  it('is the host’s, a condition about the host’s current spec at the copy’s generation, an older one older', () => {
    const status = gatewayStatus(host(['http']), { namespace: 'gateways', name: 'shared' }, 2);
    expect(status).toEqual({
      addresses: [{ type: 'IPAddress', value: '192.0.2.1' }],
      conditions: [condition('Accepted', 2), condition('Programmed', 1)],
      listeners: [{ name: 'http', attachedRoutes: 1, conditions: [condition('Programmed', 2)] }],
    });
  });

  it('is empty when the host Gateway has none', () => {
    const bare = host(['http'], { status: undefined });
    expect(gatewayStatus(bare, { namespace: 'gateways', name: 'shared' }, 1)).toEqual({});
  });
});

describe('the status merge patch', () => {
  it.each([
    ['equal: none', { a: [1] }, { a: [1] }, undefined],
    ['a list replaced whole', { a: [1, 2] }, { a: [1] }, { a: [1, 2] }],
    ['a key the host lacks removed', { a: [1] }, { a: [1], b: 'x' }, { b: null }],
    [
      'a record merged key by key',
      { r: { x: 1, y: 2 } },
      { r: { x: 1, z: 3 } },
      { r: { y: 2, z: null } },
    ],
    ['a new key added', { a: 1, n: { k: 'v' } }, { a: 1 }, { n: { k: 'v' } }],
  ])('%s', (_, desired, observed, patch) => {
    expect(mergePatch(desired, observed)).toEqual(patch);
  });
});
