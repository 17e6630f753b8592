/**
 * `tenantplane secrets put <tenant>`: writes a tenant's kubeconfigs into Secrets Manager in the
 * format its function reads, under the secret ids config/tenants.yaml gives it (or the flags).
 * Checks each kubeconfig with the function's rules before writing, reads each back the way the
 * function does after, and never prints a kubeconfig.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { isRecord } from '../../common/index.js';
import type { ClusterRole } from '../../ports/index.js';
import { CommandError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { checkTenantName } from '../options.js';

interface SecretsPutFlags {
  tenantKubeconfig?: string;
  hostKubeconfig?: string;
  tenantSecretId?: string;
  hostSecretId?: string;
  config: string;
  region?: string;
  kmsKeyId?: string;
}

const ROLES = ['tenant', 'host'] as const satisfies readonly ClusterRole[];
const DEFAULT_CONFIG = 'config/tenants.yaml';

/** The secret ids config/tenants.yaml gives `tenant`, or why it gives none. */
async function configuredIds(
  path: string,
  tenant: string,
): Promise<Partial<Record<ClusterRole, string>> | string> {
  if (!existsSync(path)) return `${path} does not exist`;
  let doc: unknown;
  try {
    doc = parse(await readFile(path, 'utf8'));
  } catch {
    return `${path} is not YAML`;
  }
  const tenants = isRecord(doc) && Array.isArray(doc.tenants) ? doc.tenants : [];
  const entry = tenants.find((t) => isRecord(t) && t.name === tenant);
  if (!isRecord(entry)) return `${path} lists no tenant ${tenant}`;
  const id = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const ids: Partial<Record<ClusterRole, string>> = {};
  const tenantId = id(entry.tenantSecretId);
  const hostId = id(entry.hostSecretId);
  if (tenantId) ids.tenant = tenantId;
  if (hostId) ids.host = hostId;
  return ids;
}

/** The secret id of each role to write: the flag, else the config's. */
async function secretIds(
  tenant: string,
  flags: SecretsPutFlags,
  roles: readonly ClusterRole[],
): Promise<Record<ClusterRole, string | undefined>> {
  const given = { tenant: flags.tenantSecretId, host: flags.hostSecretId };
  if (roles.every((r) => given[r] !== undefined)) return given;
  const configured = await configuredIds(flags.config, tenant);
  const ids = { ...given };
  for (const role of roles) {
    if (ids[role] !== undefined) continue;
    const fromConfig = typeof configured === 'string' ? undefined : configured[role];
    if (fromConfig === undefined) {
      const why = typeof configured === 'string' ? configured : `${flags.config} gives none`;
      throw new UsageError(
        `no secret id for the ${role} kubeconfig of tenant ${tenant} (${why}): give --${role}-secret-id, or the tenant's ${role}SecretId in --config`,
      );
    }
    ids[role] = fromConfig;
  }
  return ids;
}

async function readKubeconfig(path: string, role: ClusterRole) {
  try {
    return { text: await readFile(path, 'utf8'), origin: path };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CommandError(
      `${role} kubeconfig ${path} cannot be read (${typeof code === 'string' ? code : 'error'})`,
    );
  }
}

