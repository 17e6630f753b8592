/**
 * `tenantplane explain <host-namespace>/<host-name>`: why does this host object exist? Reads its
 * reverse mapping and answers with the tenant source, whether it still exists, the policy rule
 * that syncs it, and the latest Decisions about it. This module checks the arguments and wires
 * `gather.ts` (the reads) to `render.ts` (the output).
 */
import type { KindRef, ObjectRef } from '../../../ports/index.js';
import { withClusters } from '../../clusters.js';
import { CommandError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { painter } from '../../format.js';
import { type CliIo, colorsEnabled } from '../../io.js';
import type { ClusterFlags } from '../../kubeconfig-choice.js';
import type { OutputFlags } from '../../options.js';
import { gatherExplanation, isGone } from './gather.js';
import { explainOutput } from './render.js';

/** apiVersions of common kinds, so `--kind Deployment` works without `--api-version`. */
const KNOWN_API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  ServiceAccount: 'v1',
  Pod: 'v1',
  PersistentVolumeClaim: 'v1',
  Endpoints: 'v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  ReplicaSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  Ingress: 'networking.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  PodDisruptionBudget: 'policy/v1',
  Role: 'rbac.authorization.k8s.io/v1',
  RoleBinding: 'rbac.authorization.k8s.io/v1',
};

export interface ExplainFlags extends ClusterFlags, OutputFlags {
  kind: string;
  apiVersion?: string;
}

/** Splits `<host-namespace>/<host-name>`. @throws UsageError otherwise. */
export function parseHostRef(text: string): ObjectRef {
  const parts = text.split('/');
  if (parts.length !== 2 || parts.some((p) => p === '')) {
    throw new UsageError(
      `expected <host-namespace>/<host-name>, e.g. tenant-dev/app-settings-x-default-x-dev; got ${JSON.stringify(text)}`,
    );
  }
  return { namespace: parts[0] as string, name: parts[1] as string };
}

/**
 * The kind to read: `--kind` with `--api-version`, or the known apiVersion of the kind.
 * @throws UsageError for a malformed kind, or an unknown one without `--api-version`.
 */
export function kindRefFor(kind: string, apiVersion: string | undefined): KindRef {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) {
    throw new UsageError(`--kind must be a Kind name like ConfigMap, got ${JSON.stringify(kind)}`);
  }
  const version = apiVersion ?? KNOWN_API_VERSIONS[kind];
  if (!version) {
    throw new UsageError(
      `tenantplane does not know the apiVersion of ${kind}; add --api-version, e.g. --api-version example.com/v1`,
    );
  }
  return { apiVersion: version, kind };
}

/**
 * Runs `explain` for `target` and prints the answer. A host object that does not exist fails
 * the command, after the Decisions still recorded about it (a Delete names why it went).
 * @throws UsageError for a bad target or kind; CommandError when the host object is missing or
 *   cannot be read.
 */
export async function explainCommand(
  target: string,
  flags: ExplainFlags,
  io: CliIo,
): Promise<ExitCode> {
  const hostRef = parseHostRef(target);
  const kind = kindRefFor(flags.kind, flags.apiVersion);
  return withClusters(flags, io, async (clusters) => {
    const hostApi = await clusters.host();
    const found = await gatherExplanation(hostApi, () => clusters.tenant(), kind, hostRef);
    const text = explainOutput(found, flags.output, Date.now(), painter(colorsEnabled(io)));
    if (text !== '') io.out(text);
    if (isGone(found)) {
      throw new CommandError(
        `${kind.kind} ${hostRef.namespace}/${hostRef.name} does not exist on the host cluster`,
      );
    }
    return ExitCode.Ok;
  });
}
