/**
 * The built `tenantplane` command as a child process against the real clusters, the kubectl way:
 * one kubeconfig holding both clusters picked by --tenant-context/--host-context, KUBECONFIG
 * merging, -o yaml, and `status` without a tenant listing every TenantCluster.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { integrationClusters } from '../support/clusters.js';
import { seedTenant } from '../support/seed.js';
import { expectExit, tenantplane } from './support.js';

const TENANT = 'cli-kube';
const HOST_NS = 'cli-kube-host';
const VNS = 'cli-kube-ns';
const LABEL = 'tenantplane-test';

type Kubeconfig = Record<string, unknown> & { 'current-context': string };

let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
let tmp: string;
/** One kubeconfig file holding both clusters. */
let allInOne: string;
let contextFlags: string[];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-cli-kube-'));
  const tenantDoc = parse(clusters.tenant.text) as Kubeconfig;
  const hostDoc = parse(clusters.host.text) as Kubeconfig;
  const merged = { apiVersion: 'v1', kind: 'Config' } as Record<string, unknown>;
  for (const list of ['clusters', 'users', 'contexts']) {
    merged[list] = [...(tenantDoc[list] as unknown[]), ...(hostDoc[list] as unknown[])];
  }
  // Current context: the host, as an operator's kubeconfig usually has it.
  merged['current-context'] = hostDoc['current-context'];
  allInOne = join(tmp, 'all-in-one.kubeconfig');
  await writeFile(allInOne, stringify(merged), { mode: 0o600 });
  contextFlags = [
    '--tenant-context',
    tenantDoc['current-context'],
    '--host-context',
    hostDoc['current-context'],
  ];
  // KUBECONFIG from the environment must not leak in where a test does not set it.
  env = { ...process.env };
  delete env.KUBECONFIG;

  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  });
  await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: VNS } });
  await tenantApi.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: VNS, labels: { [LABEL]: TENANT } },
    data: { color: 'blue' },
  });
}, 60_000);

