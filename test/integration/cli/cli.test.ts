/**
 * The `tenantplane` command as a child process against the real tenant and host clusters.
 *
 * The tenant apiserver is shared with other test files, so each TenantCluster here syncs only the
 * ConfigMaps labelled with its own test label (a policy exclusion), and uses its own host namespace.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';
import { expectExit, tenantplane } from './support.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const LABEL = 'tenantplane-test';

let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
let kubeconfigFlags: string[];
let tmp: string;

/** A TenantCluster syncing only ConfigMaps labelled `tenantplane-test=<tenant>`. */
async function createTenant(tenant: string, hostNamespace: string, namespaces: string[]) {
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
  await hostApi.create({
    apiVersion: TENANT_CLUSTER.apiVersion,
    kind: TENANT_CLUSTER.kind,
    metadata: { name: tenant },
    spec: {
      hostNamespace,
      toHost: [
        { apiVersion: 'v1', kind: 'ConfigMap', exclude: { labelSelector: `${LABEL}!=${tenant}` } },
      ],
    },
  });
  for (const ns of namespaces) {
    await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
}

function configMap(
  tenant: string,
  namespace: string,
  name: string,
  data: Record<string, string>,
): KubeObject {
  return { ...CONFIGMAP, metadata: { name, namespace, labels: { [LABEL]: tenant } }, data };
}

async function hostConfigMaps(namespace: string): Promise<KubeObject[]> {
  return (await hostApi.list(CONFIGMAP, { namespace })).items;
}

beforeAll(async () => {
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  kubeconfigFlags = [
    '--tenant-kubeconfig',
    clusters.tenantKubeconfigPath,
    '--host-kubeconfig',
    clusters.hostKubeconfigPath,
  ];
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-cli-'));
});

afterAll(async () => {
  await tenantApi?.close();
  await hostApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('tenantplane against real clusters', () => {
  const tenant = 'cli-a';
  const hostNs = 'cli-a-host';
  const vns = ['cli-a-web', 'cli-a-db'];

  beforeAll(async () => {
    await createTenant(tenant, hostNs, vns);
    await tenantApi.create(configMap(tenant, 'cli-a-web', 'settings', { color: 'blue' }));
    await tenantApi.create(configMap(tenant, 'cli-a-web', 'feature-flags', { beta: 'off' }));
    await tenantApi.create(configMap(tenant, 'cli-a-db', 'tuning', { pool: '10' }));
  }, 60_000);

  it('plan lists the Creates a pass would make and writes nothing', async () => {
    const before = await hostConfigMaps(hostNs);
    const run = await tenantplane(['plan', tenant, ...kubeconfigFlags]);
    expectExit(run, 0);
    expect(run.stdout).toMatch(/^ACTION\s+KIND\s+TENANT OBJECT\s+HOST OBJECT\s+REASON$/m);
    expect(run.stdout).toMatch(
      /^Create\s+ConfigMap\s+cli-a-web\/settings\s+cli-a-host\/settings-x-cli-a-web-x-cli-a\s/m,
    );
    expect(run.stdout).toContain('Plan (dry run, nothing written)');
    expect(run.stdout).toContain('Decisions: 3 Create, 0 Update, 0 Delete, 0 Skip');
    expect(run.stderr).toBe('');
    expect(await hostConfigMaps(hostNs)).toEqual(before);
    expect(before).toHaveLength(0);
    const tc = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
    expect(tc?.status).toBeUndefined();
    const status = await tenantplane(['status', tenant, ...kubeconfigFlags]);
    expect(status.stdout).toContain('Events: none');
  });

  it('sync makes the Creates, prints a table and a summary, exit 0', async () => {
    const run = await tenantplane(['sync', tenant, ...kubeconfigFlags]);
    expectExit(run, 0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => /^Create\s+ConfigMap\s/.test(l))).toHaveLength(3);
    expect(run.stdout).toMatch(
      /^Create\s+ConfigMap\s+cli-a-db\/tuning\s+cli-a-host\/tuning-x-cli-a-db-x-cli-a\s/m,
    );
    expect(run.stdout).toMatch(/Pass \S+ for tenant cluster "cli-a" complete in /);
    expect(run.stdout).not.toContain('\u001b[');
    expect((await hostConfigMaps(hostNs)).map((o) => o.metadata.name).sort()).toEqual([
      'feature-flags-x-cli-a-web-x-cli-a',
      'settings-x-cli-a-web-x-cli-a',
      'tuning-x-cli-a-db-x-cli-a',
    ]);
  });

  it('a second sync has nothing to do', async () => {
    const run = await tenantplane(['sync', tenant, ...kubeconfigFlags]);
    expectExit(run, 0);
    expect(run.stdout).toContain('No decisions');
    expect(run.stdout).toMatch(
      /Requests: tenant \d+ reads? \/ 0 writes, host \d+ reads? \/ 0 writes/,
    );
  });

  it('-o json prints one record per line: the decisions, then the pass', async () => {
    const settings = await tenantApi.get(CONFIGMAP, 'cli-a-web', 'settings');
    await tenantApi.update({ ...(settings as KubeObject), data: { color: 'green' } });
    const run = await tenantplane(['sync', tenant, ...kubeconfigFlags, '-o', 'json']);
    expectExit(run, 0);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.length).toBe(2);
    const [decision, pass] = records as [Record<string, unknown>, Record<string, unknown>];
    expect(decision).toMatchObject({
      type: 'decision',
      message: 'decision',
      tenant,
      action: 'Update',
      kind: 'ConfigMap',
      apiVersion: 'v1',
      tenantRef: 'cli-a-web/settings',
      hostRef: `${hostNs}/settings-x-cli-a-web-x-cli-a`,
      hostNamespace: hostNs,
      hostName: 'settings-x-cli-a-web-x-cli-a',
      dryRun: false,
    });
    expect(typeof decision.reason).toBe('string');
    expect(pass).toMatchObject({
      type: 'pass',
      message: 'pass finished',
      tenant,
      passId: decision.passId,
      complete: true,
      creates: 0,
      updates: 1,
      deletes: 0,
      skips: 0,
      errors: 0,
    });
  });

  it('status shows the last pass and the recent Events', async () => {
    const run = await tenantplane(['status', tenant, ...kubeconfigFlags]);
    expectExit(run, 0);
    expect(run.stdout).toMatch(/^TenantCluster:\s+cli-a$/m);
    expect(run.stdout).toMatch(/^Host namespace:\s+cli-a-host$/m);
    expect(run.stdout).toMatch(/^ {2}Complete:\s+yes$/m);
    expect(run.stdout).toMatch(/^ {2}Decisions:\s+0 Create, 1 Update, 0 Delete, 0 Skip$/m);
    expect(run.stdout).toContain('Recent events (latest first):');
    expect(run.stdout).toContain('settings-x-cli-a-web-x-cli-a');

    const json = await tenantplane(['status', tenant, ...kubeconfigFlags, '-o', 'json']);
    const report = JSON.parse(json.stdout) as {
      lastPass: { counts: { update: number } };
      events: unknown[];
    };
    expect(report.lastPass.counts.update).toBe(1);
    expect(report.events.length).toBeGreaterThan(0);
  });

  it('explain names the tenant source, the rule and the Decisions of a managed object', async () => {
    const run = await tenantplane([
      'explain',
      `${hostNs}/settings-x-cli-a-web-x-cli-a`,
      ...kubeconfigFlags,
    ]);
    expectExit(run, 0);
    expect(run.stdout).toMatch(/^Tenant cluster:\s+cli-a$/m);
    expect(run.stdout).toMatch(/^Source:\s+ConfigMap cli-a-web\/settings \(uid [0-9a-f-]+\)$/m);
    expect(run.stdout).toMatch(/^Source exists:\s+yes, on the tenant cluster$/m);
    expect(run.stdout).toMatch(
      /^Policy rule:\s+spec\.toHost\[0\] \{apiVersion: v1, kind: ConfigMap, exclude labelSelector "tenantplane-test!=cli-a"\} of TenantCluster cli-a$/m,
    );
    expect(run.stdout).toContain('Latest decisions (Events on TenantCluster cli-a, latest first):');
    expect(run.stdout).toMatch(/\bUpdate\b/);
    expect(run.stdout).toMatch(/\bCreate\b/);

    const json = await tenantplane([
      'explain',
      `${hostNs}/settings-x-cli-a-web-x-cli-a`,
      ...kubeconfigFlags,
      '-o',
      'json',
    ]);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      managed: true,
      source: {
        tenant,
        kind: 'ConfigMap',
        virtualNamespace: 'cli-a-web',
        virtualName: 'settings',
        exists: true,
      },
      rule: { index: 0 },
    });
  });

  it('explain says when the source is gone', async () => {
    await tenantApi.create(configMap(tenant, 'cli-a-db', 'ephemeral', { a: 'b' }));
    expectExit(await tenantplane(['sync', tenant, ...kubeconfigFlags]), 0);
    const source = await tenantApi.get(CONFIGMAP, 'cli-a-db', 'ephemeral');
    await tenantApi.delete(CONFIGMAP, 'cli-a-db', 'ephemeral', {
      uid: source?.metadata.uid as string,
    });
    const run = await tenantplane([
      'explain',
      `${hostNs}/ephemeral-x-cli-a-db-x-cli-a`,
      ...kubeconfigFlags,
    ]);
    expectExit(run, 0);
    expect(run.stdout).toMatch(/^Source exists:\s+no: the source is gone/m);
    const sync = await tenantplane(['sync', tenant, ...kubeconfigFlags]);
    expectExit(sync, 0);
    expect(sync.stdout).toMatch(
      /^Delete\s+ConfigMap\s+cli-a-db\/ephemeral\s+cli-a-host\/ephemeral-x-cli-a-db-x-cli-a\s/m,
    );

    // Once deleted, explain still fails (exit 1) but shows why the object went.
    const gone = await tenantplane([
      'explain',
      `${hostNs}/ephemeral-x-cli-a-db-x-cli-a`,
      ...kubeconfigFlags,
    ]);
    expectExit(gone, 1);
    expect(gone.stderr).toBe(
      `error: ConfigMap ${hostNs}/ephemeral-x-cli-a-db-x-cli-a does not exist on the host cluster\n`,
    );
    expect(gone.stdout).toMatch(
      /^Latest decisions about ConfigMap cli-a-host\/ephemeral-x-cli-a-db-x-cli-a/m,
    );
    expect(gone.stdout).toMatch(/Warning\s+Delete\s+1\s+ConfigMap cli-a-db\/ephemeral -> host/);
    expect(gone.stdout).toMatch(/Normal\s+Create\s+1\s+ConfigMap cli-a-db\/ephemeral -> host/);
  });

  it('explain of a foreign object says tenantplane does not manage it (exit 0)', async () => {
    await hostApi.create({
      ...CONFIGMAP,
      metadata: { name: 'hand-made', namespace: hostNs },
      data: { a: 'b' },
    });
    const run = await tenantplane(['explain', `${hostNs}/hand-made`, ...kubeconfigFlags]);
    expectExit(run, 0);
    expect(run.stdout).toBe(
      `ConfigMap ${hostNs}/hand-made is not managed by tenantplane: it has no app.kubernetes.io/managed-by=tenantplane label. No pass creates, updates or deletes it.\n`,
    );
  });

  it('explain of a missing object fails with exit 1', async () => {
    const run = await tenantplane(['explain', `${hostNs}/no-such-object`, ...kubeconfigFlags]);
    expectExit(run, 1);
    expect(run.stderr).toBe(
      `error: ConfigMap ${hostNs}/no-such-object does not exist on the host cluster\n`,
    );
  });
});

