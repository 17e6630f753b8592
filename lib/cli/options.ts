/** Flags shared by several commands, declared once so their spelling and help never drift. */
import { type Command, Option } from 'commander';
import { tenantNameProblem } from '../common/index.js';
import type { Budget } from '../engine/index.js';
import { parseDuration, parseWholeNumber } from './duration.js';
import { UsageError } from './errors.js';
import type { ClusterFlags } from './kubeconfig-choice.js';
import { type OutputFormat, OutputFormats } from './output-format.js';

/** Adds the flags of {@link ClusterFlags}: which kubeconfigs, contexts or secrets to use. */
export function addClusterOptions(command: Command): Command {
  return command
    .option(
      '--kubeconfig <path>',
      'one kubeconfig file holding both clusters (pick them with --tenant-context/--host-context)',
    )
    .option('--tenant-kubeconfig <path>', 'kubeconfig file of the tenant cluster')
    .option('--host-kubeconfig <path>', 'kubeconfig file of the host cluster')
    .option(
      '--context <name>',
      'kubeconfig context for both clusters (alone it reads KUBECONFIG or ~/.kube/config)',
    )
    .option(
      '--tenant-context <name>',
      'kubeconfig context of the tenant cluster (overrides --context; alone it reads KUBECONFIG or ~/.kube/config)',
    )
    .option(
      '--host-context <name>',
      'kubeconfig context of the host cluster (overrides --context; alone it reads KUBECONFIG or ~/.kube/config)',
    )
    .option(
      '--secrets <tenantSecretId,hostSecretId>',
      'load both kubeconfigs from AWS Secrets Manager instead of files',
    );
}

/** Adds `-o table|json|yaml`. */
export function addOutputOption(command: Command): Command {
  return command.addOption(
    new Option('-o, --output <format>', 'output format').choices(OutputFormats).default('table'),
  );
}

function flagParser(flag: string, parse: (text: string) => number) {
  return (text: string): number => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof UsageError && !error.message.startsWith(flag)) {
        throw new UsageError(`${flag}: ${error.message}`);
      }
      throw error;
    }
  };
}

/** Adds the bounds of a pass: `--deadline`, `--max-writes`, `--page-size`, `--concurrency`. */
export function addBudgetOptions(command: Command): Command {
  return command
    .option(
      '--deadline <duration>',
      'stop starting new work after this long, e.g. 30s, 2m, 1m30s (default: no deadline)',
      flagParser('--deadline', parseDuration),
    )
    .option(
      '--max-writes <n>',
      'write at most n host objects (create, update, delete) in this pass (default: no limit)',
      flagParser('--max-writes', (t) => parseWholeNumber(t, '--max-writes', 0)),
    )
    .option(
      '--page-size <n>',
      'tenant objects per LIST page (default: 500)',
      flagParser('--page-size', (t) => parseWholeNumber(t, '--page-size', 1)),
    )
    .option(
      '--concurrency <n>',
      'host writes in flight at once (default: 8)',
      flagParser('--concurrency', (t) => parseWholeNumber(t, '--concurrency', 1)),
    );
}

/** `sync --follow` and its setting. */
export interface FollowFlags extends PassFlags {
  follow?: boolean;
  quietSeconds?: number;
}

/** Adds `--follow` and `--quiet-seconds` (sync only). */
export function addFollowOptions(command: Command): Command {
  return command
    .option(
      '--follow',
      'after the pass, keep watching and converge each change as it arrives, until SIGINT/SIGTERM (or --quiet-seconds, --deadline)',
    )
    .option(
      '--quiet-seconds <n>',
      'with --follow: end after n seconds without a change',
      flagParser('--quiet-seconds', (t) => parseWholeNumber(t, '--quiet-seconds', 1)),
    );
}

/** Adds `--full` (sync, plan and trigger): this pass lists every kind in full instead of resuming. */
export function addFullOption(command: Command): Command {
  return command.option(
    '--full',
    'list every kind in full on both sides (no resume), and repair host drift now',
  );
}

export interface BudgetFlags {
  deadline?: number;
  maxWrites?: number;
  pageSize?: number;
  concurrency?: number;
}

export interface OutputFlags {
  output: OutputFormat;
}

export interface FullFlags {
  /** `--full`: list every kind in full on both sides instead of resuming. */
  full?: boolean;
}

export type PassFlags = ClusterFlags & BudgetFlags & OutputFlags & FullFlags;

/** The engine budget for the flags; the deadline counts from `now`. */
export function budgetFromFlags(flags: BudgetFlags, now: number): Partial<Budget> {
  const budget: Partial<Budget> = {};
  if (flags.deadline !== undefined) budget.deadline = now + flags.deadline;
  if (flags.maxWrites !== undefined) budget.maxWrites = flags.maxWrites;
  if (flags.pageSize !== undefined) budget.pageSize = flags.pageSize;
  if (flags.concurrency !== undefined) budget.concurrency = flags.concurrency;
  return budget;
}

/**
 * Checks a tenant argument with the same rule as the config and the engine.
 * @throws UsageError unless `tenant` can name a TenantCluster.
 */
export function checkTenantName(tenant: string): string {
  const problem = tenantNameProblem(tenant);
  if (problem !== undefined)
    throw new UsageError(`invalid tenant cluster name ${JSON.stringify(tenant)}: it ${problem}`);
  return tenant;
}
