/**
 * Nodes back: a host Node as the tenant sees it, and a tenant Pod's binding to it. Pure: no
 * cluster access.
 *
 * The tenant cluster has no kubelets and no scheduler, so its Pods stay unbound. Once a host Pod
 * runs on a host node, its tenant Pod is bound (`pods/binding`, as a scheduler binds) to a tenant
 * Node of the same name, which this module describes: the host node's name, the labels of
 * {@link NODE_COPIED_LABELS}, capacity and allocatable, and a `Ready` condition mirroring the host
 * node's. Nothing else of the host node (addresses, taints, images, the kubelet's endpoint) is
 * the tenant's business. With a kubelet gateway in the policy (`spec.workloads.kubeletGateway`)
 * the Node's addresses and kubelet endpoint are the gateway's, and it declares
 * `ExtendWebSocketsToKubelet` so the tenant apiserver relays WebSocket streams to it unchanged
 * (docs/kubelet-gateway.md).
 *
 * What is compared is what the host decides: the copied labels and the engine's marks, the two
 * resource maps, and the `Ready` condition without its heartbeat time (a kubelet renews that every
 * few seconds; comparing it would write every pass). The tenant label says which TenantCluster
 * made the Node and is set only when it does: two TenantClusters of one tenant cluster (which
 * see the same host nodes) would otherwise take it from each other every pass.
 */
import { cloneJson, isRecord, jsonEqual } from '../../../../common/index.js';
import { type KubeObject, NODE } from '../../../../ports/index.js';
import {
  Annotations,
  FROM_HOST_VALUE,
  HostClassKeys,
  Labels,
  MANAGED_BY_VALUE,
  NODE_COPIED_LABELS,
} from '../../../names/metadata.js';
import { isIpAddress, type KubeletGateway } from '../../../policy/kubelet-gateway.js';

/** The tenant's Node kind. */

/** The resource maps of a Node's status that the copy carries as the host has them. */
const RESOURCE_MAPS = ['capacity', 'allocatable'] as const;

/** The status fields that say where the Node's kubelet is: the gateway's, or none. */
const GATEWAY_FIELDS = ['addresses', 'daemonEndpoints', 'declaredFeatures'] as const;
const GATEWAY_ROLE = Object.fromEntries(GATEWAY_FIELDS.map((f) => [f, true]));

/** What a tenant Node's status says of its kubelet when `gateway` serves it (sorted features). */
function gatewayStatus(gateway: KubeletGateway): Record<string, unknown> {
  const { address, port } = gateway;
  const types = isIpAddress(address) ? ['InternalIP'] : ['Hostname', 'InternalDNS'];
  return {
    addresses: types.map((type) => ({ type, address })),
    daemonEndpoints: { kubeletEndpoint: { Port: port } },
    declaredFeatures: ['ExtendWebSocketsToKubelet'],
  };
}

/**
 * What a status says of its kubelet, as compared: an apiserver shows an unset endpoint as port 0
 * (a struct, never omitted), which is no endpoint.
 */
function kubeletOf(status: Record<string, unknown>): unknown[] {
  const endpoints = isRecord(status.daemonEndpoints) ? status.daemonEndpoints : {};
  const kubelet = isRecord(endpoints.kubeletEndpoint) ? endpoints.kubeletEndpoint : {};
  const listed = (v: unknown) => (Array.isArray(v) && v.length > 0 ? v : undefined);
  const port = typeof kubelet.Port === 'number' && kubelet.Port > 0 ? kubelet.Port : undefined;
  return [listed(status.addresses), port, listed(status.declaredFeatures)];
}

/** The `Ready` condition fields that are compared (the heartbeat time is not: see above). */
const READY_FIELDS = ['status', 'reason', 'message', 'lastTransitionTime'] as const;

/** The engine's marks on a tenant Node: with the copied labels, every label it owns. */
function marks(): Record<string, string> {
  return {
    [Labels.ManagedBy]: MANAGED_BY_VALUE,
    [HostClassKeys.FromHost]: FROM_HOST_VALUE,
    [Labels.Kind]: NODE.kind,
  };
}

/** Every label key a tenant Node copy owns (compared and written); any other is left alone. */
const OWNED_LABELS: readonly string[] = [...NODE_COPIED_LABELS, ...Object.keys(marks())];

