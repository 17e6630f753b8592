/**
 * `tenantplane explain <host-namespace>/<host-name>`: why does this host object exist? Reads its
 * reverse mapping and answers with the tenant source, whether it still exists, the policy rule
 * that syncs it, and the latest Decisions about it.
 */
import {
  compileKindRule,
  InvalidPolicyError,
  isExcluded,
  type KindRule,
  Labels,
  MANAGED_BY_VALUE,
  parseSyncPolicy,
  type ReverseRef,
  reverseLookup,
  TENANT_CLUSTER,
} from '../../engine/index.js';
import {
  type ClusterApi,
  ClusterError,
  isClusterError,
  type KindRef,
  type KubeObject,
} from '../../ports/index.js';
import { type ClusterFlags, openClusters } from '../clusters.js';
import { CommandError, errorText, UsageError } from '../errors.js';
import {
  type EventView,
  eventMentions,
  eventTable,
  hostObjectEvents,
  tenantClusterEvents,
} from '../events.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, painter } from '../format.js';
import { type CliIo, colorsEnabled, localLog } from '../io.js';
import type { OutputFlags } from '../options.js';

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
export function parseHostRef(text: string): { namespace: string; name: string } {
  const parts = text.split('/');
  if (parts.length !== 2 || parts.some((p) => p === '')) {
    throw new UsageError(
      `expected <host-namespace>/<host-name>, e.g. tenant-dev/app-settings-x-default-x-dev; got ${JSON.stringify(text)}`,
    );
  }
  return { namespace: parts[0] as string, name: parts[1] as string };
}

/** The kind to read: `--kind` with `--api-version`, or the known apiVersion of the kind. */
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

/** What `explain` found, also its `-o json` record. */
export interface Explanation {
  host: { apiVersion: string; kind: string; namespace: string; name: string; uid?: string };
  managed: boolean;
  /** Why the object counts as not managed, when it does not. */
  notManagedReason?: string;
  source?: ReverseRef & {
    /** true/false, or undefined when the tenant cluster could not be asked. */
    exists?: boolean;
    /** The tenant object's uid differs from the one recorded (deleted and recreated). */
    uidChanged?: boolean;
    currentUid?: string;
    checkError?: string;
  };
  rule?: { index: number; rule: KindRule; excludesSource: boolean };
  /** Why no rule is shown: TenantCluster gone, invalid policy, kind no longer listed. */
  ruleProblem?: string;
  hostNamespaceOfPolicy?: string;
  decisions: EventView[];
  eventsError?: string;
}

/**
 * The host object does not exist. Carries the Decisions the Events still record about it (a
 * Delete names why it went), so the operator learns what happened to it.
 */
export class HostObjectMissingError extends CommandError {
  constructor(
    message: string,
    readonly decisions: EventView[],
  ) {
    super(message);
    this.name = 'HostObjectMissingError';
  }
}

function notManagedReason(object: KubeObject): string | undefined {
  const labels = object.metadata.labels ?? {};
  if (labels[Labels.ManagedBy] !== MANAGED_BY_VALUE) {
    return `it has no ${Labels.ManagedBy}=${MANAGED_BY_VALUE} label`;
  }
  if (!reverseLookup(object)) {
    return 'it has the managed-by label but its reverse-mapping labels and annotations are incomplete, so tenantplane treats it as foreign';
  }
  return undefined;
}

async function checkSource(
  tenantApi: ClusterApi,
  kind: KindRef,
  ref: ReverseRef,
): Promise<{ object?: KubeObject; info: NonNullable<Explanation['source']> }> {
  const info: NonNullable<Explanation['source']> = { ...ref };
  try {
    const object = await tenantApi.get(kind, ref.virtualNamespace, ref.virtualName);
    info.exists = object !== undefined;
    if (object?.metadata.uid) {
      info.currentUid = object.metadata.uid;
      if (ref.virtualUid && ref.virtualUid !== object.metadata.uid) info.uidChanged = true;
    }
    return object ? { object, info } : { info };
  } catch (error) {
    info.checkError = errorText(error);
    return { info };
  }
}

