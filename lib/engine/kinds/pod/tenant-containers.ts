/**
 * The containers of a tenant Pod, recorded on its host copy. A host webhook may add containers to
 * the copy (a mesh sidecar, an init container); the kubelet gateway serves logs, exec and attach
 * only for the containers the tenant itself declared, read from this record (the host copy is all
 * the gateway sees: it has no tenant credentials). Tenants cannot write it: annotations under the
 * engine's domain are dropped from their objects.
 */
import { isRecord } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import { Annotations } from '../../names/metadata.js';
import { CONTAINER_LISTS } from './translate/references.js';

/** The container names of a tenant Pod spec (init, regular, ephemeral), in spec order. */
export function tenantContainerNames(spec: unknown): string[] {
  if (!isRecord(spec)) return [];
  const names: string[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (isRecord(container) && typeof container.name === 'string') names.push(container.name);
    }
  }
  return names;
}

/** The annotation that records `names` on a host Pod. */
export function tenantContainersAnnotation(names: readonly string[]): Record<string, string> {
  return { [Annotations.TenantContainers]: JSON.stringify(names) };
}

/**
 * The tenant's container names recorded on `hostPod`, or `undefined` when it has no (readable)
 * record: a copy an older engine wrote, which a full pass brings up to date.
 */
export function recordedTenantContainers(hostPod: KubeObject): ReadonlySet<string> | undefined {
  const text = hostPod.metadata.annotations?.[Annotations.TenantContainers];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || !parsed.every((n) => typeof n === 'string')) return undefined;
    return new Set(parsed);
  } catch {
    return undefined;
  }
}
