/**
 * Table-driven rules of a convergence pass: given tenant and host state, the host state after one
 * pass and the Decisions it made.
 */
import { describe, expect, it } from '@jest/globals';
import { Labels, requestDelta, runPass } from '../../../../lib/engine/index.js';
import { translate } from '../../../../lib/engine/kinds/registry.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
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
  secret,
} from '../support.js';

interface Case {
  name: string;
  spec?: Record<string, unknown>;
  tenantState: KubeObject[];
  hostState: KubeObject[];
  expectedHostState: Array<{ ref: string; data?: unknown }>;
  expectedDecisions: string[];
  /** Reasons, matched in the order of the sorted decision lines. */
  expectedReasons?: RegExp[];
  expectedHostWrites?: number;
}

const foreign = (name: string, data = { owner: 'someone-else' }): KubeObject => ({
  ...CONFIGMAP,
  metadata: { namespace: HOST_NS, name },
  data,
});

const otherTenantCopy = hostCopyOf(cm('default', 'app'), 'prod');
// A host object that claims (through its labels and annotations) to be the copy of another source
// of this very tenant, sitting at the name of default/app: only hand-made or hash collisions do this.
const sameTenantOtherSource: KubeObject = (() => {
  const copy = hostCopyOf(cm('default', 'other'));
  copy.metadata.name = hn('default', 'app');
  copy.data = { mine: 'no' };
  return copy;
})();

