/**
 * The papercuts a new user hits first, each run as the operator runs it: the built `tenantplane`
 * command as a child process (and, where a cluster is involved, against the real clusters).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { integrationClusters } from '../support/clusters.js';
import { seedTenant } from '../support/seed.js';
import { BIN, expectExit, NODE, REPO_ROOT, tenantplane } from './support.js';

const TENANT = 'cli-papercuts';
const HOST_NS = 'cli-papercuts-host';

let hostApi: KubeClusterApi;
let tmp: string;
/** The command's environment: no KUBECONFIG of the test runner's, and its own state directory. */
let env: NodeJS.ProcessEnv;
let hostContext: string;

beforeAll(async () => {
  const clusters = integrationClusters();
  hostApi = createClusterApi(clusters.host);
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-papercuts-'));
  env = { ...process.env, XDG_STATE_HOME: join(tmp, 'state') };
  delete env.KUBECONFIG;
  hostContext = (parse(clusters.host.text) as { 'current-context': string })['current-context'];
  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  });
}, 60_000);

afterAll(async () => {
  await hostApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Runs the command with its stdout's reader already gone (`... | head -1` after the first line). */
function runWithClosedStdout(
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [BIN, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stderr }));
  });
}

describe('a reader that goes away (| head -1)', () => {
  it.each([[['sync', '--help']], [['--help']], [['name', 'nginx', 'default', 'dev']]])(
    '%j exits 0 quietly: no EPIPE stack',
    async (args) => {
      const run = await runWithClosedStdout(args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
  );
});

describe('--context alone reads KUBECONFIG, like kubectl', () => {
  it('status <tenant> --context <host> reads the host of KUBECONFIG, not the local clusters', async () => {
    const run = await tenantplane(['status', TENANT, '--context', hostContext, '-o', 'json'], {
      ...env,
      KUBECONFIG: integrationClusters().hostKubeconfigPath,
    });
    expectExit(run, 0);
    expect(run.stderr).not.toContain('[local]');
    expect(JSON.parse(run.stdout)).toMatchObject({ tenant: TENANT });
  });

  it('sync <tenant> --context <one> is refused: one context cannot be both clusters', async () => {
    const run = await tenantplane(['sync', TENANT, '--context', hostContext], {
      ...env,
      KUBECONFIG: integrationClusters().hostKubeconfigPath,
    });
    expectExit(run, 2);
    expect(run.stderr).toContain(`would both use context "${hostContext}"`);
    expect(run.stderr).not.toContain('[local]');
  });
});

describe('a host without the TenantCluster CRD', () => {
  // The tenant apiserver has no TenantCluster CRD: named as the host, it is a host that lacks it.
  const swapped = () => {
    const clusters = integrationClusters();
    return [
      '--tenant-kubeconfig',
      clusters.hostKubeconfigPath,
      '--host-kubeconfig',
      clusters.tenantKubeconfigPath,
    ];
  };

  it.each([[['sync', TENANT]], [['plan', TENANT]], [['status', TENANT]], [['status']]])(
    '%j says the CRD is missing and how to install it (exit 1)',
    async (args) => {
      const run = await tenantplane([...args, ...swapped()], env);
      expectExit(run, 1);
      expect(run.stderr).toBe(
        'error: the host cluster does not serve TenantCluster (tenantplane.io/v1alpha1): the CRD tenantclusters.tenantplane.io is not installed; install it on the host with "kubectl apply -f deploy/crds/tenantclusters.tenantplane.io.yaml" (from the tenantplane repository), then create the TenantCluster\n',
      );
    },
  );

  it('with the CRD installed, a missing TenantCluster is still named as such', async () => {
    const clusters = integrationClusters();
    const run = await tenantplane(
      [
        'plan',
        'cli-papercuts-none',
        '--tenant-kubeconfig',
        clusters.tenantKubeconfigPath,
        '--host-kubeconfig',
        clusters.hostKubeconfigPath,
      ],
      env,
    );
    expectExit(run, 1);
    expect(run.stderr).toBe(
      'error: TenantCluster "cli-papercuts-none" does not exist on the host cluster\n',
    );
  });
});
