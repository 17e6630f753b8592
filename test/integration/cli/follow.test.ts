/**
 * `tenantplane sync <tenant> --follow` as an operator runs it, a real child process against the
 * real clusters: it converges a tenant change made while it runs, printing the Decision as a JSON
 * record the moment its pass ends; SIGTERM stops it within a few seconds with exit 0 and
 * `status.follow` recorded; `--quiet-seconds` ends it by itself, and `tenantplane status` says so.
 * The one-file bundle deploy/follow runs (`npm run build:cli-bundle`), unpacked from its gzip as
 * the Deployment's init container does, with the Deployment's flags, converges a change as well.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { waitFor } from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { BIN, expectExit, NODE, REPO_ROOT, runProcess, tenantplane } from './support.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const LABEL = 'tenantplane-test';
const tenant = 'cli-follow';
const hostNs = 'cli-follow-host';
const vns = 'cli-follow-web';

let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
let kubeconfigFlags: string[];
let kubeconfigs: { tenant: string; host: string };

beforeAll(async () => {
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  kubeconfigs = { tenant: clusters.tenantKubeconfigPath, host: clusters.hostKubeconfigPath };
  kubeconfigFlags = [
    '--tenant-kubeconfig',
    clusters.tenantKubeconfigPath,
    '--host-kubeconfig',
    clusters.hostKubeconfigPath,
  ];
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNs } });
  await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: vns } });
  await hostApi.create({
    ...TENANT_CLUSTER,
    metadata: { name: tenant },
    spec: {
      hostNamespace: hostNs,
      toHost: [{ ...CONFIGMAP, exclude: { labelSelector: `${LABEL}!=${tenant}` } }],
    },
  });
});

afterAll(async () => {
  await tenantApi?.close();
  await hostApi?.close();
});

async function followStatus(): Promise<Record<string, unknown> | undefined> {
  const object = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
  return (object?.status as { follow?: Record<string, unknown> } | undefined)?.follow;
}

describe('tenantplane sync --follow', () => {
  it('converges a change as it happens, prints its Decision, and stops on SIGTERM with exit 0 and status recorded', async () => {
    const child = spawn(NODE, [BIN, 'sync', tenant, '--follow', '-o', 'json', ...kubeconfigFlags], {
      cwd: REPO_ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitFor('the follow active', async () =>
        (await followStatus())?.active === true ? true : undefined,
      );
      const configMap: KubeObject = {
        ...CONFIGMAP,
        metadata: { name: 'live', namespace: vns, labels: { [LABEL]: tenant } },
        data: { k: 'v' },
      };
      await tenantApi.create(configMap);
      const copy = hostName('live', vns, tenant);
      await waitFor('the host copy', () => hostApi.get(CONFIGMAP, hostNs, copy), 10_000);
      await waitFor('the Decision printed', async () =>
        stdout.includes(`"hostName":"${copy}"`) || stdout.includes(copy) ? true : undefined,
      );
      const record = stdout
        .split('\n')
        .filter((line) => line.includes(copy))
        .map((line) => JSON.parse(line) as Record<string, unknown>)[0];
      expect(record).toMatchObject({ action: 'Create', kind: 'ConfigMap' });
    } finally {
      const stoppedAt = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
      // Within a few seconds of the signal: the pass in hand, the status, the lease.
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    }
    expect(stderr).toContain(`Followed tenant cluster "${tenant}"`);
    expect(stderr).toContain('(ended: signal)');
    expect(await followStatus()).toMatchObject({ active: false, endReason: 'signal' });
  }, 60_000);

  it('--quiet-seconds ends the follow by itself; --quiet-seconds without --follow is a usage error', async () => {
    const run = await tenantplane([
      'sync',
      tenant,
      '--follow',
      '--quiet-seconds',
      '2',
      ...kubeconfigFlags,
    ]);
    expectExit(run, 0);
    expect(run.stderr).toContain('(ended: quiet)');
    const status = await tenantplane(['status', tenant, ...kubeconfigFlags]);
    expectExit(status, 0);
    expect(status.stdout).toMatch(
      /Followed: +no; the last follow ran from .* ended: quiet \(1 passes, 0 changes\)/,
    );
    const usage = await tenantplane(['sync', tenant, '--quiet-seconds', '2', ...kubeconfigFlags]);
    expectExit(usage, 2);
    expect(usage.stderr).toContain('--quiet-seconds is a setting of --follow');
  }, 60_000);

  it('the one-file bundle deploy/follow runs, unpacked from its gzip, converges a change with the Deployment’s flags and ends quiet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenantplane-cli-bundle-'));
    try {
      const built = await runProcess(NODE, [
        join(REPO_ROOT, 'scripts', 'build-cli-bundle.mjs'),
        '--outdir',
        join(dir, 'build'),
      ]);
      expectExit(built, 0);
      // The init container's step: only the gzip travels in the ConfigMap.
      const app = join(dir, 'tenantplane.mjs');
      writeFileSync(app, gunzipSync(readFileSync(join(dir, 'build', 'tenantplane.mjs.gz'))));
      const configMap: KubeObject = {
        ...CONFIGMAP,
        metadata: { name: 'bundled', namespace: vns, labels: { [LABEL]: tenant } },
        data: { k: 'v' },
      };
      await tenantApi.create(configMap);
      const run = await runProcess(NODE, [
        app,
        'sync',
        tenant,
        '--follow',
        '--quiet-seconds=2',
        `--tenant-kubeconfig=${kubeconfigs.tenant}`,
        `--host-kubeconfig=${kubeconfigs.host}`,
        '--output=json',
      ]);
      expectExit(run, 0);
      const copy = hostName('bundled', vns, tenant);
      expect(await hostApi.get(CONFIGMAP, hostNs, copy)).toBeDefined();
      const records = run.stdout
        .split('\n')
        .filter((line) => line.includes(copy))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records[0]).toMatchObject({ action: 'Create', kind: 'ConfigMap' });
      expect(run.stderr).toContain('(ended: quiet)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
