/**
 * `tenantplane wake-config <tenant>`, run (the command itself: `wake-config.ts`): what a tenant's kube-apiserver needs to wake its function
 * (docs/wake.md): the audit policy (writes of the kinds the tenant's policy syncs, at Metadata
 * level), the audit webhook kubeconfig (the wake URL with the tenant's path, the tenant's wake
 * token) and the kube-apiserver flags. The rendering is lib/wake's, shared with the local plane.
 *
 * The token is read only when the kubeconfig is asked for (`--webhook-kubeconfig` prints it,
 * `--out-dir` writes it to a file only its owner reads): it is a credential, and printing the
 * policy needs none.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseSyncPolicy } from '../../engine/index.js';
import { TENANT_CLUSTER } from '../../ports/index.js';
import {
  apiserverAuditFlags,
  auditResourcesOf,
  renderAuditPolicy,
  renderWebhookKubeconfig,
  type SyncedKind,
  wakeSecretPrefix,
} from '../../wake/index.js';
import { withClusters } from '../clusters.js';
import { CommandError, hostReadError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import type { ClusterFlags } from '../kubeconfig-choice.js';
import { checkTenantName } from '../options.js';

export interface WakeConfigFlags extends ClusterFlags {
  url?: string;
  kinds?: string;
  tokenSecretId?: string;
  tokenFile?: string;
  stage?: string;
  region?: string;
  caFile?: string;
  outDir?: string;
  webhookKubeconfig?: boolean;
  engineUser: string;
}

/** `v1/ConfigMap,apps/v1/Deployment` -> the kinds (apiVersion is everything before the last `/`). */
export function parseKinds(list: string): SyncedKind[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const slash = entry.lastIndexOf('/');
      if (slash <= 0 || slash === entry.length - 1)
        throw new UsageError(
          `--kinds: ${JSON.stringify(entry)} is not <apiVersion>/<Kind> (e.g. v1/ConfigMap, apps/v1/Deployment)`,
        );
      return { apiVersion: entry.slice(0, slash), kind: entry.slice(slash + 1) };
    });
}

/** The kinds the tenant's policy syncs: `--kinds`, else its TenantCluster on the host. */
async function syncedKinds(
  tenant: string,
  flags: WakeConfigFlags,
  io: CliIo,
): Promise<SyncedKind[]> {
  if (flags.kinds !== undefined) return parseKinds(flags.kinds);
  return withClusters(flags, io, async (clusters) => {
    const hostApi = await clusters.host();
    let object: Awaited<ReturnType<typeof hostApi.get>>;
    try {
      object = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
    } catch (error) {
      throw hostReadError(error, `TenantCluster "${tenant}"`);
    }
    if (!object) throw new CommandError(`TenantCluster "${tenant}" not found on the host cluster`);
    return parseSyncPolicy(tenant, object.spec).toHost.map(({ apiVersion, kind }) => ({
      apiVersion,
      kind,
    }));
  });
}

/** The tenant's wake token: `--token-file`, else its Secrets Manager secret. Never printed here. */
async function wakeToken(
  tenant: string,
  flags: WakeConfigFlags,
  client: SecretsManagerClient | undefined,
): Promise<string> {
  if (flags.tokenFile !== undefined) {
    const token = (
      await readFile(flags.tokenFile, 'utf8').catch(() => {
        throw new CommandError(`the wake token file ${flags.tokenFile} cannot be read`);
      })
    ).trim();
    if (token === '') throw new CommandError(`the wake token file ${flags.tokenFile} is empty`);
    return token;
  }
  const secretId = flags.tokenSecretId ?? `${wakeSecretPrefix(flags.stage)}${tenant}`;
  const { GetSecretValueCommand, SecretsManagerClient } = await import(
    '@aws-sdk/client-secrets-manager'
  );
  const sm = client ?? new SecretsManagerClient(flags.region ? { region: flags.region } : {});
  try {
    const out = await sm.send(new GetSecretValueCommand({ SecretId: secretId }));
    const token = out.SecretString?.trim();
    if (!token) throw new CommandError(`the wake token secret ${secretId} holds no string`);
    return token;
  } catch (error) {
    if (error instanceof CommandError) throw error;
    const name = error instanceof Error ? error.name : 'Error';
    throw new CommandError(`the wake token secret ${secretId} cannot be read (${name})`, {
      cause: error,
    });
  }
}

const POLICY_FILE = 'audit-policy.yaml';
const KUBECONFIG_FILE = 'audit-webhook.kubeconfig';

/** Runs `wake-config` (see the module doc). */
export async function wakeConfigCommand(
  tenantArg: string,
  flags: WakeConfigFlags,
  io: CliIo,
  client: SecretsManagerClient | undefined,
): Promise<ExitCode> {
  const tenant = checkTenantName(tenantArg);
  if (flags.tokenFile !== undefined && flags.tokenSecretId !== undefined)
    throw new UsageError('give --token-file or --token-secret-id, not both');
  const needsToken = flags.webhookKubeconfig === true || flags.outDir !== undefined;
  if (needsToken && flags.url === undefined)
    throw new UsageError(
      "--url is required for the webhook kubeconfig (the stack output WakeUrl, or the local plane's wake.url)",
    );
  if (flags.webhookKubeconfig && flags.outDir !== undefined)
    throw new UsageError(
      'give --webhook-kubeconfig (print it) or --out-dir (write both files), not both',
    );

  const kubeconfig = async () =>
    renderWebhookKubeconfig({
      tenant,
      wakeUrl: flags.url as string,
      token: await wakeToken(tenant, flags, client),
      ...(flags.caFile === undefined
        ? {}
        : { certificateAuthorityPem: await readFile(flags.caFile, 'utf8') }),
    });
  if (flags.webhookKubeconfig) {
    io.out(await kubeconfig());
    return ExitCode.Ok;
  }
  const policy = renderAuditPolicy(auditResourcesOf(await syncedKinds(tenant, flags, io)), {
    ignoreUsers: [flags.engineUser],
  });
  if (flags.outDir !== undefined) {
    const dir = resolve(flags.outDir);
    await mkdir(dir, { recursive: true });
    const policyPath = join(dir, POLICY_FILE);
    const kubeconfigPath = join(dir, KUBECONFIG_FILE);
    await writeFile(policyPath, policy);
    // The token: its owner only, from the first byte.
    await writeFile(kubeconfigPath, await kubeconfig(), { mode: 0o600 });
    await chmod(kubeconfigPath, 0o600);
    io.out(
      `Wrote ${policyPath} and ${kubeconfigPath} (the tenant's wake token: keep it as a credential).\nkube-apiserver flags:\n  ${apiserverAuditFlags(policyPath, kubeconfigPath).join(' \\\n  ')}\n`,
    );
    return ExitCode.Ok;
  }
  io.out(policy);
  io.out(
    `# kube-apiserver flags (the webhook kubeconfig holds the tenant's wake token: --webhook-kubeconfig prints it, --out-dir writes both files):\n#   ${apiserverAuditFlags(`<dir>/${POLICY_FILE}`, `<dir>/${KUBECONFIG_FILE}`).join(' \\\n#   ')}\n`,
  );
  return ExitCode.Ok;
}