const CASES: Case[] = [
  {
    name: 'first pass creates ConfigMaps and Secrets, never system namespaces or tenant credentials',
    tenantState: [
      cm('default', 'app'),
      cm('default', 'kube-root-ca.crt', { 'ca.crt': 'x' }),
      cm('kube-system', 'coredns'),
      cm('kube-public', 'cluster-info'),
      cm('kube-node-lease', 'n'),
      secret('default', 'db'),
      secret('default', 'default-token', 'kubernetes.io/service-account-token'),
    ],
    hostState: [],
    expectedHostState: [
      { ref: `ConfigMap ${hn('default', 'app')}`, data: { k: 'v' } },
      { ref: `Secret ${hn('default', 'db')}`, data: { password: 'c3VwZXItc2VjcmV0' } },
    ],
    expectedDecisions: [
      `Create ConfigMap default/app -> app-x-default-x-dev`,
      `Create Secret default/db -> db-x-default-x-dev`,
    ],
    expectedReasons: [/no host copy of tenant ConfigMap default\/app yet/, /no host copy/],
    expectedHostWrites: 2,
  },
  {
    name: 'steady state writes nothing',
    tenantState: [cm('default', 'app'), secret('default', 'db')],
    hostState: [hostCopyOf(cm('default', 'app')), hostCopyOf(secret('default', 'db'))],
    expectedHostState: [
      { ref: `ConfigMap app-x-default-x-dev`, data: { k: 'v' } },
      { ref: `Secret db-x-default-x-dev`, data: { password: 'c3VwZXItc2VjcmV0' } },
    ],
    expectedDecisions: [],
    expectedHostWrites: 0,
  },
  {
    name: 'a tenant edit updates the host copy',
    tenantState: [cm('default', 'app', { k: 'new' })],
    hostState: [hostCopyOf(cm('default', 'app', { k: 'old' }))],
    expectedHostState: [{ ref: 'ConfigMap app-x-default-x-dev', data: { k: 'new' } }],
    expectedDecisions: ['Update ConfigMap default/app -> app-x-default-x-dev'],
    expectedReasons: [/differs from the tenant source in data/],
    expectedHostWrites: 1,
  },
  {
    name: 'drift on the host is repaired',
    tenantState: [cm('default', 'app', { k: 'v' })],
    hostState: [{ ...hostCopyOf(cm('default', 'app')), data: { k: 'v', extra: 'added on host' } }],
    expectedHostState: [{ ref: 'ConfigMap app-x-default-x-dev', data: { k: 'v' } }],
    expectedDecisions: ['Update ConfigMap default/app -> app-x-default-x-dev'],
  },
  {
    name: 'a deleted tenant object is garbage-collected',
    tenantState: [cm('default', 'keep')],
    hostState: [hostCopyOf(cm('default', 'keep')), hostCopyOf(cm('default', 'gone'))],
    expectedHostState: [{ ref: 'ConfigMap keep-x-default-x-dev', data: { k: 'v' } }],
    expectedDecisions: ['Delete ConfigMap default/gone -> gone-x-default-x-dev'],
    expectedReasons: [/tenant ConfigMap default\/gone no longer exists/],
  },
  {
    name: 'an object newly excluded by policy is removed from the host',
    spec: {
      toHost: [{ apiVersion: 'v1', kind: 'ConfigMap', exclude: { labelSelector: 'sync=off' } }],
    },
    tenantState: [cm('default', 'app', { k: 'v' }, { labels: { sync: 'off' } })],
    hostState: [hostCopyOf(cm('default', 'app'))],
    expectedHostState: [],
    expectedDecisions: ['Delete ConfigMap default/app -> app-x-default-x-dev'],
    expectedReasons: [/excluded from syncing by the sync policy/],
  },
  {
    name: 'exclusions by namespace and name are silent',
    spec: {
      toHost: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          exclude: { namespaces: ['private'], names: ['local'] },
        },
      ],
    },
    tenantState: [cm('private', 'a'), cm('default', 'local'), cm('default', 'b')],
    hostState: [],
    expectedHostState: [{ ref: 'ConfigMap b-x-default-x-dev', data: { k: 'v' } }],
    expectedDecisions: ['Create ConfigMap default/b -> b-x-default-x-dev'],
  },
  {
    name: "another tenant's copy at the name is a collision: Skip, untouched",
    tenantState: [cm('default', 'app', { k: 'mine' })],
    hostState: [
      { ...otherTenantCopy, metadata: { ...otherTenantCopy.metadata, name: hn('default', 'app') } },
    ],
    expectedHostState: [{ ref: 'ConfigMap app-x-default-x-dev', data: { k: 'v' } }],
    expectedDecisions: ['Skip ConfigMap default/app -> app-x-default-x-dev'],
    expectedReasons: [
      /occupied by an object of another tenant \(a name collision\); left it untouched/,
    ],
  },
  {
    name: 'a foreign object at the name: Skip, untouched',
    tenantState: [cm('default', 'app', { k: 'mine' })],
    hostState: [foreign(hn('default', 'app'))],
    expectedHostState: [{ ref: 'ConfigMap app-x-default-x-dev', data: { owner: 'someone-else' } }],
    expectedDecisions: ['Skip ConfigMap default/app -> app-x-default-x-dev'],
    expectedReasons: [/occupied by an object tenantplane does not manage \(a foreign object\)/],
  },
  {
    name: 'an update target that belongs to another source of this tenant: Skip, untouched',
    tenantState: [cm('default', 'app', { k: 'mine' }), cm('default', 'other')],
    hostState: [sameTenantOtherSource, hostCopyOf(cm('default', 'other'))],
    expectedHostState: [
      { ref: 'ConfigMap app-x-default-x-dev', data: { mine: 'no' } },
      { ref: 'ConfigMap other-x-default-x-dev', data: { k: 'v' } },
    ],
    expectedDecisions: ['Skip ConfigMap default/app -> app-x-default-x-dev'],
    expectedReasons: [/ConfigMap default\/other of tenant cluster "dev" \(a name collision\)/],
  },
  {
    name: "unmanaged objects, other tenants' objects and other kinds survive GC",
    tenantState: [],
    hostState: [
      foreign('unmanaged'),
      hostCopyOf(cm('default', 'theirs'), 'prod'),
      hostCopyOf(secret('default', 'secret-only')),
      {
        ...foreign('half-managed'),
        metadata: {
          namespace: HOST_NS,
          name: 'half-managed',
          labels: {
            [Labels.ManagedBy]: 'tenantplane',
            [Labels.Tenant]: 'dev',
            [Labels.Kind]: 'ConfigMap',
          },
        },
      },
    ],
    spec: { toHost: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
    expectedHostState: [
      { ref: 'ConfigMap half-managed', data: { owner: 'someone-else' } },
      { ref: 'ConfigMap theirs-x-default-x-prod', data: { k: 'v' } },
      { ref: 'ConfigMap unmanaged', data: { owner: 'someone-else' } },
      { ref: 'Secret secret-only-x-default-x-dev', data: { password: 'c3VwZXItc2VjcmV0' } },
    ],
    expectedDecisions: [],
  },
  {
    name: 'names with -x- parts land on two different host objects',
    tenantState: [cm('c', 'a-x-b'), cm('b-x-c', 'a')],
    hostState: [],
    expectedHostState: [
      { ref: 'ConfigMap a-x-b-x-c-x-dev-1cfb7beeb7', data: { k: 'v' } },
      { ref: 'ConfigMap a-x-b-x-c-x-dev-a65312dd91', data: { k: 'v' } },
    ],
    expectedDecisions: [
      'Create ConfigMap b-x-c/a -> a-x-b-x-c-x-dev-a65312dd91',
      'Create ConfigMap c/a-x-b -> a-x-b-x-c-x-dev-1cfb7beeb7',
    ],
  },
  {
    name: 'a custom resource kind syncs',
    spec: { toHost: [{ apiVersion: 'example.com/v1', kind: 'Widget' }] },
    tenantState: [
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { namespace: 'default', name: 'w' },
        spec: { size: 3 },
      },
    ],
    hostState: [],
    expectedHostState: [{ ref: 'Widget w-x-default-x-dev' }],
    expectedDecisions: ['Create Widget default/w -> w-x-default-x-dev'],
  },
];

