/** Shared builders for the engine's pass tests. */
import { hostName, TENANT_CLUSTER, toHostObject } from '../../../lib/engine/index.js';
import type { Decision, DecisionSink, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { MemoryCluster, type MemoryClusterOptions } from '../fakes/memory-cluster.js';

export const TENANT = 'dev';
export const HOST_NS = 'tenant-dev';
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SECRET = { apiVersion: 'v1', kind: 'Secret' };

export function tenantCluster(spec: Record<string, unknown> = {}, name = TENANT): KubeObject {
  return {
    ...TENANT_CLUSTER,
    metadata: { name },
    spec: { hostNamespace: HOST_NS, ...spec },
  };
}

export function cm(
  namespace: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
  metadata: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return {
    ...CONFIGMAP,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}`, ...metadata },
    data,
  };
}

export function secret(namespace: string, name: string, type = 'Opaque'): KubeObject {
  return {
    ...SECRET,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
    type,
    data: { password: 'c3VwZXItc2VjcmV0' },
  };
}

/** The host copy the engine would write for `source` (as a previous pass left it). */
export function hostCopyOf(source: KubeObject, tenant = TENANT): KubeObject {
  return toHostObject(source, { tenant, hostNamespace: HOST_NS });
}

export function hn(namespace: string, name: string, tenant = TENANT): string {
  return hostName(name, namespace, tenant);
}

export interface Clusters {
  tenantApi: MemoryCluster;
  hostApi: MemoryCluster;
}

/** A tenant and a host cluster; the host holds the TenantCluster plus `hostState`. */
export function clusters(
  tenantState: KubeObject[],
  hostState: KubeObject[],
  spec: Record<string, unknown> = {},
  options: { tenant?: MemoryClusterOptions; host?: MemoryClusterOptions } = {},
): Clusters {
  const tenantApi = new MemoryCluster('tenant', options.tenant).seed(...tenantState);
  const hostApi = new MemoryCluster('host', options.host).seed(tenantCluster(spec), ...hostState);
  return { tenantApi, hostApi };
}

/** A sink that remembers what it got. */
export class RecordingSink implements DecisionSink {
  readonly decisions: Decision[] = [];
  readonly results: PassResult[] = [];
  decision(decision: Decision): void {
    this.decisions.push(decision);
  }
  async passFinished(result: PassResult): Promise<void> {
    this.results.push(result);
  }
}

/** `Action tenantNs/name -> hostName` lines, sorted, for compact expectations. */
export function decisionLines(decisions: readonly Decision[]): string[] {
  return decisions
    .map(
      (d) =>
        `${d.action} ${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> ${d.hostRef.name}`,
    )
    .sort();
}

/** Host objects in the host namespace as `Kind name` plus their data, sorted. */
export function hostSummary(hostApi: MemoryCluster): Array<{ ref: string; data?: unknown }> {
  return hostApi
    .objects()
    .filter((o) => o.metadata.namespace === HOST_NS)
    .map((o) => ({
      ref: `${o.kind} ${o.metadata.name}`,
      ...(o.data === undefined ? {} : { data: o.data }),
    }))
    .sort((a, b) => a.ref.localeCompare(b.ref));
}
