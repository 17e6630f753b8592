/**
 * `tenantplane status` without a tenant: every TenantCluster on the host, one row each, like
 * `kubectl get tenantclusters`; `-o json`/`-o yaml` print them as a kubectl `List`.
 */
import { isRecord } from '../../common/index.js';
import { ConditionType, recordedConditions } from '../../engine/index.js';
import { type KubeObject, TENANT_CLUSTER } from '../../ports/index.js';
import { withClusters } from '../clusters.js';
import { hostReadError } from '../errors.js';
import { age } from '../event-table.js';
import { ExitCode } from '../exit-codes.js';
import { answer, formatTable, type Paint, painter } from '../format.js';
import { type CliIo, colorsEnabled } from '../io.js';
import type { LastPass, StatusFlags } from './status.js';

/** TenantClusters per LIST request; the list is read page by page, like kubectl's chunking. */
const PAGE_SIZE = 500;

/** What a column shows for a field that is not set, as kubectl's custom columns do. */
const NONE = '<none>';

/** The list record of `-o json`/`-o yaml`: what `kubectl get tenantclusters -o json` prints. */
export interface TenantClusterList {
  apiVersion: 'v1';
  kind: 'List';
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

function lastPassOf(object: KubeObject): LastPass | undefined {
  const status = object.status;
  return isRecord(status) && isRecord(status.lastPass) ? (status.lastPass as LastPass) : undefined;
}

/** The object without `metadata.managedFields`, which kubectl hides too: noise for a reader. */
function withoutManagedFields(object: KubeObject): KubeObject {
  const { managedFields: _hidden, ...metadata } = object.metadata as KubeObject['metadata'] & {
    managedFields?: unknown;
  };
  return { ...object, metadata };
}

/** One row: NAME, HOST NAMESPACE, PAUSED, READY, LAST PASS, COMPLETE, AGE. */
function row(object: KubeObject, now: number, paint: Paint): string[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const lastPass = lastPassOf(object);
  const ready = recordedConditions(object.status).find((c) => c.type === ConditionType.Ready);
  const readyText = ready ? ready.status : NONE;
  const complete = lastPass?.complete;
  const created = object.metadata.creationTimestamp;
  return [
    object.metadata.name,
    typeof spec.hostNamespace === 'string' ? spec.hostNamespace : NONE,
    spec.paused === true ? paint('yellow', 'true') : 'false',
    ready?.status === 'False' ? paint('yellow', readyText) : readyText,
    lastPass?.finishedAt ? age(lastPass.finishedAt, now) : NONE,
    complete === undefined ? NONE : complete ? 'true' : paint('yellow', 'false'),
    typeof created === 'string' ? age(created, now) : NONE,
  ];
}

/** The table of TenantClusters, `now` dating the ages. */
export function tenantClusterTable(
  items: readonly KubeObject[],
  now: number,
  paint: Paint = painter(false),
): string {
  const header = ['NAME', 'HOST NAMESPACE', 'PAUSED', 'READY', 'LAST PASS', 'COMPLETE', 'AGE'];
  return `${formatTable([header, ...items.map((o) => row(o, now, paint))])}\n`;
}

/**
 * Lists the TenantClusters of the host cluster and prints them. No TenantCluster at all is an
 * answer, not a failure: kubectl's "No resources found" on stderr, exit 0.
 * @throws CommandError when the host cannot be read.
 */
export async function statusListCommand(flags: StatusFlags, io: CliIo): Promise<ExitCode> {
  return withClusters(flags, io, async (clusters) => {
    const hostApi = await clusters.host();
    const items: KubeObject[] = [];
    let continueToken: string | undefined;
    try {
      do {
        const page = await hostApi.list(TENANT_CLUSTER, {
          limit: PAGE_SIZE,
          ...(continueToken ? { continueToken } : {}),
        });
        items.push(...page.items);
        continueToken = page.continueToken;
      } while (continueToken);
    } catch (error) {
      throw hostReadError(error, 'the TenantClusters');
    }
    items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    if (flags.output === 'table' && items.length === 0) {
      io.err('No TenantClusters found on the host cluster.\n');
      return ExitCode.Ok;
    }
    const list: TenantClusterList = {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: items.map(withoutManagedFields),
    };
    io.out(
      answer(flags.output, list, () =>
        tenantClusterTable(items, Date.now(), painter(colorsEnabled(io))),
      ),
    );
    return ExitCode.Ok;
  });
}
