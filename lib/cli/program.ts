/**
 * The `tenantplane` command: argument parsing (commander), help with examples, and the mapping of
 * every outcome to an exit status. `run()` is the whole command, testable in-process.
 */
import { readFileSync } from 'node:fs';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { Command, CommanderError, Option } from 'commander';
import { hostName } from '../engine/naming.js';
import { type ClusterFlags, chooseKubeconfigs } from './clusters.js';
import type { ExplainFlags } from './commands/explain/index.js';
import type { StatusFlags } from './commands/status.js';
import { errorLine, exitCodeForError, UsageError } from './errors.js';
import { EXIT_CODES_HELP, ExitCode } from './exit-codes.js';
import { type CliIo, processIo } from './io.js';
import {
  addBudgetOptions,
  addClusterOptions,
  addOutputOption,
  checkTenantName,
  type PassFlags,
} from './options.js';

/** Replaceable collaborators (tests hand in a mocked EventBridge client). */
export interface CliDeps {
  eventBridgeClient?: EventBridgeClient;
}

const CLUSTERS_HELP = `Clusters:
  With no cluster flags, tenantplane uses the local tenant + host control plane of "npm start"
  (starting it, and building it the first time, with progress on stderr).
  --tenant-kubeconfig/--host-kubeconfig name two kubeconfig files (both are needed);
  --secrets <tenantSecretId>,<hostSecretId> loads them from AWS Secrets Manager instead.`;

const OUTPUT_HELP = `Output:
  -o table (default) prints one line per decision and a summary; colors only on a terminal.
  -o json prints one JSON record per line: one per decision, then one for the pass (the same
  records as the structured logs). Progress goes to stderr on a terminal only.`;

