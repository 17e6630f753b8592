/** Help texts shared by several commands, so every `--help` says the same thing the same way. */
import { EXIT_CODES_HELP } from './exit-codes.js';

/** How the cluster flags combine (every command that talks to clusters). */
export const CLUSTERS_HELP = `Clusters:
  With no cluster flags, tenantplane uses the local tenant + host control plane of "npm start"
  (starting it, and building it the first time, with progress on stderr).
  --kubeconfig <file> holds both clusters, picked with --tenant-context and --host-context,
  like kubectl. --context, --tenant-context and --host-context without a file flag read
  KUBECONFIG (files separated by ":", merged like kubectl merges them), else ~/.kube/config.
  --tenant-kubeconfig/--host-kubeconfig name one file per cluster (either one overrides
  --kubeconfig for its cluster); --secrets <tenantSecretId>,<hostSecretId> loads both from
  AWS Secrets Manager instead.`;

/** What `-o` prints for sync and plan. */
export const PASS_OUTPUT_HELP = `Output:
  -o table (default) prints one line per decision and a summary; colors only on a terminal.
  -o json prints one JSON record per line: one per decision, then one for the pass (the same
  records as the structured logs); -o yaml prints the same records as a YAML stream, one
  document ("---") per record. Progress goes to stderr on a terminal only.`;

/** The examples after `tenantplane sync --help` and `tenantplane plan --help`. */
export function passHelp(verb: string): string {
  return `
Examples:
  $ tenantplane ${verb} dev
  $ tenantplane ${verb} dev --kubeconfig ~/.kube/config --tenant-context tenant-dev --host-context host
  $ KUBECONFIG=~/.kube/tenant-dev:~/.kube/host tenantplane ${verb} dev --tenant-context tenant-dev --host-context host
  $ tenantplane ${verb} dev --tenant-kubeconfig ~/.kube/tenant-dev --host-kubeconfig ~/.kube/host
  $ tenantplane ${verb} dev --deadline 30s --max-writes 100 --page-size 200
  $ tenantplane ${verb} dev --full                # no resume: list every kind in full
  $ tenantplane ${verb} dev --secrets tenantplane/dev/tenant,tenantplane/dev/host -o json | jq .

${CLUSTERS_HELP}

${PASS_OUTPUT_HELP}

${EXIT_CODES_HELP}`;
}

/** The examples after `tenantplane --help`. */
export const ROOT_HELP = `
Examples:
  $ npm start                                   # local clusters, sample tenant "dev", one pass
  $ tenantplane sync dev                        # one pass for tenant cluster "dev"
  $ tenantplane plan dev                        # what a pass would do; writes nothing
  $ tenantplane explain tenant-dev/app-settings-x-default-x-dev
  $ tenantplane status                          # every TenantCluster, like kubectl get
  $ tenantplane status dev -o yaml
  $ tenantplane sync dev --kubeconfig all.yaml --tenant-context tenant-dev --host-context host
  $ tenantplane sync dev --tenant-kubeconfig tenant.yaml --host-kubeconfig host.yaml -o json

${EXIT_CODES_HELP}`;
