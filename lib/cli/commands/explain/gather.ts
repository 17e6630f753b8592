/**
 * What `explain` reads: the host object, its tenant source, the TenantCluster's policy and the
 * Events about it. Only reads; the answer is plain data for `render.ts`.
 */

import {
  type EventView,
  eventMentions,
  hostObjectEvents,
  tenantClusterEvents,
} from '../../../adapters/events/index.js';
import {
  compileKindRule,
  InvalidPolicyError,
  isExcluded,
  type KindRule,
  Labels,
  MANAGED_BY_VALUE,
  parseSyncPolicy,
  reverseLookup,
  type TenantSource,
} from '../../../engine/index.js';
import {
  type ClusterApi,
  type KindRef,
  type KubeObject,
  type ObjectRef,
  TENANT_CLUSTER,
} from '../../../ports/index.js';
import { hostReadError, messageOf } from '../../errors.js';

/** How many Decisions `explain` shows: the latest ones say what happened, older ones are noise. */
const LATEST_DECISIONS = 10;

/** What `explain` found about an existing host object, also its `-o json` record. */
export interface Explanation {
  host: { apiVersion: string; kind: string; namespace: string; name: string; uid?: string };
  managed: boolean;
  /** Why the object counts as not managed, when it does not. */
  notManagedReason?: string;
  source?: TenantSource & {
    /** true/false, or undefined when the tenant cluster could not be asked. */
    exists?: boolean;
    /** The tenant object's uid differs from the one recorded (deleted and recreated). */
    uidChanged?: boolean;
    currentUid?: string;
    checkError?: string;
    /**
     * What the tenant shows of a workload's run (a Pod's phase, IP, node and readiness), written
     * back from its host copy: `Running, IP 10.244.1.5, node kwok-node-0, Ready`.
     */
    tenantStatus?: string;
  };
  rule?: { index: number; rule: KindRule; excludesSource: boolean };
  /** Why no rule is shown: TenantCluster gone, invalid policy, kind no longer listed. */
  ruleProblem?: string;
  hostNamespaceOfPolicy?: string;
  decisions: EventView[];
  eventsError?: string;
}

/**
 * The host object does not exist, and the Decisions the Events still record about it (a Delete
 * names why it went), also its `-o json` record.
 */
export interface GoneHostObject {
  host: { apiVersion: string; kind: string; namespace: string; name: string };
  exists: false;
  decisions: EventView[];
}

/** True for the answer about a host object that does not exist. */
export function isGone(found: Explanation | GoneHostObject): found is GoneHostObject {
  return 'exists' in found && found.exists === false;
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

/** A tenant Pod's run in one line: phase, IP, node, readiness (what `kubectl get -o wide` shows). */
export function podStatusText(pod: KubeObject): string | undefined {
  const status = (pod.status ?? {}) as {
    phase?: string;
    podIP?: string;
    conditions?: { type?: string; status?: string }[];
  };
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!status.phase) return undefined;
  const parts = [pod.metadata.deletionTimestamp ? `${status.phase} (terminating)` : status.phase];
  parts.push(status.podIP ? `IP ${status.podIP}` : 'no IP');
  parts.push(nodeName ? `node ${nodeName}` : 'no node');
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status;
  parts.push(ready === 'True' ? 'Ready' : 'not Ready');
  return parts.join(', ');
}

async function checkSource(
  tenantApi: ClusterApi,
  kind: KindRef,
  ref: TenantSource,
): Promise<{ object?: KubeObject; info: NonNullable<Explanation['source']> }> {
  const info: NonNullable<Explanation['source']> = { ...ref };
  try {
    const object = await tenantApi.get(kind, ref.virtualNamespace, ref.virtualName);
    info.exists = object !== undefined;
    if (object?.metadata.uid) {
      info.currentUid = object.metadata.uid;
      if (ref.virtualUid && ref.virtualUid !== object.metadata.uid) info.uidChanged = true;
    }
    const status = object && kind.kind === 'Pod' ? podStatusText(object) : undefined;
    if (status) info.tenantStatus = status;
    return object ? { object, info } : { info };
  } catch (error) {
    info.checkError = messageOf(error);
    return { info };
  }
}

async function findRule(
  hostApi: ClusterApi,
  ref: TenantSource,
  kind: KindRef,
  source: KubeObject | undefined,
): Promise<Pick<Explanation, 'rule' | 'ruleProblem' | 'hostNamespaceOfPolicy'>> {
  let tenantCluster: KubeObject | undefined;
  try {
    tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, ref.tenant);
  } catch (error) {
    return { ruleProblem: `could not read TenantCluster "${ref.tenant}": ${messageOf(error)}` };
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

async function goneHostObject(
  hostApi: ClusterApi,
  kind: KindRef,
  hostRef: ObjectRef,
): Promise<GoneHostObject> {
  let decisions: EventView[] = [];
  try {
    decisions = (await hostObjectEvents(hostApi, hostRef, kind.kind)).slice(0, LATEST_DECISIONS);
  } catch {
    // The history is a courtesy; the missing object is the answer.
  }
  return { host: { ...kind, ...hostRef }, exists: false, decisions };
}

/**
 * Gathers everything `explain` says about the host object `hostRef`. The tenant cluster is opened
 * only for a managed object, so a foreign or missing one needs no tenant kubeconfig.
 * @throws CommandError when the host object cannot be read.
 */
export async function gatherExplanation(
  hostApi: ClusterApi,
  tenantApi: () => Promise<ClusterApi>,
  kind: KindRef,
  hostRef: ObjectRef,
): Promise<Explanation | GoneHostObject> {
  let object: KubeObject | undefined;
  try {
    object = await hostApi.get(kind, hostRef.namespace, hostRef.name);
  } catch (error) {
    throw hostReadError(
      error,
      `${kind.kind} ${hostRef.namespace}/${hostRef.name} on the host cluster`,
    );
  }
  if (!object) return goneHostObject(hostApi, kind, hostRef);
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
    explanation.decisions = events
      .filter((e) => eventMentions(e, hostRef, kind.kind))
      .slice(0, LATEST_DECISIONS);
  } catch (error) {
    explanation.eventsError = messageOf(error);
  }
  return explanation;
}