describe('exit codes', () => {
  const tenant = 'cli-b';
  const hostNs = 'cli-b-host';

  beforeAll(async () => {
    await createTenant(tenant, hostNs, ['cli-b-ns']);
    for (const name of ['one', 'two', 'three']) {
      await tenantApi.create(configMap(tenant, 'cli-b-ns', name, { n: name }));
    }
  }, 60_000);

  it('an incomplete pass (--max-writes 1 with more work) exits 3, and the next passes finish', async () => {
    const run = await tenantplane(['sync', tenant, ...kubeconfigFlags, '--max-writes', '1']);
    expectExit(run, 3);
    expect(run.stdout.split('\n').filter((l) => /^Create\s/.test(l))).toHaveLength(1);
    expect(run.stdout).toMatch(/incomplete: .*write budget/);
    const rest = await tenantplane([
      'sync',
      tenant,
      ...kubeconfigFlags,
      '--page-size',
      '1',
      '--concurrency',
      '1',
      '--deadline',
      '1m',
    ]);
    expectExit(rest, 0);
    expect(rest.stdout.split('\n').filter((l) => /^Create\s/.test(l))).toHaveLength(2);
  });

  it('an unreachable host exits 1 with one line and no kubeconfig content', async () => {
    const clusters = integrationClusters();
    const doc = parse(await readFile(clusters.hostKubeconfigPath, 'utf8')) as {
      clusters: Array<{ cluster: { server: string } }>;
    };
    for (const c of doc.clusters) c.cluster.server = 'https://127.0.0.1:1';
    const unreachable = join(tmp, 'unreachable.kubeconfig');
    await writeFile(unreachable, stringify(doc));
    const run = await tenantplane([
      'sync',
      tenant,
      '--tenant-kubeconfig',
      clusters.tenantKubeconfigPath,
      '--host-kubeconfig',
      unreachable,
    ]);
    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: the host cluster is unreachable\b.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).not.toMatch(/certificate|client-key|BEGIN|\n\s+at /);
  });

  it('a missing TenantCluster exits 1', async () => {
    const run = await tenantplane(['sync', 'cli-no-such-tenant', ...kubeconfigFlags]);
    expectExit(run, 1);
    expect(run.stderr).toBe(
      'error: TenantCluster "cli-no-such-tenant" does not exist on the host cluster\n',
    );
    const status = await tenantplane(['status', 'cli-no-such-tenant', ...kubeconfigFlags]);
    expectExit(status, 1);
  });

  it('a malformed kubeconfig exits 1 naming the file, not its content', async () => {
    const bad = join(tmp, 'bad.kubeconfig');
    await writeFile(
      bad,
      'apiVersion: v1\nkind: Config\nusers: [{name: x, user: {token: s3cr3t-token}}]\n',
    );
    const run = await tenantplane([
      'sync',
      tenant,
      '--tenant-kubeconfig',
      bad,
      '--host-kubeconfig',
      bad,
    ]);
    expectExit(run, 1);
    expect(run.stderr).toContain(bad);
    expect(run.stderr).not.toContain('s3cr3t');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--tenant-context/--host-context pick contexts; an unknown --context exits 1', async () => {
    const clusters = integrationClusters();
    const contextOf = async (path: string) =>
      (parse(await readFile(path, 'utf8')) as { 'current-context': string })['current-context'];
    const run = await tenantplane([
      'status',
      tenant,
      ...kubeconfigFlags,
      '--tenant-context',
      await contextOf(clusters.tenantKubeconfigPath),
      '--host-context',
      await contextOf(clusters.hostKubeconfigPath),
    ]);
    expectExit(run, 0);
    const bad = await tenantplane([
      'status',
      tenant,
      ...kubeconfigFlags,
      '--context',
      'no-such-context',
    ]);
    expectExit(bad, 1);
    expect(bad.stderr).toContain(clusters.hostKubeconfigPath);
    expect(bad.stderr).toContain('no-such-context');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('help exits 0 and a bad flag exits 2', async () => {
    const help = await tenantplane(['--help']);
    expectExit(help, 0);
    expect(help.stdout).toContain('Exit status:');
    const bad = await tenantplane(['plan', tenant, '--max-writes', 'lots', ...kubeconfigFlags]);
    expectExit(bad, 2);
    expect(bad.stderr).toMatch(/^error: --max-writes must be a whole number, got "lots"\n/);
  });

  it('name prints the host name of the engine vectors', async () => {
    const a = (n: number) => 'a'.repeat(n);
    for (const [name, vns, t, expected] of [
      ['nginx', 'default', 'dev', 'nginx-x-default-x-dev'],
      ['a-x-b', 'c', 't', 'a-x-b-x-c-x-t-5c0b1191ed'],
      [a(60), 'default', 'dev', `${a(52)}-dda284b7c0`],
    ] as const) {
      const run = await tenantplane(['name', name, vns, t]);
      expectExit(run, 0);
      expect(run.stdout).toBe(`${expected}\n`);
    }
  });
});
