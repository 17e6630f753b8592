/**
 * The `tenantplane` command: argument parsing (commander), help with examples, and the mapping of
 * every outcome to an exit status. `run()` is the whole command, testable in-process.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Command, CommanderError } from 'commander';
import { hostName } from '../engine/index.js';
import { addClusterCommands } from './cluster-commands.js';
import { addCompletionCommand } from './commands/completion.js';
import { addGatewayCommand } from './commands/gateway.js';
import { addSecretsCommand } from './commands/secrets.js';
import {
  DEFAULT_TRIGGER_CONFIG,
  type TriggerBusFlags,
  triggerBusName,
} from './commands/trigger-bus.js';
import { addVersionCommand, packageVersion } from './commands/version.js';
import { addWakeConfigCommand } from './commands/wake-config.js';
import { errorLine, exitCodeForError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { ROOT_HELP } from './help.js';
import { type CliIo, processIo } from './io.js';
import { addFullOption, checkTenantName } from './options.js';

/** Replaceable collaborators (tests hand in mocked AWS clients). */
export interface CliDeps {
  eventBridgeClient?: EventBridgeClient;
  secretsManagerClient?: SecretsManagerClient;
}

/** Builds the command tree; actions report their exit status through `setExit`. */
export function buildProgram(io: CliIo, deps: CliDeps, setExit: (code: ExitCode) => void): Command {
  const program = new Command('tenantplane');
  program
    .description(
      'Run, preview and explain tenantplane sync passes: tenant (virtual) cluster objects copied into a shared host cluster.',
    )
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage and examples)')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText('after', ROOT_HELP);

  addClusterCommands(program, io, setExit);
  addGatewayCommand(program, io, setExit);
  addVersionCommand(program, io, setExit);

  program
    .command('name')
    .summary('print the host name of a tenant object')
    .description(
      'Print the host name of a tenant object: <name>-x-<virtual-namespace>-x-<tenant>, hashed when too long or ambiguous.',
    )
    .argument('<name>', 'name of the tenant object')
    .argument('<virtual-namespace>', 'its namespace in the tenant cluster')
    .argument('<tenant>', 'the TenantCluster name (checked as sync checks it)')
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
      // The rule sync applies: a name no TenantCluster can have has no host names either.
      checkTenantName(tenant);
      io.out(`${hostName(name, vns, tenant)}\n`);
      setExit(ExitCode.Ok);
    });

  addFullOption(
    program
      .command('trigger')
      .summary('ask the deployed function for a pass (EventBridge)')
      .description(
        "Ask the deployed sync function for a pass now: puts a SyncRequested event for the tenant on the app's EventBridge bus (the tenant's rule invokes its function). The bus is named as the app names it: global.eventBusName of config/tenants.yaml (default tenantplane), prefixed with its global.stage (prod-tenantplane).",
      )
      .argument('<tenant>', 'the TenantCluster name')
      .option(
        '--event-bus <name>',
        'the whole EventBridge bus name, taken as given (default: [<stage>-]<eventBusName> of the config)',
      )
      .option('--stage <stage>', "the app's stage, over the config's global.stage")
      .option(
        '--config <file>',
        `the tenants config to read global.stage and global.eventBusName from (default: ${DEFAULT_TRIGGER_CONFIG}, when it exists)`,
      )
      .option('--dry-run', 'ask for a dry run (decisions are logged, nothing is written)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane trigger dev                     # bus of config/tenants.yaml: prod-tenantplane with stage: prod
  $ AWS_PROFILE=platform AWS_REGION=eu-west-1 tenantplane trigger dev --stage prod
  $ tenantplane trigger dev --event-bus my-bus   # a bus named outright
  $ tenantplane trigger dev --dry-run
  $ tenantplane trigger dev --full              # the function gets {"tenant": "dev", "full": true}

Uses the AWS default credential chain (AWS_PROFILE, AWS_REGION, ...). Follow the pass in the
function's logs or with "tenantplane status <tenant>".`,
    )
    .action(
      async (tenant: string, flags: TriggerBusFlags & { dryRun?: boolean; full?: boolean }) => {
        checkTenantName(tenant);
        const eventBusName = await triggerBusName(flags);
        const { triggerSync } = await import('../adapters/eventbridge-trigger.js');
        const result = await triggerSync(tenant, {
          eventBusName,
          ...(flags.dryRun ? { dryRun: true } : {}),
          ...(flags.full ? { full: true } : {}),
          ...(deps.eventBridgeClient ? { client: deps.eventBridgeClient } : {}),
        });
        io.out(
          `Requested a ${flags.dryRun ? 'dry-run ' : ''}${flags.full ? 'full ' : ''}sync of tenant cluster "${result.tenant}" on event bus ${result.eventBusName} (event id ${result.eventId}).\n`,
        );
        setExit(ExitCode.Ok);
      },
    );

  addSecretsCommand(program, io, setExit, () => deps.secretsManagerClient);
  addWakeConfigCommand(program, io, setExit, () => deps.secretsManagerClient);
  // Last: its script covers every command added before it.
  addCompletionCommand(program, io, setExit);
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