function conditionsOf(node: KubeObject | undefined): Record<string, unknown>[] {
  const status = isRecord(node?.status) ? node.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
}

/** The host node's `Ready` condition as the tenant shows it (`Unknown` when it reports none). */
function readyOf(hostNode: KubeObject): Record<string, unknown> {
  const ready = conditionsOf(hostNode).find((c) => c.type === 'Ready');
  if (!ready) {
    return {
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'the host node reports no Ready condition',
    };
  }
  const shown: Record<string, unknown> = { type: 'Ready', status: ready.status ?? 'Unknown' };
  for (const field of [...READY_FIELDS, 'lastHeartbeatTime'] as const) {
    if (field !== 'status' && typeof ready[field] === 'string') shown[field] = ready[field];
  }
  return shown;
}

/**
 * The tenant Node of `hostNode`, as `tenant`'s pass would create it: same name, the copied labels
 * the host node has, the engine's marks and the tenant label, an empty spec (the tenant schedules
 * nothing), and the status of the module doc.
 */
export function tenantNode(
  hostNode: KubeObject,
  tenant: string,
  gateway?: KubeletGateway,
): KubeObject {
  const labels: Record<string, string> = {};
  const hostLabels = hostNode.metadata.labels ?? {};
  for (const key of NODE_COPIED_LABELS) {
    const value = hostLabels[key];
    if (value !== undefined) labels[key] = value;
  }
  Object.assign(labels, marks(), { [Labels.Tenant]: tenant });
  const hostStatus = isRecord(hostNode.status) ? hostNode.status : {};
  const status: Record<string, unknown> = { conditions: [readyOf(hostNode)] };
  for (const field of RESOURCE_MAPS) {
    status[field] = isRecord(hostStatus[field]) ? cloneJson(hostStatus[field]) : {};
  }
  if (gateway) Object.assign(status, gatewayStatus(gateway));
  return {
    apiVersion: NODE.apiVersion,
    kind: NODE.kind,
    metadata: { name: hostNode.metadata.name, labels },
    spec: {},
    status,
  };
}

/**
 * Whether a tenant Node is a copy the engine made (by any TenantCluster syncing this tenant
 * cluster: they copy the same host nodes). Only those are ever written or deleted.
 */
export function isOurNode(node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  return (
    labels[Labels.ManagedBy] === MANAGED_BY_VALUE &&
    labels[HostClassKeys.FromHost] === FROM_HOST_VALUE
  );
}

/** The owned labels of `node` (what is compared). */
function ownedLabels(node: KubeObject): Record<string, string> {
  const labels = node.metadata.labels ?? {};
  const owned: Record<string, string> = {};
  for (const key of OWNED_LABELS) if (labels[key] !== undefined) owned[key] = labels[key];
  return owned;
}

function comparedReady(condition: Record<string, unknown> | undefined): Record<string, unknown> {
  const compared: Record<string, unknown> = {};
  for (const field of READY_FIELDS) {
    if (condition?.[field] !== undefined) compared[field] = condition[field];
  }
  return compared;
}

/** A JSON merge patch that makes map `have` equal `want` (`null` for each key `want` lacks). */
function mapPatch(want: unknown, have: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = isRecord(want) ? cloneJson(want) : {};
  if (isRecord(have)) for (const key of Object.keys(have)) if (!(key in patch)) patch[key] = null;
  return patch;
}

/**
 * The JSON merge patch of a tenant Node's `/status` that makes `observed` show `desired`'s
 * status (its {@link tenantNode}), or `undefined` when it does. Conditions of other types (none
 * but the engine's, unless the tenant runs node controllers) are kept.
 */
