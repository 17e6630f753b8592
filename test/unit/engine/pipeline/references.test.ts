/**
 * Missing references and kind order: a Pod whose required reference has no host copy is not
 * created, its Decision names the reference; referenced kinds are applied first.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { applyOrder } from '../../../../lib/engine/pipeline/references.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  hostSummary,
  SECRET,
} from '../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

function pod(name: string, spec: Record<string, unknown>): KubeObject {
  return { ...POD, metadata: { namespace: 'shop', name, uid: `uid-${name}` }, spec };
}
const mountsConfig = (config: string, optional?: boolean) =>
  pod('web', {
    containers: [{ name: 'web', image: 'nginx' }],
    volumes: [{ name: 'config', configMap: { name: config, ...(optional ? { optional } : {}) } }],
  });

interface Case {
  name: string;
  toHost: Array<{ apiVersion: string; kind: string; exclude?: unknown }>;
  tenantState: KubeObject[];
  hostState: KubeObject[];
  expectedHostState: string[];
  expectedDecisions: string[];
  expectedReason?: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a ConfigMap listed after the Pod in the policy is applied first: both created',
    toHost: [POD, CONFIGMAP],
    tenantState: [mountsConfig('storefront'), cm('shop', 'storefront')],
    hostState: [],
    expectedHostState: [`ConfigMap ${hn('shop', 'storefront')}`, `Pod ${hn('shop', 'web')}`],
    expectedDecisions: [
      `Create ConfigMap shop/storefront -> ${hn('shop', 'storefront')}`,
      `Create Pod shop/web -> ${hn('shop', 'web')}`,
    ],
  },
  {
    name: 'a referenced ConfigMap that does not exist: the Pod is not created, the Skip says which',
    toHost: [CONFIGMAP, POD],
    tenantState: [mountsConfig('storefront')],
    hostState: [],
    expectedHostState: [],
    expectedDecisions: [`Skip Pod shop/web -> ${hn('shop', 'web')}`],
    expectedReason:
      /spec\.volumes\[config\]\.configMap refers to ConfigMap "storefront", which has no host copy yet/,
  },
  {
    name: 'a referenced kind not in the policy: the Skip says so',
    toHost: [POD],
    tenantState: [mountsConfig('storefront'), cm('shop', 'storefront')],
    hostState: [],
    expectedHostState: [],
    expectedDecisions: [`Skip Pod shop/web -> ${hn('shop', 'web')}`],
    expectedReason: /ConfigMap is not in the policy's toHost kinds/,
  },
  {
    name: 'a reference excluded by name: the Skip says so',
    toHost: [{ ...CONFIGMAP, exclude: { names: ['storefront'] } }, POD],
    tenantState: [mountsConfig('storefront'), cm('shop', 'storefront')],
    hostState: [],
    expectedHostState: [],
    expectedDecisions: [`Skip Pod shop/web -> ${hn('shop', 'web')}`],
    expectedReason: /which the policy excludes by name/,
  },
  {
    name: 'an optional reference never keeps a Pod off the host',
    toHost: [POD],
    tenantState: [mountsConfig('storefront', true)],
    hostState: [],
    expectedHostState: [`Pod ${hn('shop', 'web')}`],
    expectedDecisions: [`Create Pod shop/web -> ${hn('shop', 'web')}`],
  },
  {
    name: 'a foreign object at the reference’s host name is no copy: the Pod waits',
    toHost: [CONFIGMAP, POD],
    tenantState: [mountsConfig('storefront')],
    hostState: [{ ...CONFIGMAP, metadata: { namespace: HOST_NS, name: hn('shop', 'storefront') } }],
    expectedHostState: [`ConfigMap ${hn('shop', 'storefront')}`],
    expectedDecisions: [`Skip Pod shop/web -> ${hn('shop', 'web')}`],
    expectedReason: /no host copy yet/,
  },
  {
    name: 'a copy made by an earlier pass counts',
    toHost: [CONFIGMAP, POD],
    tenantState: [mountsConfig('storefront'), cm('shop', 'storefront')],
    hostState: [hostCopyOf(cm('shop', 'storefront'))],
    expectedHostState: [`ConfigMap ${hn('shop', 'storefront')}`, `Pod ${hn('shop', 'web')}`],
    expectedDecisions: [`Create Pod shop/web -> ${hn('shop', 'web')}`],
  },
];

describe('missing references', () => {
  it.each(CASES)('$name', async (c) => {
    const { tenantApi, hostApi } = clusters(c.tenantState, c.hostState, { toHost: c.toHost });
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi, budget: { concurrency: 1 } });
    expect(result.errors).toEqual([]);
    expect(hostSummary(hostApi).map((o) => o.ref)).toEqual(c.expectedHostState);
    expect(decisionLines(result.decisions)).toEqual(c.expectedDecisions);
    if (c.expectedReason) {
      expect(result.decisions.find((d) => d.action === 'Skip')?.reason).toMatch(c.expectedReason);
    }
  });

  it('is created in the pass where the reference exists, then passes write nothing', async () => {
    const toHost = [CONFIGMAP, POD];
    const { tenantApi, hostApi } = clusters([mountsConfig('storefront')], [], { toHost });
    const first = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(first.decisions)).toEqual([`Skip Pod shop/web -> ${hn('shop', 'web')}`]);
    tenantApi.seed(cm('shop', 'storefront'));
    const second = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(second.decisions)).toEqual([
      `Create ConfigMap shop/storefront -> ${hn('shop', 'storefront')}`,
      `Create Pod shop/web -> ${hn('shop', 'web')}`,
    ]);
    const third = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(third.decisions).toEqual([]);
    expect(third.requests.host.writes).toBe(0);
  });
});

describe('reference checks read only what the pass does not know', () => {
  const configGets = (api: ReturnType<typeof clusters>['hostApi']) =>
    api.callsOf('get').filter((c) => c.kind === 'ConfigMap').length;

  it.each([
    {
      name: 'a copy the same pass created',
      hostState: [] as KubeObject[],
      decisions: [
        `Create ConfigMap shop/storefront -> ${hn('shop', 'storefront')}`,
        `Create Pod shop/web -> ${hn('shop', 'web')}`,
      ],
    },
    {
      name: 'a copy the same pass listed',
      hostState: [hostCopyOf(cm('shop', 'storefront'))],
      decisions: [`Create Pod shop/web -> ${hn('shop', 'web')}`],
    },
  ])('$name: no GET', async ({ hostState, decisions }) => {
    const tenantState = [mountsConfig('storefront'), cm('shop', 'storefront')];
    const { tenantApi, hostApi } = clusters(tenantState, hostState, { toHost: [CONFIGMAP, POD] });
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual(decisions);
    expect(configGets(hostApi)).toBe(0);
  });

  it('a listed copy of another tenant at the name does not count', async () => {
    const foreign = hostCopyOf(cm('shop', 'storefront'));
    foreign.metadata.annotations = {
      ...foreign.metadata.annotations,
      'tenantplane.io/tenant': 'other',
    };
    foreign.metadata.labels = { ...foreign.metadata.labels, 'tenantplane.io/tenant': 'other' };
    const { tenantApi, hostApi } = clusters([mountsConfig('storefront')], [foreign], {
      toHost: [CONFIGMAP, POD],
    });
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([`Skip Pod shop/web -> ${hn('shop', 'web')}`]);
    expect(configGets(hostApi)).toBe(0);
  });

  it('a resumed ConfigMap kind (not listed): the copy is read once', async () => {
    const toHost = [CONFIGMAP, POD];
    const { tenantApi, hostApi } = clusters([cm('shop', 'storefront')], [], { toHost });
    await runPass({ tenant: 'dev', tenantApi, hostApi });
    tenantApi.seed(mountsConfig('storefront'));
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(result.path).toBe('resumed');
    expect(decisionLines(result.decisions)).toEqual([
      `Create Pod shop/web -> ${hn('shop', 'web')}`,
    ]);
    expect(configGets(hostApi)).toBe(1);
  });
});

describe('applyOrder', () => {
  it.each([
    {
      name: 'policy order without references',
      rules: [CONFIGMAP, SECRET],
      expected: ['ConfigMap', 'Secret'],
    },
    {
      name: 'Pods after everything they refer to',
      rules: [POD, CLAIM, SECRET, CONFIGMAP],
      expected: ['PersistentVolumeClaim', 'Secret', 'ConfigMap', 'Pod'],
    },
    {
      name: 'Pods after Services (the tenant DNS Service whose copy the Pod turn reads)',
      rules: [POD, { apiVersion: 'v1', kind: 'Service' }],
      expected: ['Service', 'Pod'],
    },
    {
      name: 'a kind not referred to keeps its place',
      rules: [{ apiVersion: 'example.com/v1', kind: 'Widget' }, POD, CONFIGMAP],
      expected: ['Widget', 'ConfigMap', 'Pod'],
    },
  ])('$name', ({ rules, expected }) => {
    expect(applyOrder(rules).map((r) => r.kind)).toEqual(expected);
  });
});