function version(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Usage checks that need no cluster, done before anything heavy is loaded. */
function checkPassArgs(tenant: string, flags: ClusterFlags): void {
  checkTenantName(tenant);
  chooseKubeconfigs(flags);
}

/** Builds the command tree; actions report their exit status through `setExit`. */
export function buildProgram(io: CliIo, deps: CliDeps, setExit: (code: ExitCode) => void): Command {
  const program = new Command('tenantplane');
  program
    .description(
      'Run, preview and explain tenantplane sync passes: tenant (virtual) cluster objects copied into a shared host cluster.',
    )
    .version(version(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage and examples)')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText(
      'after',
      `
Examples:
  $ npm start                                   # local clusters, sample tenant "dev", one pass
  $ tenantplane sync dev                        # one pass for tenant cluster "dev"
  $ tenantplane plan dev                        # what a pass would do; writes nothing
  $ tenantplane explain tenant-dev/app-settings-x-default-x-dev
  $ tenantplane status dev
  $ tenantplane sync dev --tenant-kubeconfig tenant.yaml --host-kubeconfig host.yaml -o json

${EXIT_CODES_HELP}`,
    );

  const passHelp = (verb: string) => `
Examples:
  $ tenantplane ${verb} dev
  $ tenantplane ${verb} dev --tenant-kubeconfig ~/.kube/tenant-dev --host-kubeconfig ~/.kube/host
  $ tenantplane ${verb} dev --deadline 30s --max-writes 100 --page-size 200
  $ tenantplane ${verb} dev --secrets tenantplane/dev/tenant,tenantplane/dev/host -o json | jq .

${CLUSTERS_HELP}

${OUTPUT_HELP}

${EXIT_CODES_HELP}`;

  const passCommands = [
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
  for (const spec of passCommands) {
    const command = program
      .command(spec.name)
      .summary(spec.summary)
      .description(spec.description)
      .argument('<tenant>', 'name of the TenantCluster on the host cluster');
    addBudgetOptions(addOutputOption(addClusterOptions(command)));
    command
      .addHelpText('after', passHelp(spec.name))
      .action(async (tenant: string, flags: PassFlags) => {
        checkPassArgs(tenant, flags);
        const { passCommand } = await import('./commands/pass.js');
        setExit(await passCommand(tenant, flags, io, { dryRun: spec.dryRun }));
      });
  }

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

A host object without the app.kubernetes.io/managed-by=tenantplane label is reported as not
managed by tenantplane (exit ${ExitCode.Ok}); a host object that does not exist is an error (exit ${ExitCode.Failed}).

${CLUSTERS_HELP}`,
    )
    .action(async (target: string, flags: ExplainFlags) => {
      chooseKubeconfigs(flags);
      const { explainCommand } = await import('./commands/explain/index.js');
      setExit(await explainCommand(target, flags, io));
    });

  const status = program
    .command('status')
    .summary("a TenantCluster's last pass and recent Events")
    .description(
      "Show a TenantCluster's sync policy, its last pass (status.lastPass) and its recent Events.",
    )
    .argument('<tenant>', 'name of the TenantCluster on the host cluster')
    .addOption(
      new Option('--events <n>', 'how many recent Events to show')
        .default(15)
        .argParser((text: string) => {
          if (!/^\d+$/.test(text))
            throw new UsageError(`--events must be a whole number, got ${JSON.stringify(text)}`);
          return Number(text);
        }),
    );
  addOutputOption(addClusterOptions(status));
  status
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane status dev
  $ tenantplane status dev --host-kubeconfig ~/.kube/host --tenant-kubeconfig ~/.kube/tenant-dev
  $ tenantplane status dev -o json

Exit status: ${ExitCode.Ok} when the TenantCluster exists, ${ExitCode.Failed} when it does not or the host is unreachable.

${CLUSTERS_HELP}`,
    )
    .action(async (tenant: string, flags: StatusFlags) => {
      checkPassArgs(tenant, flags);
      const { statusCommand } = await import('./commands/status.js');
      setExit(await statusCommand(tenant, flags, io));
    });

  program
    .command('name')
    .summary('print the host name of a tenant object')
    .description(
      'Print the host name of a tenant object: <name>-x-<virtual-namespace>-x-<tenant>, hashed when too long or ambiguous.',
    )
    .argument('<name>', 'name of the tenant object')
    .argument('<virtual-namespace>', 'its namespace in the tenant cluster')
    .argument('<tenant>', 'the TenantCluster name')
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane name nginx default dev
  nginx-x-default-x-dev
  $ tenantplane name a-configmap-with-a-very-long-name-that-does-not-fit shop dev
  (a 52-character prefix, "-", and 10 hex characters of SHA-256)

Needs no cluster.`,
    )
    .action((name: string, vns: string, tenant: string) => {
      io.out(`${hostName(name, vns, tenant)}\n`);
      setExit(ExitCode.Ok);
    });

  program
    .command('trigger')
    .summary('ask the deployed function for a pass (EventBridge)')
    .description(
      "Ask the deployed sync function for a pass now: puts a SyncRequested event for the tenant on the tenantplane EventBridge bus (the tenant's rule invokes its function).",
    )
    .argument('<tenant>', 'the TenantCluster name')
    .option('--event-bus <name>', 'EventBridge bus the tenant rules listen on', 'tenantplane')
    .option('--dry-run', 'ask for a dry run (decisions are logged, nothing is written)')
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane trigger dev
  $ AWS_PROFILE=platform AWS_REGION=eu-west-1 tenantplane trigger dev --event-bus tenantplane-prod
  $ tenantplane trigger dev --dry-run

Uses the AWS default credential chain (AWS_PROFILE, AWS_REGION, ...). Follow the pass in the
function's logs or with "tenantplane status <tenant>".`,
    )
    .action(async (tenant: string, flags: { eventBus: string; dryRun?: boolean }) => {
      checkTenantName(tenant);
      const { triggerSync } = await import('../adapters/eventbridge-trigger.js');
      const result = await triggerSync(tenant, {
        eventBusName: flags.eventBus,
        ...(flags.dryRun ? { dryRun: true } : {}),
        ...(deps.eventBridgeClient ? { client: deps.eventBridgeClient } : {}),
      });
      io.out(
        `Requested a ${flags.dryRun ? 'dry-run ' : ''}sync of tenant cluster "${result.tenant}" on event bus ${result.eventBusName} (event id ${result.eventId}).\n`,
      );
      setExit(ExitCode.Ok);
    });

  return program;
}

/**
 * Runs the command for `argv` (the arguments after the program name) and returns its exit
 * status. Errors are printed as one line on stderr, never with a stack.
 */
export async function run(
  argv: readonly string[],
  io: CliIo = processIo(),
  deps: CliDeps = {},
): Promise<ExitCode> {
  let code: ExitCode = ExitCode.Ok;
  const program = buildProgram(io, deps, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    // commander already printed its own errors (and help/version output).
    if (!(error instanceof CommanderError)) {
      io.err(errorLine(error));
      if (error instanceof UsageError) io.err('(add --help for usage and examples)\n');
    }
    return exitCodeForError(error);
  }
}
