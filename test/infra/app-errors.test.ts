/**
 * `cdk synth` on a bad tenants config: the app (infra/app.ts, run as cdk runs it, with the context
 * in CDK_CONTEXT_JSON) prints one message listing every problem and exits 1, without a stack.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = join(REPO_ROOT, 'node_modules/.bin/tsx');

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-app-errors-'));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Runs the CDK app with `tenantsConfig` set to `configPath`. */
function synth(configPath: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      TSX,
      ['infra/app.ts'],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          CDK_CONTEXT_JSON: JSON.stringify({ tenantsConfig: configPath }),
          CDK_OUTDIR: join(tmp, 'out'),
        },
        timeout: 60_000,
      },
      (error, _stdout, stderr) => {
        resolvePromise({ code: typeof error?.code === 'number' ? error.code : 0, stderr });
      },
    );
  });
}

describe('cdk synth on a bad tenants config', () => {
  it('an invalid config: one message listing every problem, exit 1, no stack', async () => {
    const path = join(tmp, 'tenants.yaml');
    await writeFile(path, 'tenants:\n  - name: Bad_Name\n    schedule: rate(5 minutes)\n');
    const run = await synth(path);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: invalid tenants config ${path}:\n` +
        "  - tenants[0] (Bad_Name): name: must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit\n" +
        "  - tenants[0] (Bad_Name): tenantSecretId: is required (or tenantEks: {clusterName, region}, for a tenant cluster on EKS reached with the function's IAM role)\n" +
        "  - tenants[0] (Bad_Name): hostSecretId: is required (or hostEks: {clusterName, region}, for a host on EKS reached with the function's IAM role)\n",
    );
  });

  it('a missing file: names the file and the setting that names it, exit 1, no stack', async () => {
    const path = join(tmp, 'missing.yaml');
    const run = await synth(path);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: invalid tenants config ${path}:\n  - the file does not exist (name another with "cdk synth -c tenantsConfig=<file>")\n`,
    );
  });
});
