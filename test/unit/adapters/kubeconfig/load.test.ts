import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { createClusterApi } from '../../../../lib/adapters/kube/cluster-client.js';
import { KubeconfigError } from '../../../../lib/adapters/kubeconfig/errors.js';
import { loadKubeconfig } from '../../../../lib/adapters/kubeconfig/load.js';

const CANARY = 'CANARY-kubeconfig-7c2d91-token';
const ORIGIN = 'secret tenantplane/dev/tenant';

interface Doc {
  apiVersion?: string;
  kind?: string;
  clusters?: unknown[];
  contexts?: unknown[];
  users?: unknown[];
  'current-context'?: string;
}

function kubeconfig(overrides: Partial<Doc> = {}): Doc {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c1', cluster: { server: 'https://10.0.0.1:6443/' } }],
    users: [{ name: 'u1', user: { token: CANARY } }],
    contexts: [{ name: 'ctx1', context: { cluster: 'c1', user: 'u1' } }],
    'current-context': 'ctx1',
    ...overrides,
  };
}

function failure(text: string, context?: string): KubeconfigError {
  try {
    loadKubeconfig({ text, origin: ORIGIN }, context);
  } catch (error) {
    expect(error).toBeInstanceOf(KubeconfigError);
    const e = error as KubeconfigError;
    expect(e.message).not.toContain(CANARY);
    expect(e.message).not.toContain('10.0.0.1');
    expect(e.message.startsWith(`kubeconfig ${ORIGIN}: `)).toBe(true);
    expect(e.origin).toBe(ORIGIN);
    return e;
  }
  throw new Error('expected a KubeconfigError');
}

describe('loadKubeconfig', () => {
  it('loads a valid kubeconfig and reports the context and server', () => {
    const loaded = loadKubeconfig({ text: stringify(kubeconfig()), origin: ORIGIN });
    expect(loaded.context).toBe('ctx1');
    expect(loaded.server).toBe('https://10.0.0.1:6443');
    expect(loaded.kubeConfig.getCurrentUser()?.token).toBe(CANARY);
  });

  it('uses the only context when there is no current-context, and an explicit one when asked', () => {
    const one = kubeconfig({ 'current-context': undefined });
    expect(loadKubeconfig({ text: stringify(one), origin: ORIGIN }).context).toBe('ctx1');
    const two = kubeconfig({
      clusters: [
        { name: 'c1', cluster: { server: 'https://10.0.0.1:6443' } },
        { name: 'c2', cluster: { server: 'https://10.0.0.2:6443' } },
      ],
      contexts: [
        { name: 'ctx1', context: { cluster: 'c1', user: 'u1' } },
        { name: 'ctx2', context: { cluster: 'c2', user: 'u1' } },
      ],
    });
    const loaded = loadKubeconfig({ text: stringify(two), origin: ORIGIN }, 'ctx2');
    expect(loaded.server).toBe('https://10.0.0.2:6443');
    expect(loaded.kubeConfig.getCurrentContext()).toBe('ctx2');
  });

  it('ignores broken entries that the chosen context does not use', () => {
    const doc = kubeconfig({
      clusters: [
        { name: 'c1', cluster: { server: 'https://10.0.0.1:6443' } },
        { name: 'broken', cluster: {} },
      ],
    });
    expect(loadKubeconfig({ text: stringify(doc), origin: ORIGIN }).context).toBe('ctx1');
  });

  it.each<[string, string, string | undefined]>([
    ['empty', '   \n', undefined],
    ['malformed YAML', `users:\n- name: u1\n  user: {token: ${CANARY}\nclusters: [`, undefined],
    ['compact mapping', `token: ${CANARY}: x`, undefined],
    ['not a mapping', `- ${CANARY}`, undefined],
    ['no contexts', stringify(kubeconfig({ contexts: [] })), undefined],
    ['unknown --context', stringify(kubeconfig()), 'nope'],
    ['dangling current-context', stringify(kubeconfig({ 'current-context': 'gone' })), undefined],
    [
      'no current-context and two contexts',
      stringify(
        kubeconfig({
          'current-context': undefined,
          contexts: [
            { name: 'a', context: { cluster: 'c1', user: 'u1' } },
            { name: 'b', context: { cluster: 'c1', user: 'u1' } },
          ],
        }),
      ),
      undefined,
    ],
    [
      'context without cluster',
      stringify(kubeconfig({ contexts: [{ name: 'ctx1', context: { user: 'u1' } }] })),
      undefined,
    ],
    [
      'context naming an undefined cluster',
      stringify(
        kubeconfig({ contexts: [{ name: 'ctx1', context: { cluster: 'x', user: 'u1' } }] }),
      ),
      undefined,
    ],
    [
      'context without user',
      stringify(kubeconfig({ contexts: [{ name: 'ctx1', context: { cluster: 'c1' } }] })),
      undefined,
    ],
    [
      'context naming an undefined user',
      stringify(
        kubeconfig({ contexts: [{ name: 'ctx1', context: { cluster: 'c1', user: 'x' } }] }),
      ),
      undefined,
    ],
    [
      'cluster without server',
      stringify(
        kubeconfig({ clusters: [{ name: 'c1', cluster: { 'insecure-skip-tls-verify': true } }] }),
      ),
      undefined,
    ],
    [
      'server that is not a URL',
      stringify(
        kubeconfig({ clusters: [{ name: 'c1', cluster: { server: `not a url ${CANARY}` } }] }),
      ),
      undefined,
    ],
  ])('%s: names the origin and the problem, never the content', (_name, text, context) => {
    const error = failure(text, context);
    expect(error.problem.length).toBeGreaterThan(0);
  });

  it('says precisely what is wrong', () => {
    expect(failure('   ').problem).toBe('is empty');
    expect(failure(`a: b: ${CANARY}`).problem).toBe(
      'is not valid YAML (bad indentation of a mapping entry at line 1, column 5)',
    );
    expect(failure(stringify(kubeconfig({ contexts: [] }))).problem).toBe('has no contexts');
    expect(failure(stringify(kubeconfig()), 'nope').problem).toBe(
      'has no context "nope" (contexts: "ctx1")',
    );
    expect(
      failure(stringify(kubeconfig({ contexts: [{ name: 'ctx1', context: { cluster: 'c1' } }] })))
        .problem,
    ).toBe('context "ctx1" names no user');
    expect(
      failure(stringify(kubeconfig({ clusters: [{ name: 'c1', cluster: {} }] }))).problem,
    ).toBe('cluster "c1" has no server');
  });

  it('createClusterApi throws the same KubeconfigError', () => {
    expect(() =>
      createClusterApi({ text: stringify(kubeconfig({ contexts: [] })), origin: ORIGIN }),
    ).toThrow(new KubeconfigError(ORIGIN, 'has no contexts'));
    const api = createClusterApi({ text: stringify(kubeconfig()), origin: ORIGIN });
    expect(api.server).toBe('https://10.0.0.1:6443');
    expect(api.requestCount()).toEqual({ reads: 0, writes: 0 });
  });
});
