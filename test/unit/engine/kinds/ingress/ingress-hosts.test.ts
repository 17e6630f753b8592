/**
 * Who first named each host in the host namespace, and the Ingress turn that reads it for the
 * translator: a host another tenant's copy (or the operator's Ingress) named first is a Skip; a
 * read that fails keeps every copy (no GC on an answer never read).
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import {
  ingressHostClaims,
  takenBy,
} from '../../../../../lib/engine/kinds/ingress/ingress-hosts.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn, hostCopyOf } from '../../support.js';

const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const EARLY = '2024-06-01T00:00:00Z';

function ingress(namespace: string, name: string, hosts: string[], tls: string[] = []): KubeObject {
  return {
    ...INGRESS,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
    spec: {
      rules: hosts.map((host) => ({
        host,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: 'web', port: { number: 80 } } },
            },
          ],
        },
      })),
      ...(tls.length > 0 ? { tls: [{ hosts: tls }] } : {}),
    },
  };
}

/** `name@resourceVersion` of every Ingress on the host. */
function ingressVersions(hostApi: ReturnType<typeof clusters>['hostApi']): string[] {
  return hostApi
    .objects()
    .filter((o) => o.kind === 'Ingress')
    .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
}

/** A host copy made by `tenant`, created at `at`. */
function copy(source: KubeObject, tenant: string, at: string): KubeObject {
  const made = hostCopyOf(source, tenant);
  made.metadata.creationTimestamp = at;
  return made;
}

describe('ingressHostClaims', () => {
  it('the earliest claim of each host, this tenant’s copies apart from every other Ingress', () => {
    const ours = copy(
      ingress('shop', 'web', ['A.example.com.'], ['tls.example.com']),
      'dev',
      '2025-02-01T00:00:00Z',
    );
    const oursLater = copy(
      ingress('blog', 'web', ['a.example.com']),
      'dev',
      '2025-03-01T00:00:00Z',
    );
    const theirs = copy(ingress('shop', 'web', ['a.example.com']), 'prod', '2025-01-01T00:00:00Z');
    const operator: KubeObject = {
      ...ingress('', 'site', ['*.example.com']),
      metadata: { namespace: HOST_NS, name: 'site', creationTimestamp: EARLY },
    };
    const going = {
      ...operator,
      metadata: { ...operator.metadata, name: 'going', deletionTimestamp: EARLY },
    };
    const claims = ingressHostClaims([ours, oursLater, theirs, operator, going], 'dev');
    expect(Object.fromEntries(claims)).toEqual({
      'a.example.com': {
        ours: `2025-02-01T00:00:00Z ${ours.metadata.name}`,
        others: `2025-01-01T00:00:00Z ${theirs.metadata.name}`,
      },
      'tls.example.com': { ours: `2025-02-01T00:00:00Z ${ours.metadata.name}` },
      '*.example.com': { others: `${EARLY} site` },
    });
    expect(takenBy('a.example.com', claims)).toContain('named it first');
    expect(takenBy('tls.example.com', claims)).toContain('through its *.example.com');
    expect(takenBy('*.example.com', claims)).toContain('named it first');
    expect(takenBy('b.other.com', claims)).toBeUndefined();
  });

  it('two claims of the same second: the first by name keeps the host', () => {
    const a = copy(ingress('shop', 'web', ['x.example.com']), 'aa', EARLY);
    const b = copy(ingress('shop', 'web', ['x.example.com']), 'bb', EARLY);
    const [first, second] = [a, b].sort((p, q) => (p.metadata.name < q.metadata.name ? -1 : 1));
    const firstTenant = first === a ? 'aa' : 'bb';
    const secondTenant = first === a ? 'bb' : 'aa';
    expect(second).toBeDefined();
    expect(takenBy('x.example.com', ingressHostClaims([a, b], firstTenant))).toBeUndefined();
    expect(takenBy('x.example.com', ingressHostClaims([a, b], secondTenant))).toBeDefined();
  });
});

