/**
 * A setting changed on a running tenant shapes what it governs at the next pass, whatever its
 * path (issue 35, defect 6): for every field of the TenantCluster's spec, a tenant whose passes
 * resume (nothing changed in it) gets the field edited, and its next pass, left to choose its path,
 * applies the edit exactly as a `--full` pass of the same state does (same Decisions, same objects
 * on both sides). The table covers every field the CRD declares.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { runPass } from '../../../../lib/engine/index.js';
import { type KubeObject, type PassResult, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, cm, decisionLines, HOST_NS, hn, TENANT } from '../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const START = Date.parse('2030-01-01T00:00:00Z');

const BASE = { toHost: [CONFIGMAP, POD], workloads: {} };

/** One edit of the spec per field: the field's path and the spec after the edit. */
interface Row {
  field: string;
  edit: (spec: Record<string, unknown>) => Record<string, unknown>;
  /** What the edit visibly does to this tenant's objects, checked after the edited pass. */
  effect?: (sides: {
    tenantApi: MemoryCluster;
    hostApi: MemoryCluster;
    result: PassResult;
  }) => void;
}

const workloads = (value: Record<string, unknown>) => (spec: Record<string, unknown>) => ({
  ...spec,
  workloads: { ...(spec.workloads as object), ...value },
});
const skipsNaming = (result: PassResult, field: string) =>
  result.decisions.filter((d) => d.action === 'Skip' && d.reason.includes(field));