export function nodeStatusPatch(
  desired: KubeObject,
  observed: KubeObject,
): Record<string, unknown> | undefined {
  const want = isRecord(desired.status) ? desired.status : {};
  const have = isRecord(observed.status) ? observed.status : {};
  const patch: Record<string, unknown> = {};
  for (const field of RESOURCE_MAPS) {
    if (!jsonEqual(want[field] ?? {}, have[field] ?? {}))
      patch[field] = mapPatch(want[field], have[field]);
  }
  if (!jsonEqual(kubeletOf(want), kubeletOf(have))) {
    for (const field of GATEWAY_FIELDS) patch[field] = want[field] ?? null;
  }
  const ready = conditionsOf(desired).find((c) => c.type === 'Ready');
  const shown = conditionsOf(observed);
  const current = shown.find((c) => c.type === 'Ready');
  if (!jsonEqual(comparedReady(ready), comparedReady(current))) {
    patch.conditions = [...shown.filter((c) => c.type !== 'Ready'), ...(ready ? [ready] : [])];
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** What one tenant Node needs to show its host node. */
export type NodePlan =
  | { action: 'InSync' }
  /** A tenant Node the engine did not make holds the name: never touched. */
  | { action: 'Foreign' }
  | { action: 'Create'; body: KubeObject }
  /**
   * `update`: the Node with its owned labels as desired (PUT with the observed resourceVersion);
   * `status`: the merge patch of its `/status`; at least one is set. `changed` names what differs.
   */
  | {
      action: 'Update';
      update?: KubeObject;
      status?: Record<string, unknown>;
      changed: string[];
    };

/** Plans the tenant side of one host node: `desired` is its {@link tenantNode}. */
export function planNode(desired: KubeObject, observed: KubeObject | undefined): NodePlan {
  if (!observed) return { action: 'Create', body: desired };
  if (!isOurNode(observed)) return { action: 'Foreign' };
  const changed: string[] = [];
  let update: KubeObject | undefined;
  const wantLabels = ownedLabels(desired);
  if (!jsonEqual(wantLabels, ownedLabels(observed))) {
    changed.push('labels');
    const labels = { ...observed.metadata.labels };
    for (const key of OWNED_LABELS) delete labels[key];
    update = cloneJson(observed);
    update.metadata.labels = { ...labels, ...wantLabels };
  }
  const status = nodeStatusPatch(desired, observed);
  const shown = (f: string) =>
    f === 'conditions' ? 'Ready' : f in GATEWAY_ROLE ? 'kubelet gateway' : f;
  if (status) changed.push(...new Set(Object.keys(status).map(shown)));
  if (!update && !status) return { action: 'InSync' };
  return {
    action: 'Update',
    changed,
    ...(update ? { update } : {}),
    ...(status ? { status } : {}),
  };
}

/** The node a Pod is bound to (`spec.nodeName`), when it is. */
export function nodeNameOf(pod: KubeObject | undefined): string | undefined {
  const spec = isRecord(pod?.spec) ? pod.spec : {};
  return typeof spec.nodeName === 'string' && spec.nodeName !== '' ? spec.nodeName : undefined;
}

/** The host nodes the given host Pods are scheduled on, sorted. */
export function nodesOf(hostPods: readonly KubeObject[]): string[] {
  const names = new Set<string>();
  for (const pod of hostPods) {
    const name = nodeNameOf(pod);
    if (name !== undefined) names.add(name);
  }
  return [...names].sort();
}

/**
 * What binding a tenant Pod needs, from its host copy: `bind` the node the host Pod runs on when
 * the tenant Pod is unbound; `elsewhere` when it is bound to another node (a binding never
 * changes); `undefined` when the host Pod is not scheduled yet or the tenant Pod shows its node.
 */
export function bindingNeed(
  hostPod: KubeObject,
  tenantPod: KubeObject,
): { bind: string } | { elsewhere: { tenant: string; host: string } } | undefined {
  const host = nodeNameOf(hostPod);
  if (host === undefined) return undefined;
  const tenant = nodeNameOf(tenantPod);
  if (tenant === undefined) return { bind: host };
  return tenant === host ? undefined : { elsewhere: { tenant, host } };
}

/**
 * The `Binding` that binds tenant Pod `pod` to Node `nodeName`, as its host copy `hostPod` runs
 * there. With the Pod's uid the apiserver binds only that Pod, never a Pod recreated under its
 * name since it was read; the annotation (which the apiserver copies to the Pod) records which
 * host copy it was bound for.
 */
export function podBinding(pod: KubeObject, nodeName: string, hostPod: KubeObject): KubeObject {
  const { name, namespace, uid } = pod.metadata;
  const hostUid = hostPod.metadata.uid;
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(hostUid ? { annotations: { [Annotations.BoundHostPod]: hostUid } } : {}),
    },
    target: { apiVersion: NODE.apiVersion, kind: NODE.kind, name: nodeName },
  };
}
