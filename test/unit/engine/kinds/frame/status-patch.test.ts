/**
 * Status back for Services, Ingresses and claims, pure: the merge patch that makes the tenant
 * object show its host copy's status, only what differs.
 */
import { describe, expect, it } from '@jest/globals';
import { kindModule } from '../../../../../lib/engine/kinds/registry.js';

/** The status-back rule a kind's module names, if any. */
const statusBackRule = (kind: { apiVersion: string; kind: string }) => kindModule(kind).statusBack;

import {
  type StatusBackRule,
  statusBackPatch,
} from '../../../../../lib/engine/kinds/frame/status-patch.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

const object = (
  kind: { apiVersion: string; kind: string },
  status?: Record<string, unknown>,
  spec?: Record<string, unknown>,
): KubeObject => ({
  ...kind,
  metadata: { name: 'web', namespace: 'shop' },
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});
const LB = { ingress: [{ ip: '203.0.113.7' }] };
const BOUND = {
  phase: 'Bound',
  capacity: { storage: '1Gi' },
  accessModes: ['ReadWriteOnce'],
};

describe('statusBackRule', () => {
  it.each([
    [SERVICE, ['loadBalancer', 'conditions']],
    [INGRESS, ['loadBalancer']],
    [
      CLAIM,
      [
        'phase',
        'capacity',
        'accessModes',
        'conditions',
        'allocatedResources',
        'allocatedResourceStatuses',
      ],
    ],
  ])('%o carries its fields', (kind, fields) => {
    expect(statusBackRule(kind)?.fields).toEqual(fields);
  });

  it.each([[{ apiVersion: 'v1', kind: 'ConfigMap' }], [{ apiVersion: 'v1', kind: 'Pod' }]])(
    '%o has none here',
    (kind) => {
      expect(statusBackRule(kind)).toBeUndefined();
    },
  );
});

describe('statusBackPatch', () => {
  const rule = (kind: { apiVersion: string; kind: string }) =>
    statusBackRule(kind) as StatusBackRule;
  const cases: Array<{
    name: string;
    kind: { apiVersion: string; kind: string };
    host: Record<string, unknown> | undefined;
    tenant: Record<string, unknown> | undefined;
    patch: Record<string, unknown> | undefined;
  }> = [
    {
      name: 'a load balancer address comes to the tenant Service',
      kind: SERVICE,
      host: { loadBalancer: LB },
      tenant: { loadBalancer: {} },
      patch: { loadBalancer: LB },
    },
    {
      name: 'the same address: nothing',
      kind: SERVICE,
      host: { loadBalancer: LB },
      tenant: { loadBalancer: LB },
      patch: undefined,
    },
    {
      name: 'an empty load balancer status on both sides, or none: nothing',
      kind: SERVICE,
      host: { loadBalancer: {} },
      tenant: undefined,
      patch: undefined,
    },
    {
      name: 'an address the host dropped is dropped in the tenant',
      kind: INGRESS,
      host: { loadBalancer: {} },
      tenant: { loadBalancer: LB },
      patch: { loadBalancer: null },
    },
    {
      name: 'a claim bound on the host is bound in the tenant, other fields left alone',
      kind: CLAIM,
      host: { ...BOUND, conditions: [] },
      tenant: { phase: 'Pending', somethingElse: 1 },
      patch: BOUND,
    },
    {
      name: 'a bound claim shown: nothing',
      kind: CLAIM,
      host: BOUND,
      tenant: BOUND,
      patch: undefined,
    },
  ];
  it.each(cases)('$name', ({ kind, host, tenant, patch }) => {
    expect(statusBackPatch(rule(kind), object(kind, host), object(kind, tenant))).toEqual(patch);
  });

  it('settled: a claim once Bound; Services and Ingresses at once (a load balancer may never come)', () => {
    expect(rule(CLAIM).settled(object(CLAIM, { phase: 'Pending' }))).toBe(false);
    expect(rule(CLAIM).settled(object(CLAIM, BOUND))).toBe(true);
    const lb = { type: 'LoadBalancer' };
    expect(rule(SERVICE).settled(object(SERVICE, { loadBalancer: {} }, lb))).toBe(true);
    expect(rule(INGRESS).settled(object(INGRESS, { loadBalancer: {} }))).toBe(true);
  });
});

describe('a claim’s conditions from a host of another release', () => {
  const rule = statusBackRule(CLAIM) as StatusBackRule;
  const unused = {
    type: 'Unused',
    status: 'True',
    reason: 'NoPodsUsingPVC',
    lastTransitionTime: '2026-12-06T10:06:56Z',
  };
  const resizing = { type: 'Resizing', status: 'True', lastTransitionTime: '2026-12-06T10:07:00Z' };

  it('keeps the tenant’s own Unused condition, which a 1.33 host never reports: nothing to write', () => {
    const host = object(CLAIM, BOUND);
    const tenant = object(CLAIM, { ...BOUND, conditions: [unused] });
    expect(statusBackPatch(rule, host, tenant)).toBeUndefined();
  });

  it('takes the host’s other conditions beside it, and never the host’s Unused', () => {
    const hostUnused = { ...unused, status: 'False', reason: 'PodsUsingPVC' };
    const host = object(CLAIM, { ...BOUND, conditions: [hostUnused, resizing] });
    const tenant = object(CLAIM, { ...BOUND, conditions: [unused] });
    expect(statusBackPatch(rule, host, tenant)).toEqual({ conditions: [resizing, unused] });
    const shown = object(CLAIM, { ...BOUND, conditions: [resizing, unused] });
    expect(statusBackPatch(rule, host, shown)).toBeUndefined();
    // Once the host's resize is done, its condition goes; the tenant's own stays.
    expect(statusBackPatch(rule, object(CLAIM, BOUND), shown)).toEqual({ conditions: [unused] });
  });
});

describe('statusBackPatch with a rule that names host objects', () => {
  const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };
  // The host names its parent `gw` in `gateways`; the tenant wrote it as `front`.
  const rule: StatusBackRule = {
    kind: WIDGET,
    fields: ['parents'],
    settled: () => true,
    toTenant: (status) => ({
      parents: (status.parents as Array<Record<string, unknown>>).map((p) => ({
        ...p,
        name: p.name === 'gw' ? 'front' : p.name,
      })),
    }),
  };
  const host = object(WIDGET, { parents: [{ name: 'gw', accepted: true }] });

  it('patches the tenant status in tenant names, then nothing once it shows them', () => {
    const shown = { parents: [{ name: 'front', accepted: true }] };
    expect(statusBackPatch(rule, host, object(WIDGET))).toEqual(shown);
    expect(statusBackPatch(rule, host, object(WIDGET, shown))).toBeUndefined();
  });
});
