import { describe, expect, it } from '@jest/globals';
import { InvalidPolicyError, parseSyncPolicy } from '../../../../lib/engine/index.js';
import { DEFAULT_TO_HOST } from '../../../../lib/engine/policy/policy.js';

function problemsOf(spec: unknown, tenant = 'dev'): string[] {
  try {
    parseSyncPolicy(tenant, spec);
  } catch (error) {
    if (error instanceof InvalidPolicyError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('parseSyncPolicy', () => {
  it('defaults to ConfigMaps and Secrets, not paused', () => {
    expect(parseSyncPolicy('dev', { hostNamespace: 'tenant-dev' })).toEqual({
      hostNamespace: 'tenant-dev',
      paused: false,
      toHost: [...DEFAULT_TO_HOST],
    });
  });

  it('keeps the policy order and exclusions, CustomResources included', () => {
    const policy = parseSyncPolicy('dev', {
      hostNamespace: 'h',
      paused: true,
      toHost: [
        { apiVersion: 'example.com/v1alpha1', kind: 'Widget' },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          exclude: { namespaces: ['x'], names: ['n'], labelSelector: 'sync=off' },
        },
      ],
    });
    expect(policy.paused).toBe(true);
    expect(policy.toHost.map((r) => r.kind)).toEqual(['Widget', 'ConfigMap']);
    expect(policy.toHost[1]?.exclude).toEqual({
      namespaces: ['x'],
      names: ['n'],
      labelSelector: 'sync=off',
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['no spec', undefined, /spec must be an object/],
    ['no hostNamespace', {}, /spec\.hostNamespace must be a DNS-1123 label/],
    ['bad hostNamespace', { hostNamespace: 'Bad_NS' }, /spec\.hostNamespace/],
    ['paused not boolean', { hostNamespace: 'h', paused: 'yes' }, /spec\.paused/],
    [
      'toHost not a list',
      { hostNamespace: 'h', toHost: 'ConfigMap' },
      /spec\.toHost must be a list/,
    ],
    [
      'entry without kind',
      { hostNamespace: 'h', toHost: [{ apiVersion: 'v1' }] },
      /spec\.toHost\[0\]\.kind/,
    ],
    [
      'bad apiVersion',
      { hostNamespace: 'h', toHost: [{ apiVersion: 'x y', kind: 'A' }] },
      /spec\.toHost\[0\]\.apiVersion/,
    ],
    [
      'duplicate kind',
      {
        hostNamespace: 'h',
        toHost: [
          { apiVersion: 'v1', kind: 'Secret' },
          { apiVersion: 'v1', kind: 'Secret' },
        ],
      },
      /repeats Secret/,
    ],
    [
      'bad selector',
      {
        hostNamespace: 'h',
        toHost: [{ apiVersion: 'v1', kind: 'Secret', exclude: { labelSelector: 'a in (b' } }],
      },
      /labelSelector/,
    ],
    [
      'a host Gateway kind in toHost',
      {
        hostNamespace: 'h',
        toHost: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway' }],
      },
      /spec\.toHost\[0\]: Gateway objects come from the host/,
    ],
    [
      'names not strings',
      {
        hostNamespace: 'h',
        toHost: [{ apiVersion: 'v1', kind: 'Secret', exclude: { names: [1] } }],
      },
      /exclude\.names must be a list of strings/,
    ],
  ])('rejects %s', (_name, spec, problem) => {
    const problems = problemsOf(spec);
    expect(problems.join('\n')).toMatch(problem);
  });

  it('reports every problem at once, naming the tenant', () => {
    expect(() => parseSyncPolicy('dev', { hostNamespace: 'BAD', paused: 1 })).toThrow(
      /TenantCluster "dev" has an invalid sync policy: spec\.hostNamespace.*; spec\.paused/,
    );
  });

  it.each([
    {
      name: 'autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscaler',
      rules: [
        { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' },
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          exclude: { names: ['web'] },
        },
      ],
      problem:
        'spec.toHost[1] repeats HorizontalPodAutoscaler (autoscaling/v2) of spec.toHost[0] (autoscaling/v1): one rule per API group and kind, whatever the version',
    },
    {
      name: 'a CRD served under two versions',
      rules: [
        { apiVersion: 'example.com/v1', kind: 'Widget' },
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { apiVersion: 'example.com/v1beta1', kind: 'Widget' },
      ],
      problem:
        'spec.toHost[2] repeats Widget (example.com/v1beta1) of spec.toHost[0] (example.com/v1): one rule per API group and kind, whatever the version',
    },
  ])('refuses one resource under two versions: $name', ({ rules, problem }) => {
    expect(problemsOf({ hostNamespace: 'h', toHost: rules })).toEqual([problem]);
  });

  it('accepts the same Kind in different API groups', () => {
    const policy = parseSyncPolicy('dev', {
      hostNamespace: 'h',
      toHost: [
        { apiVersion: 'example.com/v1', kind: 'Widget' },
        { apiVersion: 'other.example.org/v1', kind: 'Widget' },
      ],
    });
    expect(policy.toHost).toHaveLength(2);
  });

  it('rejects a tenant name that cannot be a label value', () => {
    expect(problemsOf({ hostNamespace: 'h' }, 'x'.repeat(64)).join()).toMatch(/TenantCluster name/);
  });
});
