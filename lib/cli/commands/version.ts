/**
 * `tenantplane version`: what an operator pastes into a bug report. The package version, the
 * commit of the checkout the command runs from, the Node.js running it, and the Kubernetes
 * versions tenantplane supports.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { KUBERNETES_VERSION } from '../../localcluster/versions.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { type OutputFormat, OutputFormats } from '../output-format.js';

/**
 * The Kubernetes minor versions tenantplane supports, on both the tenant and the host side: the
 * ones its integration tests have run against (the local control plane's release moved from
 * 1.36.3 to 1.37.2). Raise `max` with the release the tests run on.
 */
export const SUPPORTED_KUBERNETES = { min: '1.36', max: '1.37' } as const;

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The package version (package.json); `0.0.0` when it cannot be read. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The checkout's commit (`-dirty` with uncommitted changes), or `unknown` outside a git checkout. */
function commit(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** What `tenantplane version` reports. */
export interface VersionReport {
  version: string;
  commit: string;
  node: string;
  kubernetes: { min: string; max: string; localControlPlane: string };
}

/** The report for this installation. */
export function versionReport(): VersionReport {
  return {
    version: packageVersion(),
    commit: commit(),
    node: process.version,
    kubernetes: { ...SUPPORTED_KUBERNETES, localControlPlane: `v${KUBERNETES_VERSION}` },
  };
}

/** The report as text, one `key: value` line each. */
export function versionText(report: VersionReport): string {
  const { min, max, localControlPlane } = report.kubernetes;
  return [
    `tenantplane ${report.version}`,
    `commit:     ${report.commit}`,
    `node:       ${report.node}`,
    `kubernetes: ${min} to ${max} (tenant and host clusters; local control plane ${localControlPlane})`,
    '',
  ].join('\n');
}

/** Adds `version` to `program`. */
export function addVersionCommand(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
): void {
  program
    .command('version')
    .summary('print the version, commit, Node.js and supported Kubernetes versions')
    .description(
      'Print the tenantplane version, the commit it runs from, the Node.js running it and the Kubernetes versions it supports (tenant and host clusters). Needs no cluster.',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OutputFormats).default('table'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tenantplane version
  $ tenantplane version -o json | jq -r .commit
  $ tenantplane --version                        # the version number alone`,
    )
    .action(async (flags: { output: OutputFormat }) => {
      // The formatter (and YAML with it) only when asked: `--version` stays as quick as `name`.
      const { answer } = await import('../format.js');
      const report = versionReport();
      io.out(answer(flags.output, report, () => versionText(report)));
      setExit(ExitCode.Ok);
    });
}