const ROWS: Row[] = [
  { field: 'hostNamespace', edit: (s) => ({ ...s, hostNamespace: 'tenant-dev-moved' }) },
  { field: 'deleteGuard.maxPercent', edit: (s) => ({ ...s, deleteGuard: { maxPercent: 90 } }) },
  { field: 'deleteGuard.minCopies', edit: (s) => ({ ...s, deleteGuard: { minCopies: 1 } }) },
  { field: 'toHost', edit: (s) => ({ ...s, toHost: [CONFIGMAP, POD, SECRET] }) },
  {
    field: 'toHost[].exclude',
    edit: (s) => ({ ...s, toHost: [{ ...CONFIGMAP, exclude: { names: ['cfg'] } }, POD] }),
    effect: ({ hostApi }) =>
      expect(hostApi.peek(CONFIGMAP, HOST_NS, hn('shop', 'cfg'))).toBeUndefined(),
  },
  { field: 'workloads.allowHostAccess', edit: workloads({ allowHostAccess: true }) },
  {
    field: 'workloads.hostServiceAccountName',
    edit: workloads({ hostServiceAccountName: 'tenant-pods' }),
  },
  {
    field: 'workloads.tenantApiEndpoint',
    edit: workloads({ tenantApiEndpoint: '10.0.0.1:6443' }),
  },
  {
    field: 'workloads.kubeletGateway',
    edit: workloads({ kubeletGateway: { address: '10.0.0.5', port: 10250 } }),
    effect: ({ tenantApi }) =>
      expect(tenantApi.peek(NODE, undefined, 'node-a')?.status).toMatchObject({
        addresses: expect.arrayContaining([expect.objectContaining({ address: '10.0.0.5' })]),
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      }),
  },
  {
    field: 'workloads.tenantDns',
    edit: workloads({ tenantDns: { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' } }),
  },
  { field: 'workloads.eventsBack', edit: workloads({ eventsBack: 'All' }) },
  {
    field: 'workloads.priorityClassName',
    edit: workloads({ priorityClassName: 'tenant-dev-low' }),
    // A running Pod cannot take it: said at once, not at the next full pass.
    effect: ({ result }) => expect(skipsNaming(result, 'spec.priorityClassName')).toHaveLength(1),
  },
  {
    field: 'workloads.priorityClasses',
    edit: workloads({ priorityClasses: { critical: 'tenant-dev-high' } }),
  },
  {
    field: 'workloads.nodeSelector',
    edit: workloads({ nodeSelector: { pool: 'tenants' } }),
  },
  {
    field: 'workloads.tolerations',
    edit: workloads({
      tolerations: [{ key: 'tenants', operator: 'Exists', effect: 'NoSchedule' }],
    }),
  },
  { field: 'workloads.storageClasses', edit: workloads({ storageClasses: { standard: 'fast' } }) },
  {
    field: 'workloads.podSecurity',
    edit: workloads({ podSecurity: 'restricted' }),
  },
  {
    field: 'workloads.runtimeClassName',
    edit: workloads({ runtimeClassName: 'gvisor' }),
    effect: ({ result }) => expect(skipsNaming(result, 'spec.runtimeClassName')).toHaveLength(1),
  },
  { field: 'workloads.allowSchedulerName', edit: workloads({ allowSchedulerName: true }) },
  { field: 'workloads.allowTolerateAll', edit: workloads({ allowTolerateAll: true }) },
  {
    field: 'workloads.scheduling',
    edit: workloads({
      scheduling: {
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'dev', effect: 'NoSchedule' }],
        nodeLabels: ['customer=dev'],
      },
    }),
  },
  {
    field: 'workloads.services',
    edit: workloads({
      services: { types: ['ClusterIP', 'NodePort'], externalNames: ['.example'] },
    }),
  },
  { field: 'workloads.endpoints', edit: workloads({ endpoints: { cidrs: ['10.9.0.0/16'] } }) },
  {
    field: 'workloads.networkPolicies',
    edit: workloads({ networkPolicies: { cidrs: ['10.9.0.0/16'], hostNamespaces: {} } }),
  },
  {
    field: 'workloads.ingresses',
    edit: workloads({ ingresses: { hostSuffixes: ['.apps.example.com'], classes: ['nginx'] } }),
  },
  {
    field: 'workloads.gateways',
    edit: workloads({
      gateways: {
        parents: [{ namespace: 'gateways', name: 'shared', sectionName: 'https' }],
        hostSuffixes: ['.apps.example.com'],
      },
    }),
  },
  {
    field: 'workloads.volumes',
    edit: workloads({
      volumes: { csiDrivers: ['secrets-store'], storageClasses: ['gp3'], volumeNames: ['pv-dev'] },
    }),
  },
  {
    field: 'workloads.pods',
    edit: workloads({
      pods: {
        allowFields: ['spec.newField'],
        trustBundleNames: ['corp-ca'],
        trustBundleSigners: ['example.com/ca'],
        podCertificateSigners: ['example.com/pods'],
      },
    }),
  },
  {
    field: 'fromHost',
    edit: (s) => ({
      ...s,
      fromHost: {
        storageClasses: { names: ['fast'] },
        ingressClasses: { labelSelector: 'offer=dev' },
        priorityClasses: { names: ['tenant-dev-high'] },
        runtimeClasses: { names: ['gvisor'] },
        gatewayClasses: { names: ['shared'] },
      },
    }),
    effect: ({ tenantApi }) =>
      expect(
        tenantApi.peek(
          { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' },
          undefined,
          'fast',
        ),
      ).toBeDefined(),
  },
];

/** Fields that say when or whether a pass runs, not what it makes: their own rows below. */
const WHEN_FIELDS = ['paused', 'resync'];

const READY = { type: 'Ready', status: 'True', lastTransitionTime: '2029-12-31T00:00:00Z' };
const hostNode: KubeObject = {
  ...NODE,
  metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } },
  status: {
    capacity: { cpu: '4', pods: '110' },
    allocatable: { cpu: '4', pods: '110' },
    addresses: [{ type: 'InternalIP', address: '192.168.0.7' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    conditions: [READY],
  },
};
const fastClass: KubeObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner: 'example.com/fast',
};

/** A tenant whose passes resume: copies made, its Pod bound to a tenant Node, nothing to do. */
async function steadyTenant() {
  const pod: KubeObject = {
    ...POD,
    metadata: { namespace: 'shop', name: 'web', uid: 'uid-web' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
  };
  const sides = clusters([pod, cm('shop', 'cfg')], [hostNode, fastClass], BASE);
  let now = START;
  const run = (path?: 'full') =>
    runPass({
      tenant: TENANT,
      ...sides,
      clock: { now: () => now },
      ...(path ? { path } : {}),
    });
  await run();
  const copy = sides.hostApi.peek(POD, HOST_NS, hn('shop', 'web')) as KubeObject;
  sides.hostApi.replace({
    ...copy,
    spec: { ...(copy.spec as object), nodeName: 'node-a' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  await run('full');
  now += 60_000;
  const quiet = await run();
  expect({ path: quiet.path, decisions: quiet.decisions }).toEqual({
    path: 'resumed',
    decisions: [],
  });
  const edit = (change: (spec: Record<string, unknown>) => Record<string, unknown>) => {
    const tc = sides.hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    sides.hostApi.replace({ ...tc, spec: change(tc.spec as Record<string, unknown>) });
    now += 60_000;
  };
  return { ...sides, run, edit };
}

/** What a pass leaves on both sides, without what the fakes number (uid, resourceVersion, times). */
function state(api: MemoryCluster): unknown[] {
  return api
    .objects()
    .filter((o) => o.kind !== 'TenantCluster' && o.kind !== 'Lease' && o.kind !== 'Event')
    .map((o) => {
      const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = o.metadata;
      return { ...o, metadata };
    })
    .map((o) =>
      JSON.parse(JSON.stringify(o).replace(/"uid-[^"]*"|"\d{4}-\d\d-\d\dT[^"]*"/g, '""')),
    );
}

const outcome = (result: PassResult) => ({
  errors: result.errors,
  decisions: decisionLines(result.decisions),
  reasons: result.decisions.map((d) => d.reason).sort(),
});

describe('a policy edit on a running tenant takes effect at the next pass, whatever its path', () => {
  it('the table covers every field of the CRD’s spec', () => {
    const crd = parse(
      readFileSync(resolve('deploy/crds/tenantclusters.tenantplane.io.yaml'), 'utf8'),
    ) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Schema } } } }[] };
    };
    interface Schema {
      properties?: Record<string, Schema>;
    }
    const spec = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec as Schema;
    const fields: string[] = [];
    for (const [name, schema] of Object.entries(spec.properties ?? {})) {
      // The policy's sections one level down (each workload setting is its own row).
      const nested = name === 'workloads' || name === 'deleteGuard';
      if (nested && schema.properties) {
        for (const inner of Object.keys(schema.properties)) fields.push(`${name}.${inner}`);
      } else fields.push(name);
    }
    const covered = new Set([...ROWS.map((r) => r.field), ...WHEN_FIELDS]);
    expect(fields.filter((f) => !covered.has(f))).toEqual([]);
  });

  it.each(ROWS)('$field', async ({ edit, effect }) => {
    const resumed = await steadyTenant();
    const full = await steadyTenant();
    resumed.edit(edit);
    full.edit(edit);
    const next = await resumed.run();
    const asked = await full.run('full');
    expect(next.path).not.toBe('resumed');
    expect(outcome(next)).toEqual(outcome(asked));
    expect(state(resumed.tenantApi)).toEqual(state(full.tenantApi));
    expect(state(resumed.hostApi)).toEqual(state(full.hostApi));
    effect?.({ ...resumed, result: next });
    // Applied once: a pass that completed leaves the next one nothing to write on either side.
    if (next.complete) {
      const after = await resumed.run();
      expect(after.requests.tenant.writes + after.requests.host.writes).toBe(0);
    }
  });

  it('paused: the next pass syncs nothing; unpaused, the one after resumes where it was', async () => {
    const t = await steadyTenant();
    t.edit((s) => ({ ...s, paused: true }));
    await t.tenantApi.create(cm('shop', 'new'));
    const paused = await t.run();
    expect(paused.decisions).toEqual([]);
    expect(t.hostApi.peek(CONFIGMAP, HOST_NS, hn('shop', 'new'))).toBeUndefined();
    t.edit((s) => ({ ...s, paused: false }));
    const resumed = await t.run();
    expect(decisionLines(resumed.decisions)).toEqual([
      `Create ConfigMap shop/new -> ${hn('shop', 'new')}`,
    ]);
  });

  it('resync: a shorter period makes the next pass a resync', async () => {
    const t = await steadyTenant();
    t.edit((s) => ({ ...s, resync: '30s' }));
    const next = await t.run();
    expect(next.path).toBe('resync');
  });
});