describe('the Ingress turn in a pass', () => {
  const policy = {
    toHost: [INGRESS],
    workloads: { ingresses: { hostSuffixes: ['.example.com'] } },
  };

  it('a host another tenant’s copy named first is a Skip naming it; other hosts are created', async () => {
    const victim = copy(ingress('shop', 'web', ['shop.example.com']), 'prod', EARLY);
    const { tenantApi, hostApi } = clusters(
      [ingress('shop', 'web', ['shop.example.com']), ingress('shop', 'blog', ['blog.example.com'])],
      [victim],
      policy,
    );
    const victimVersion = hostApi.peek(INGRESS, HOST_NS, victim.metadata.name)?.metadata
      .resourceVersion;
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(result.errors).toEqual([]);
    expect(result.decisions.map((d) => [d.action, d.tenantRef.name, d.reason])).toEqual(
      expect.arrayContaining([
        ['Create', 'blog', expect.any(String)],
        [
          'Skip',
          'web',
          'spec.rules[0].host "shop.example.com" is already served by another Ingress of the host namespace, which named it first',
        ],
      ]),
    );
    expect(hostApi.peek(INGRESS, HOST_NS, hn('shop', 'web'))).toBeUndefined();
    // The other tenant's copy is untouched.
    expect(hostApi.peek(INGRESS, HOST_NS, victim.metadata.name)?.metadata.resourceVersion).toBe(
      victimVersion,
    );
    // Read once a pass: the kind's own listing and one listing of every Ingress for the hosts.
    const ingressLists = hostApi.callsOf('list').filter((c) => c.kind === 'Ingress');
    expect(ingressLists.filter((c) => c.options?.labelSelector === undefined)).toHaveLength(2);
  });

  it('a failed read of the host’s Ingresses takes nothing in and deletes no copy', async () => {
    const source = ingress('shop', 'web', ['shop.example.com']);
    const gone = ingress('shop', 'old', ['old.example.com']);
    const { tenantApi, hostApi } = clusters(
      [source],
      [copy(source, 'dev', EARLY), copy(gone, 'dev', EARLY)],
      policy,
    );
    let lists = 0;
    hostApi.failWhen((call) => {
      if (call.method !== 'list' || call.kind !== 'Ingress' || call.options?.labelSelector)
        return undefined;
      lists += 1;
      // The kind's own listing passes; the listing of every Ingress for their hosts fails.
      return lists === 2
        ? new ClusterError('Transport', 'etcd timeout', { status: 500 })
        : undefined;
    });
    const before = ingressVersions(hostApi);
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(result.errors).toEqual([
      expect.objectContaining({
        kind: 'Ingress',
        message: expect.stringContaining('listing host Ingress objects failed'),
      }),
    ]);
    expect(result.decisions.filter((d) => d.kind === 'Ingress')).toEqual([]);
    expect(ingressVersions(hostApi)).toEqual(before);
    hostApi.clearFailures();
    const next = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(next.errors).toEqual([]);
    expect(next.decisions.map((d) => `${d.action} ${d.tenantRef.name}`).sort()).toEqual([
      'Delete old',
      // The seeded copy is the generic one: the translated copy replaces it.
      'Update web',
    ]);
  });

  it('on a resumed path too: a failed read takes the change in next pass, with no write now', async () => {
    const source = ingress('shop', 'web', ['shop.example.com']);
    const { tenantApi, hostApi } = clusters([source], [], policy);
    const first = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(first.decisions.map((d) => d.action)).toEqual(['Create']);
    tenantApi.replace(ingress('shop', 'web', ['www.example.com']));
    hostApi.failWhen((call) =>
      call.method === 'list' && call.kind === 'Ingress' && !call.options?.labelSelector
        ? new ClusterError('Transport', 'etcd timeout', { status: 500 })
        : undefined,
    );
    const before = ingressVersions(hostApi);
    const failed = await runPass({ tenant: 'dev', tenantApi, hostApi });
    // The resumed watch saw the change; with nothing read it took nothing in and says why.
    expect(failed.pathReason).toBe('Ingress: what it needs of the host could not be read');
    expect(failed.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('listing host Ingress objects failed'),
      }),
    ]);
    expect(failed.decisions).toEqual([]);
    expect(ingressVersions(hostApi)).toEqual(before);
    hostApi.clearFailures();
    const next = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(next.decisions.map((d) => d.action)).toEqual(['Update']);
  });
});