describe('a pass', () => {
  it.each(CASES)('$name', async (c) => {
    const { tenantApi, hostApi } = clusters(c.tenantState, c.hostState, c.spec);
    const before = hostApi.objects();
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi, budget: { concurrency: 1 } });

    expect(result.errors).toEqual([]);
    expect(result.complete).toBe(true);
    expect(hostSummary(hostApi)).toEqual(c.expectedHostState);
    expect(decisionLines(result.decisions)).toEqual(c.expectedDecisions);
    if (c.expectedReasons) {
      const sorted = [...result.decisions].sort((a, b) =>
        decisionLines([a])[0]!.localeCompare(decisionLines([b])[0]!),
      );
      for (const [i, reason] of c.expectedReasons.entries())
        expect(sorted[i]?.reason).toMatch(reason);
    }
    if (c.expectedHostWrites !== undefined) {
      // The status write comes after the pass and is not part of `requests`.
      expect(result.requests.host.writes).toBe(c.expectedHostWrites);
    }
    // Skipped objects stay byte-for-byte untouched.
    for (const d of result.decisions.filter((x) => x.action === 'Skip')) {
      const was = before.find((o) => o.metadata.name === d.hostRef.name && o.kind === d.kind);
      expect(
        hostApi.objects().find((o) => o.metadata.name === d.hostRef.name && o.kind === d.kind),
      ).toEqual(was);
    }
  });
});