async function findRule(
  hostApi: ClusterApi,
  ref: ReverseRef,
  kind: KindRef,
  source: KubeObject | undefined,
): Promise<Pick<Explanation, 'rule' | 'ruleProblem' | 'hostNamespaceOfPolicy'>> {
  let tenantCluster: KubeObject | undefined;
  try {
    tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, ref.tenant);
  } catch (error) {
    return { ruleProblem: `could not read TenantCluster "${ref.tenant}": ${errorText(error)}` };
  }
  if (!tenantCluster) {
    return {
      ruleProblem: `TenantCluster "${ref.tenant}" no longer exists on the host, so no policy covers this object and no pass touches it`,
    };
  }
  try {
    const policy = parseSyncPolicy(ref.tenant, tenantCluster.spec);
    const index = policy.toHost.findIndex(
      (r) => r.kind === kind.kind && r.apiVersion === kind.apiVersion,
    );
    const rule = policy.toHost[index];
    if (!rule) {
      return {
        hostNamespaceOfPolicy: policy.hostNamespace,
        ruleProblem: `the sync policy of TenantCluster "${ref.tenant}" no longer lists ${kind.kind} (${kind.apiVersion}) in spec.toHost, so passes neither update nor delete this object`,
      };
    }
    const excludesSource = source ? isExcluded(compileKindRule(rule), source) : false;
    return { rule: { index, rule, excludesSource }, hostNamespaceOfPolicy: policy.hostNamespace };
  } catch (error) {
    if (error instanceof InvalidPolicyError) return { ruleProblem: error.message };
    throw error;
  }
}

/** Gathers everything `explain` says about one host object. */
export async function explainHostObject(
  hostApi: ClusterApi,
  tenantApi: () => Promise<ClusterApi>,
  kind: KindRef,
  hostRef: { namespace: string; name: string },
): Promise<Explanation> {
  let object: KubeObject | undefined;
  try {
    object = await hostApi.get(kind, hostRef.namespace, hostRef.name);
  } catch (error) {
    if (isClusterError(error, 'Transport')) {
      throw new CommandError(`the host cluster is unreachable: ${errorText(error)}`, {
        cause: error,
      });
    }
    const detail = error instanceof ClusterError ? error.message : errorText(error);
    throw new CommandError(
      `could not read ${kind.kind} ${hostRef.namespace}/${hostRef.name} on the host cluster: ${detail}`,
      { cause: error },
    );
  }
  if (!object) {
    let decisions: EventView[] = [];
    try {
      decisions = (await hostObjectEvents(hostApi, hostRef)).slice(0, 10);
    } catch {
      // The history is a courtesy; the missing object is the answer.
    }
    throw new HostObjectMissingError(
      `${kind.kind} ${hostRef.namespace}/${hostRef.name} does not exist on the host cluster`,
      decisions,
    );
  }
  const host = { apiVersion: kind.apiVersion, kind: kind.kind, ...hostRef };
  const withUid = object.metadata.uid ? { ...host, uid: object.metadata.uid } : host;
  const notManaged = notManagedReason(object);
  const ref = reverseLookup(object);
  if (notManaged || !ref) {
    return {
      host: withUid,
      managed: false,
      notManagedReason: notManaged ?? 'its reverse mapping is incomplete',
      decisions: [],
    };
  }
  const { object: source, info } = await checkSource(await tenantApi(), kind, ref);
  const rule = await findRule(hostApi, ref, kind, source);
  const explanation: Explanation = {
    host: withUid,
    managed: true,
    source: info,
    ...rule,
    decisions: [],
  };
  try {
    const events = await tenantClusterEvents(hostApi, ref.tenant);
    explanation.decisions = events.filter((e) => eventMentions(e, hostRef)).slice(0, 10);
  } catch (error) {
    explanation.eventsError = errorText(error);
  }
  return explanation;
}

function ruleText(index: number, rule: KindRule): string {
  const parts = [`apiVersion: ${rule.apiVersion}`, `kind: ${rule.kind}`];
  const ex = rule.exclude;
  if (ex) {
    const e: string[] = [];
    if (ex.namespaces?.length) e.push(`namespaces [${ex.namespaces.join(', ')}]`);
    if (ex.names?.length) e.push(`names [${ex.names.join(', ')}]`);
    if (ex.labelSelector) e.push(`labelSelector "${ex.labelSelector}"`);
    if (e.length > 0) parts.push(`exclude ${e.join(', ')}`);
  }
  return `spec.toHost[${index}] {${parts.join(', ')}}`;
}

