/**
 * The commands that talk to clusters: sync, plan, explain, status. Each checks its arguments and
 * flags first (bad usage exits 2 before anything is loaded), then imports its implementation:
 * the Kubernetes client is loaded only by a command that uses it.
 */
import { type Command, Option } from 'commander';
import type { ExplainFlags } from './commands/explain/index.js';
import type { StatusFlags } from './commands/status.js';
import { UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { CLUSTERS_HELP, passHelp } from './help.js';
import type { CliIo } from './io.js';
import { checkDistinctClusters, chooseKubeconfigs } from './kubeconfig-choice.js';
import {
  addBudgetOptions,
  addClusterOptions,
  addFollowOptions,
  addFullOption,
  addOutputOption,
  checkTenantName,
  type FollowFlags,
} from './options.js';

const PASS_COMMANDS = [
  {
    name: 'sync',
    summary: 'run one pass for a tenant cluster',
    description:
      'Run one bounded convergence pass for a tenant cluster: create, update and delete its host objects, record the Decisions as Events on the TenantCluster and write status.lastPass.',
    dryRun: false,
  },
  {
    name: 'plan',
    summary: 'dry run: the Decisions a pass would make (writes nothing)',
    description:
      'Dry run: print the Decisions a pass would make now. Writes nothing: no host objects, no Events, no status.',
    dryRun: true,
  },
] as const;

function addPassCommands(program: Command, io: CliIo, setExit: (code: ExitCode) => void) {
  for (const spec of PASS_COMMANDS) {
    const command = program
      .command(spec.name)
      .summary(spec.summary)
      .description(spec.description)
      .argument('<tenant>', 'name of the TenantCluster on the host cluster');
    addFullOption(addBudgetOptions(addOutputOption(addClusterOptions(command))));
    if (!spec.dryRun) addFollowOptions(command);
    command
      .addHelpText('after', passHelp(spec.name))
      .action(async (tenant: string, flags: FollowFlags) => {
        checkTenantName(tenant);
        // A pass needs both clusters: refuse a kubeconfig that cannot tell them apart.
        checkDistinctClusters(chooseKubeconfigs(flags, io.env), flags);
        if (flags.quietSeconds !== undefined && !flags.follow) {
          throw new UsageError('--quiet-seconds is a setting of --follow');
        }
        if (flags.follow) {
          if (flags.full) throw new UsageError('--full and --follow do not go together');
          const { followCommand } = await import('./commands/follow.js');
          setExit(await followCommand(tenant, flags, io));
          return;
        }
        const { passCommand } = await import('./commands/pass.js');
        setExit(await passCommand(tenant, flags, io, { dryRun: spec.dryRun }));
      });
  }
}

function addExplainCommand(program: Command, io: CliIo, setExit: (code: ExitCode) => void) {
  const explain = program
    .command('explain')
    .summary('why does this host object exist?')
    .description(
      'Why does this host object exist? Names its tenant source, whether that still exists, the policy rule that syncs it, and the latest Decisions about it.',
    )
    .argument(
      '<host-namespace/host-name>',
      'the host object, e.g. tenant-dev/app-settings-x-default-x-dev',
    )
    .option('--kind <kind>', 'Kind of the host object', 'ConfigMap')
    .option(
      '--api-version <apiVersion>',
      'apiVersion of the host object (known for common kinds; needed for others)',
    );
  addOutputOption(addClusterOptions(explain));
  explain
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane explain tenant-dev/app-settings-x-default-x-dev
  $ tenantplane explain tenant-dev/payment-gateway-x-billing-x-dev --kind Secret
  $ tenantplane explain tenant-dev/web-x-shop-x-dev --kind Deployment -o json
  $ tenantplane explain tenant-dev/app-settings-x-default-x-dev --kubeconfig all.yaml \\
      --tenant-context tenant-dev --host-context host -o yaml

A host object without the app.kubernetes.io/managed-by=tenantplane label is reported as not
managed by tenantplane (exit ${ExitCode.Ok}); a host object that does not exist is an error (exit ${ExitCode.Failed}).

${CLUSTERS_HELP}`,
    )
    .action(async (target: string, flags: ExplainFlags) => {
      chooseKubeconfigs(flags, io.env);
      const { explainCommand } = await import('./commands/explain/index.js');
      setExit(await explainCommand(target, flags, io));
    });
}

function parseEvents(text: string): number {
  if (!/^\d+$/.test(text))
    throw new UsageError(`--events must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function addStatusCommand(program: Command, io: CliIo, setExit: (code: ExitCode) => void) {
  const status = program
    .command('status')
    .summary("a TenantCluster's last pass and recent Events; without one, every TenantCluster")
    .description(
      "Show a TenantCluster's sync policy, its last pass (status.lastPass) and its recent Events. Without a tenant, list every TenantCluster on the host, like kubectl get.",
    )
    .argument('[tenant]', 'name of the TenantCluster on the host cluster (default: list them all)')
    .addOption(
      new Option('--events <n>', 'how many recent Events to show')
        .default(15)
        .argParser(parseEvents),
    );
  addOutputOption(addClusterOptions(status));
  status
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane status                          # NAME, HOST NAMESPACE, PAUSED, READY, LAST PASS, COMPLETE, AGE
  $ tenantplane status -o yaml                  # the TenantClusters as a kubectl List
  $ tenantplane status dev
  $ tenantplane status dev --kubeconfig ~/.kube/config --host-context host
  $ tenantplane status dev --host-kubeconfig ~/.kube/host --tenant-kubeconfig ~/.kube/tenant-dev
  $ tenantplane status dev -o json

Only the host cluster is read. Exit status: ${ExitCode.Ok} when the TenantCluster exists (or the list
was read), ${ExitCode.Failed} when it does not or the host is unreachable.

${CLUSTERS_HELP}`,
    )
    .action(async (tenant: string | undefined, flags: StatusFlags) => {
      if (tenant !== undefined) checkTenantName(tenant);
      chooseKubeconfigs(flags, io.env);
      if (tenant === undefined) {
        const { statusListCommand } = await import('./commands/status-list.js');
        setExit(await statusListCommand(flags, io));
        return;
      }
      const { statusCommand } = await import('./commands/status.js');
      setExit(await statusCommand(tenant, flags, io));
    });
}

/** Registers sync, plan, explain and status; actions report their exit status through `setExit`. */
export function addClusterCommands(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
): void {
  addPassCommands(program, io, setExit);
  addExplainCommand(program, io, setExit);
  addStatusCommand(program, io, setExit);
}
