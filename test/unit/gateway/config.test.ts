/**
 * The gateway's tenants file: a refusal names the file and every field at fault, and the CDK's
 * config/tenants.yaml (the file most often given by mistake) is recognised as such.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayConfigError, loadGatewayTenants } from '../../../lib/gateway/config.js';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-gateway-config-'));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function refusal(path: string): Promise<string> {
  const error = await loadGatewayTenants(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof GatewayConfigError))
    throw new Error(`expected a GatewayConfigError, got ${error}`);
  return error.message;
}

describe('gateway --config refusals name the file and the field', () => {
  it('config/tenants.yaml (the CDK config): the file, the fields it lacks, and which file to give', async () => {
    expect(await refusal('config/tenants.yaml')).toBe(
      'the gateway configuration config/tenants.yaml: tenants[0] (dev): hostNamespace is missing (a namespace name); clientCA is missing (the path of a PEM CA bundle); hostKubeconfig is missing (the path of a kubeconfig). This looks like the CDK tenants config (config/tenants.yaml); the gateway takes its own file: docs/kubelet-gateway.md',
    );
  });

  it('a bad value: the file, the tenant, the field and the value', async () => {
    const path = join(tmp, 'gateway.yaml');
    await writeFile(
      path,
      'tenants:\n  - name: dev\n    hostNamespace: Tenant_Dev\n    clientCA: ca.crt\n    hostKubeconfig: host.kubeconfig\n',
    );
    expect(await refusal(path)).toBe(
      `the gateway configuration ${path}: tenants[0] (dev): hostNamespace must be a namespace name, got "Tenant_Dev"`,
    );
  });
});
