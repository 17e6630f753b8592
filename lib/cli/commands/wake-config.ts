/**
 * `tenantplane wake-config <tenant>`: its flags and help; the work is `wake-config-run.ts`, loaded
 * only when the command runs (the engine and the cluster client stay out of every other command).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Command } from 'commander';
import { DEFAULT_ENGINE_USER } from '../../wake/index.js';
import type { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { addClusterOptions } from '../options.js';
import type { WakeConfigFlags } from './wake-config-run.js';

/** Adds `wake-config` to the program. */
export function addWakeConfigCommand(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
  client: () => SecretsManagerClient | undefined,
): void {
  const command = program
    .command('wake-config')
    .summary("print what a tenant's apiserver needs to wake its function")
    .description(
      "Print the audit policy (only writes of the kinds the tenant's policy syncs, at Metadata level) and the kube-apiserver flags of the audit webhook that wakes the tenant's function (docs/wake.md); with --webhook-kubeconfig or --out-dir, the webhook kubeconfig too (the wake URL and the tenant's wake token).",
    )
    .argument('<tenant>', 'the TenantCluster name')
    .option(
      '--url <url>',
      "the wake URL: the wake stack's WakeUrl output, or the local plane's wake.url",
    )
    .option(
      '--kinds <list>',
      'the synced kinds as <apiVersion>/<Kind>, comma-separated, instead of reading the TenantCluster',
    )
    .option(
      '--token-secret-id <id>',
      'the wake token secret (default: [<stage>/]tenantplane/wake/<tenant>)',
    )
    .option('--stage <stage>', "the app's stage, for the default token secret")
    .option('--token-file <file>', 'read the wake token from a file instead (the local plane)')
    .option(
      '--region <region>',
      "AWS region of the token secret (default: AWS_REGION, the profile's)",
    )
    .option(
      '--ca-file <file>',
      "PEM of the CA of the wake endpoint's certificate, when not a public one",
    )
    .option(
      '--out-dir <dir>',
      'write audit-policy.yaml and audit-webhook.kubeconfig (mode 0600) there',
    )
    .option(
      '--webhook-kubeconfig',
      'print the webhook kubeconfig (it holds the token) instead of the policy',
    )
    .option(
      '--engine-user <name>',
      'the tenant identity of the engine, whose writes wake nothing',
      DEFAULT_ENGINE_USER,
    );
  addClusterOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane wake-config dev --host-kubeconfig host.kubeconfig      # the policy and the flags
  $ tenantplane wake-config dev --kinds v1/ConfigMap,v1/Secret,v1/Pod  # no cluster read
  $ tenantplane wake-config dev --kinds v1/ConfigMap --url https://abc.lambda-url.eu-west-1.on.aws/ \\
      --out-dir /etc/kubernetes/tenantplane                            # both files, the token from Secrets Manager
  $ tenantplane wake-config dev --url https://… --webhook-kubeconfig > audit-webhook.kubeconfig

The token is read (AWS default credential chain, secretsmanager:GetSecretValue) only for the
kubeconfig, and printed only with --webhook-kubeconfig.`,
    )
    .action(async (tenant: string, flags: WakeConfigFlags) => {
      const { wakeConfigCommand } = await import('./wake-config-run.js');
      setExit(await wakeConfigCommand(tenant, flags, io, client()));
    });
}