/** The plain-text answer. */
export function explanationText(x: Explanation, now: number, paint = painter(false)): string {
  const what = `${x.host.kind} ${x.host.namespace}/${x.host.name}`;
  if (!x.managed || !x.source) {
    return `${what} is not managed by tenantplane: ${x.notManagedReason}. No pass creates, updates or deletes it.\n`;
  }
  const s = x.source;
  const rows: string[][] = [];
  rows.push(['Host object:', `${what} (managed by tenantplane)`]);
  rows.push(['Tenant cluster:', s.tenant]);
  rows.push([
    'Source:',
    `${s.kind} ${s.virtualNamespace}/${s.virtualName}${s.virtualUid ? ` (uid ${s.virtualUid})` : ''}`,
  ]);
  let exists: string;
  if (s.checkError)
    exists = paint('yellow', `unknown: could not ask the tenant cluster (${s.checkError})`);
  else if (!s.exists)
    exists = paint(
      'red',
      'no: the source is gone, so the next complete pass deletes this host object',
    );
  else if (s.uidChanged)
    exists = paint(
      'yellow',
      `yes, but recreated (now uid ${s.currentUid}); the next pass updates this host object`,
    );
  else exists = paint('green', 'yes, on the tenant cluster');
  rows.push(['Source exists:', exists]);
  if (x.rule) {
    let text = `${ruleText(x.rule.index, x.rule.rule)} of TenantCluster ${s.tenant}`;
    if (x.rule.excludesSource)
      text += paint(
        'yellow',
        '; the rule now excludes the source, so the next pass deletes this host object',
      );
    rows.push(['Policy rule:', text]);
  } else {
    rows.push(['Policy rule:', paint('yellow', `none: ${x.ruleProblem}`)]);
  }
  if (x.hostNamespaceOfPolicy && x.hostNamespaceOfPolicy !== x.host.namespace) {
    rows.push([
      'Note:',
      paint(
        'yellow',
        `the policy's host namespace is now ${x.hostNamespaceOfPolicy}; objects in ${x.host.namespace} are no longer touched`,
      ),
    ]);
  }
  let out = `${formatTable(rows, 1)}\n\n`;
  if (x.eventsError) {
    out += `Latest decisions: could not read the Events (${x.eventsError})\n`;
  } else if (x.decisions.length === 0) {
    out += `Latest decisions: none recorded in the Events of TenantCluster ${s.tenant} (Events expire after an hour; run "tenantplane plan ${s.tenant}" to see what a pass would do now)\n`;
  } else {
    out += `Latest decisions (Events on TenantCluster ${s.tenant}, latest first):\n${eventTable(x.decisions, now)}\n`;
  }
  return out;
}

export async function explainCommand(
  target: string,
  flags: ExplainFlags,
  io: CliIo,
): Promise<ExitCode> {
  const hostRef = parseHostRef(target);
  const kind = kindRefFor(flags.kind, flags.apiVersion);
  const clusters = openClusters(flags, localLog(io));
  try {
    const hostApi = await clusters.host();
    let x: Explanation;
    try {
      x = await explainHostObject(hostApi, () => clusters.tenant(), kind, hostRef);
    } catch (error) {
      if (error instanceof HostObjectMissingError && error.decisions.length > 0) {
        if (flags.output === 'json') {
          io.out(
            `${JSON.stringify({ host: { ...kind, ...hostRef }, exists: false, decisions: error.decisions })}\n`,
          );
        } else {
          io.out(
            `Latest decisions about ${kind.kind} ${hostRef.namespace}/${hostRef.name} (Events on TenantClusters, latest first):\n${eventTable(error.decisions, Date.now())}\n`,
          );
        }
      }
      throw error;
    }
    if (flags.output === 'json') io.out(`${JSON.stringify(x)}\n`);
    else io.out(explanationText(x, Date.now(), painter(colorsEnabled(io))));
    return ExitCode.Ok;
  } finally {
    await clusters.close();
  }
}