afterAll(async () => {
  await tenantApi?.close();
  await hostApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('one kubeconfig for both clusters', () => {
  it('sync --kubeconfig <file> --tenant-context --host-context runs the pass, -o yaml streams its records', async () => {
    const run = await tenantplane(
      ['sync', TENANT, '--kubeconfig', allInOne, ...contextFlags, '-o', 'yaml'],
      env,
    );
    expectExit(run, 0);
    const records = parseAllDocuments(run.stdout);
    if (!Array.isArray(records)) throw new Error('expected a YAML stream');
    const values = records.map((d) => d.toJS() as Record<string, unknown>);
    expect(values).toHaveLength(2);
    expect(values[0]).toMatchObject({
      type: 'decision',
      action: 'Create',
      tenantRef: `${VNS}/settings`,
      hostRef: `${HOST_NS}/settings-x-${VNS}-x-${TENANT}`,
    });
    expect(values[1]).toMatchObject({ type: 'pass', tenant: TENANT, creates: 1, complete: true });
    const host = await hostApi.get(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      HOST_NS,
      `settings-x-${VNS}-x-${TENANT}`,
    );
    expect(host?.data).toEqual({ color: 'blue' });
  });

  it('KUBECONFIG=<tenant>:<host> merges the two files like kubectl', async () => {
    const clusters = integrationClusters();
    const run = await tenantplane(['plan', TENANT, ...contextFlags], {
      ...env,
      KUBECONFIG: `${clusters.tenantKubeconfigPath}:${join(tmp, 'missing')}:${clusters.hostKubeconfigPath}`,
    });
    expectExit(run, 0);
    expect(run.stdout).toContain('No decisions');
  });

  it('explain -o yaml parses back to the -o json record', async () => {
    const args = ['explain', `${HOST_NS}/settings-x-${VNS}-x-${TENANT}`, '--kubeconfig', allInOne];
    const yaml = await tenantplane([...args, ...contextFlags, '-o', 'yaml'], env);
    expectExit(yaml, 0);
    const json = await tenantplane([...args, ...contextFlags, '-o', 'json'], env);
    expectExit(json, 0);
    const record = parse(yaml.stdout) as Record<string, unknown>;
    expect(record).toMatchObject({
      managed: true,
      source: { tenant: TENANT, virtualNamespace: VNS, virtualName: 'settings', exists: true },
    });
    expect(record).toEqual(JSON.parse(json.stdout));
  });

  it('status <tenant> needs only the host context; -o yaml parses back', async () => {
    const run = await tenantplane(
      [
        'status',
        TENANT,
        '--kubeconfig',
        allInOne,
        contextFlags[2]!,
        contextFlags[3]!,
        '-o',
        'yaml',
      ],
      env,
    );
    expectExit(run, 0);
    const report = parse(run.stdout) as { tenant: string; lastPass: { complete: boolean } };
    expect(report.tenant).toBe(TENANT);
    expect(report.lastPass.complete).toBe(true);
  });

  it('refuses one kubeconfig without contexts for a pass (exit 2), before touching a cluster', async () => {
    const run = await tenantplane(['sync', TENANT, '--kubeconfig', allInOne], env);
    expectExit(run, 2);
    expect(run.stderr).toMatch(/^error: one kubeconfig \(--kubeconfig\) holds both clusters/);
  });

  it('an unknown context exits 1 naming the file and the context, not the content', async () => {
    const run = await tenantplane(
      [
        'plan',
        TENANT,
        '--kubeconfig',
        allInOne,
        '--tenant-context',
        'nope',
        contextFlags[2]!,
        contextFlags[3]!,
      ],
      env,
    );
    expectExit(run, 1);
    expect(run.stderr).toContain(allInOne);
    expect(run.stderr).toContain('"nope"');
    expect(run.stderr).not.toMatch(/BEGIN|client-key-data|certificate-authority-data/);
  });
});

describe('status without a tenant', () => {
  it('lists every TenantCluster like kubectl get', async () => {
    const run = await tenantplane(['status', '--kubeconfig', allInOne], env);
    expectExit(run, 0);
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+HOST NAMESPACE\s+PAUSED\s+READY\s+LAST PASS\s+COMPLETE\s+AGE$/);
    const row = rows.find((r) => r.startsWith(`${TENANT} `));
    expect(row).toMatch(
      new RegExp(`^${TENANT}\\s+${HOST_NS}\\s+false\\s+\\S+\\s+\\d+[smhd]\\s+true\\s+\\d+[smhd]$`),
    );
  });

  it('-o json and -o yaml print the TenantClusters as a kubectl List', async () => {
    const base = ['status', '--kubeconfig', allInOne, ...contextFlags];
    const json = await tenantplane([...base, '-o', 'json'], env);
    expectExit(json, 0);
    const list = JSON.parse(json.stdout) as {
      kind: string;
      items: Array<{ metadata: { name: string; managedFields?: unknown }; spec: unknown }>;
    };
    expect(list.kind).toBe('List');
    const mine = list.items.find((i) => i.metadata.name === TENANT);
    expect(mine?.spec).toMatchObject({ hostNamespace: HOST_NS });
    expect(mine?.metadata.managedFields).toBeUndefined();
    const yaml = await tenantplane([...base, '-o', 'yaml'], env);
    expectExit(yaml, 0);
    const fromYaml = parse(yaml.stdout) as typeof list;
    expect(fromYaml.items.map((i) => i.metadata.name)).toEqual(
      list.items.map((i) => i.metadata.name),
    );
  });

  it('reads the TenantClusters from the host only: --host-context alone reads KUBECONFIG', async () => {
    const clusters = integrationClusters();
    const hostContext = (parse(await readFile(clusters.hostKubeconfigPath, 'utf8')) as Kubeconfig)[
      'current-context'
    ];
    const run = await tenantplane(['status', '--host-context', hostContext, '-o', 'json'], {
      ...env,
      KUBECONFIG: clusters.hostKubeconfigPath,
    });
    expectExit(run, 0);
    const names = (JSON.parse(run.stdout) as { items: Array<{ metadata: { name: string } }> })
      .items;
    expect(names.map((i) => i.metadata.name)).toContain(TENANT);
  });
});
