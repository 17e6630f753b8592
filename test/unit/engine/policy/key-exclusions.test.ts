/**
 * Label and annotation keys a policy keeps off the host: glob patterns validated with the policy,
 * matched on the whole key, applied by the transform to tenant keys only (the engine's own keys
 * stay), and a key dropped after an earlier pass copied it is removed from the host copy.
 */
import { describe, expect, it } from '@jest/globals';
import { parseSyncPolicy, runPass } from '../../../../lib/engine/index.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import { compileKeyExclusions, keyMatcher } from '../../../../lib/engine/policy/key-exclusions.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hostCopyOf, TENANT } from '../support.js';

describe('key exclusions', () => {
  it('globs match whole keys, `*` any characters', () => {
    const match = keyMatcher(['nginx.ingress.kubernetes.io/*', 'team', '*.example.com/secret-*']);
    expect(match?.('nginx.ingress.kubernetes.io/server-snippet')).toBe(true);
    expect(match?.('team')).toBe(true);
    expect(match?.('teams')).toBe(false);
    expect(match?.('a.example.com/secret-x')).toBe(true);
    expect(match?.('example.com/secret-x')).toBe(false);
    expect(keyMatcher([])).toBeUndefined();
  });

  it('are validated with the policy, every problem at once', () => {
    const rule = (exclude: unknown) => ({
      hostNamespace: 'h',
      toHost: [{ ...CONFIGMAP, exclude }],
    });
    expect(
      parseSyncPolicy(TENANT, rule({ annotationKeys: ['a/*'], labelKeys: ['b'] })).toHost[0]
        ?.exclude,
    ).toEqual({ annotationKeys: ['a/*'], labelKeys: ['b'] });
    expect(() =>
      parseSyncPolicy(TENANT, rule({ labelKeys: 'x', annotationKeys: ['bad key!'] })),
    ).toThrow(
      /labelKeys must be a list .*annotationKeys has patterns that match no label or annotation key: "bad key!"/,
    );
  });

  it('keep tenant keys off the host copy, never the engine’s own', () => {
    const source = cm(
      'a',
      'x',
      { k: 'v' },
      {
        labels: { team: 'a', 'replicate.example.com/to': 'all' },
        annotations: { 'nginx.ingress.kubernetes.io/server-snippet': 'evil', note: 'ok' },
      },
    );
    const excludeKeys = compileKeyExclusions({
      labelKeys: ['*.example.com/*'],
      annotationKeys: ['nginx.ingress.kubernetes.io/*'],
    });
    const copy = toHostObject(source, { tenant: TENANT, hostNamespace: HOST_NS, excludeKeys });
    expect(copy.metadata.labels).toHaveProperty('team', 'a');
    expect(copy.metadata.labels).not.toHaveProperty(['replicate.example.com/to']);
    expect(copy.metadata.annotations).toHaveProperty('note', 'ok');
    expect(copy.metadata.annotations).not.toHaveProperty([
      'nginx.ingress.kubernetes.io/server-snippet',
    ]);
    expect(JSON.parse(copy.metadata.annotations?.[Annotations.OwnedKeys] ?? '{}')).toEqual({
      labels: ['team'],
      annotations: ['note'],
    });
  });

  it('a key excluded after an earlier pass copied it is removed from the host copy', async () => {
    const source = cm('a', 'x', { k: 'v' }, { annotations: { 'snippet.example.com/x': 'y' } });
    const { tenantApi, hostApi } = clusters([source], [hostCopyOf(source)], {
      toHost: [{ ...CONFIGMAP, exclude: { annotationKeys: ['snippet.example.com/*'] } }],
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.counts.Update).toBe(1);
    const copy = hostApi.peek(CONFIGMAP, HOST_NS, hostCopyOf(source).metadata.name);
    expect(copy?.metadata.annotations).not.toHaveProperty(['snippet.example.com/x']);
  });
});