/** Runs `secrets put`: checks, writes and reads back each kubeconfig given. */
async function secretsPut(
  tenantArg: string,
  flags: SecretsPutFlags,
  io: CliIo,
  client: SecretsManagerClient | undefined,
): Promise<ExitCode> {
  const tenant = checkTenantName(tenantArg);
  const files = { tenant: flags.tenantKubeconfig, host: flags.hostKubeconfig };
  const roles = ROLES.filter((r) => files[r] !== undefined);
  if (roles.length === 0) {
    throw new UsageError('give --tenant-kubeconfig, --host-kubeconfig or both: nothing to write');
  }
  const ids = await secretIds(tenant, flags, roles);
  const { putKubeconfigSecret, storableKubeconfigProblem } = await import(
    '../../adapters/kubeconfig/secrets-manager-writer.js'
  );
  // Both checked before either is written: a refused host kubeconfig leaves the tenant's as it was.
  const kubeconfigs = new Map<ClusterRole, { text: string; origin: string }>();
  for (const role of roles) {
    const kubeconfig = await readKubeconfig(files[role] as string, role);
    const problem = storableKubeconfigProblem(role, kubeconfig);
    if (problem !== undefined) throw new CommandError(problem);
    kubeconfigs.set(role, kubeconfig);
  }
  const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const sm = client ?? new SecretsManagerClient(flags.region ? { region: flags.region } : {});
  const { SecretsManagerKubeconfigSource } = await import(
    '../../adapters/kubeconfig/secrets-manager-source.js'
  );
  const reader = new SecretsManagerKubeconfigSource({
    tenantSecretId: ids.tenant ?? '',
    hostSecretId: ids.host ?? '',
    maxAgeSeconds: 0,
    client: sm,
  });
  for (const role of roles) {
    const kubeconfig = kubeconfigs.get(role) as { text: string; origin: string };
    const result = await putKubeconfigSecret({
      client: sm,
      tenant,
      role,
      secretId: ids[role] as string,
      kubeconfig,
      ...(flags.kmsKeyId === undefined ? {} : { kmsKeyId: flags.kmsKeyId }),
    });
    // Read back through the function's own loader: what it will read is what was meant.
    const back = await reader.load(role).catch((error: unknown) => {
      throw new CommandError(
        `wrote secret ${result.secretId}, but reading it back as the function does failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    });
    if (back.text !== kubeconfig.text) {
      throw new CommandError(
        `wrote secret ${result.secretId}, but it reads back different (another writer?)`,
      );
    }
    io.out(
      `${result.created ? 'Created' : 'Updated'} secret ${result.secretId}: the ${role} kubeconfig of tenant ${tenant} (from ${kubeconfig.origin}${result.versionId ? `, version ${result.versionId}` : ''}), read back as the function reads it.\n`,
    );
  }
  return ExitCode.Ok;
}

/** Adds `secrets put` to `program`. */
export function addSecretsCommand(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
  client: () => SecretsManagerClient | undefined,
): void {
  const secrets = program
    .command('secrets')
    .summary("write a tenant's kubeconfigs into AWS Secrets Manager (secrets put)")
    .description(
      "Manage the tenant's kubeconfigs in AWS Secrets Manager, as its function reads them.",
    );
  secrets
    .command('put')
    .summary("write a tenant's kubeconfigs into Secrets Manager, as its function reads them")
    .description(
      'Write the tenant\'s kubeconfigs into AWS Secrets Manager as the sync function reads them (SecretString {"kubeconfig": "<yaml>"}), under the secret ids of its entry in config/tenants.yaml (or --tenant-secret-id/--host-secret-id). Each kubeconfig is checked with the function\'s rules first (credentials inline: no exec, auth provider or file paths) and read back after. Creates a missing secret (tagged tenantplane:tenant), else writes a new version. Never prints a kubeconfig.',
    )
    .argument('<tenant>', 'the TenantCluster name')
    .option(
      '--tenant-kubeconfig <file>',
      'kubeconfig of the tenant cluster (its read-mostly identity)',
    )
    .option('--host-kubeconfig <file>', "kubeconfig of the tenant's own host identity")
    .option(
      '--tenant-secret-id <id>',
      'secret name or ARN for the tenant kubeconfig (default: tenantSecretId in --config)',
    )
    .option(
      '--host-secret-id <id>',
      'secret name or ARN for the host kubeconfig (default: hostSecretId in --config)',
    )
    .option('--config <file>', 'the tenants config the secret ids come from', DEFAULT_CONFIG)
    .option('--region <region>', 'AWS region (default: AWS_REGION, the profile)')
    .option('--kms-key-id <key>', 'KMS key for a secret this creates (default: aws/secretsmanager)')
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane secrets put dev --tenant-kubeconfig dev-tenant.kubeconfig --host-kubeconfig dev-host.kubeconfig
  $ AWS_PROFILE=platform tenantplane secrets put dev --host-kubeconfig dev-host.kubeconfig --region eu-west-1
  $ tenantplane secrets put qa --tenant-kubeconfig qa.kubeconfig --tenant-secret-id tenantplane/tenants/qa/kubeconfig
  $ kubectl config view --flatten --minify --context tenant-dev > dev-tenant.kubeconfig   # inline credentials

Uses the AWS default credential chain; needs secretsmanager:PutSecretValue, CreateSecret (for a
new secret), TagResource and GetSecretValue on the secrets.`,
    )
    .action(async (tenant: string, flags: SecretsPutFlags) => {
      setExit(await secretsPut(tenant, flags, io, client()));
    });
}