describe('metadata on the host', () => {
  it('drops spoofed labels and annotations and writes the reverse mapping', async () => {
    const spoofed = cm(
      'default',
      'app',
      { k: 'v' },
      {
        labels: { [Labels.Tenant]: 'prod', [Labels.ManagedBy]: 'me', ok: 'yes' },
        annotations: {
          [Annotations.VirtualName]: 'fake',
          [Annotations.OwnedKeys]: '{"labels":["x"]}',
        },
      },
    );
    const { tenantApi, hostApi } = clusters([spoofed], []);
    await runPass({ tenant: 'dev', tenantApi, hostApi });
    const host = hostApi.peek(CONFIGMAP, HOST_NS, 'app-x-default-x-dev');
    expect(host?.metadata.labels).toEqual({
      ok: 'yes',
      [Labels.ManagedBy]: 'tenantplane',
      [Labels.Tenant]: 'dev',
      [Labels.VirtualNamespace]: 'default',
      [Labels.Kind]: 'ConfigMap',
    });
    expect(host?.metadata.annotations?.[Annotations.VirtualName]).toBe('app');
    expect(host?.metadata.annotations?.[Annotations.OwnedKeys]).toBe(
      '{"labels":["ok"],"annotations":[]}',
    );
  });

  it('removes keys the tenant removed and keeps keys a host controller added', async () => {
    const old = hostCopyOf(
      cm(
        'default',
        'app',
        { k: 'v' },
        { labels: { gone: '1', kept: '1' }, annotations: { note: 'x' } },
      ),
    );
    old.metadata.labels = { ...old.metadata.labels, 'host.example.com/added': 'by-controller' };
    old.metadata.annotations = { ...old.metadata.annotations, 'host.example.com/audit': 'ok' };
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'app', { k: 'v' }, { labels: { kept: '1' } })],
      [old],
    );
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      'Update ConfigMap default/app -> app-x-default-x-dev',
    ]);
    expect(result.decisions[0]?.reason).toMatch(/labels, annotations/);
    const host = hostApi.peek(CONFIGMAP, HOST_NS, 'app-x-default-x-dev');
    expect(host?.metadata.labels).toMatchObject({
      kept: '1',
      'host.example.com/added': 'by-controller',
    });
    expect(host?.metadata.labels).not.toHaveProperty('gone');
    expect(host?.metadata.annotations).toMatchObject({ 'host.example.com/audit': 'ok' });
    expect(host?.metadata.annotations).not.toHaveProperty('note');
    // And the next pass is steady.
    const again = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(again.decisions).toEqual([]);
    expect(again.requests.host.writes).toBe(0);
  });

  it('hashes a long name and keeps the verbatim one in the annotations', async () => {
    const long = 'n'.repeat(120);
    const { tenantApi, hostApi } = clusters([cm('default', long)], []);
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    const name = result.decisions[0]?.hostRef.name ?? '';
    expect(name).toBe(hn('default', long));
    expect(name.length).toBeLessThanOrEqual(63);
    const host = hostApi.peek(CONFIGMAP, HOST_NS, name);
    expect(host?.metadata.annotations?.[Annotations.VirtualName]).toBe(long);
    expect(host?.metadata.annotations?.[Annotations.VirtualNamespace]).toBe('default');
  });

  it('keeps host-allocated Service fields and does not update over server defaults', async () => {
    const service: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'default', name: 'web', uid: 'uid-web' },
      spec: {
        clusterIP: '10.96.0.9', // aligned: the host copy has it too
        ports: [{ port: 80, protocol: 'TCP' }],
        selector: { app: 'web' },
      },
    };
    // The copy a previous pass wrote: the Service translator's (its selector scoped).
    const translation = translate(service, { tenant: 'dev', hostNamespace: HOST_NS });
    if (!('host' in translation)) throw new Error(translation.refused);
    const hostCopy = translation.host;
    hostCopy.spec = {
      ...(hostCopy.spec as object),
      clusterIP: '10.96.0.9',
      clusterIPs: ['10.96.0.9'],
      sessionAffinity: 'None',
    };
    const { tenantApi, hostApi } = clusters([service], [hostCopy], {
      toHost: [{ apiVersion: 'v1', kind: 'Service' }],
    });
    const steady = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(steady.decisions).toEqual([]);

    tenantApi.replace({
      ...service,
      spec: { ...(service.spec as object), selector: { app: 'web2' } },
    });
    const changed = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(changed.decisions)).toEqual([
      'Update Service default/web -> web-x-default-x-dev',
    ]);
    expect(
      hostApi.peek({ apiVersion: 'v1', kind: 'Service' }, HOST_NS, 'web-x-default-x-dev')?.spec,
    ).toMatchObject({
      clusterIP: '10.96.0.9',
      clusterIPs: ['10.96.0.9'],
      selector: {
        app: 'web2',
        [Labels.Tenant]: 'dev',
        [Labels.VirtualNamespace]: 'default',
      },
    });

    // A field the tenant removes from spec is noticed although the host keeps server defaults.
    tenantApi.replace({
      ...service,
      spec: { clusterIP: '10.96.0.9', ports: [{ port: 80, protocol: 'TCP' }] },
    });
    const removed = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(removed.decisions)).toEqual([
      'Update Service default/web -> web-x-default-x-dev',
    ]);
    expect(
      hostApi.peek({ apiVersion: 'v1', kind: 'Service' }, HOST_NS, 'web-x-default-x-dev')?.spec,
    ).not.toHaveProperty('selector');
  });
});

describe('requestDelta', () => {
  it.each([
    {
      name: 'requests made between two readings',
      after: { reads: 7, writes: 3 },
      before: { reads: 2, writes: 1 },
      expected: { reads: 5, writes: 2 },
    },
    {
      name: 'nothing in between',
      after: { reads: 4, writes: 0 },
      before: { reads: 4, writes: 0 },
      expected: { reads: 0, writes: 0 },
    },
  ])('$name', ({ after, before, expected }) => {
    expect(requestDelta(after, before)).toEqual(expected);
  });
});
