/** Shared by the translator tables: a tenant object of tenant `dev`, translated by the registry. */
import { type Translation, translate } from '../../../../lib/engine/kinds/registry.js';
import type { WorkloadPolicy } from '../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

export const TENANT = 'dev';
export const HOST_NAMESPACE = 'tenant-dev';

/** A tenant object `name` in `namespace` with the given body fields. */
export function tenantObject(
  apiVersion: string,
  kind: string,
  fields: Record<string, unknown>,
  metadata: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', ...metadata },
    ...fields,
  };
}

/** The registry's translation for tenant `dev`, host namespace `tenant-dev`. */
export function translated(source: KubeObject, workloads?: WorkloadPolicy): Translation {
  return translate(source, {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    ...(workloads ? { workloads } : {}),
  });
}

/** The translated host object; fails the test when the translation was refused. */
export function hostOf(source: KubeObject, workloads?: WorkloadPolicy): KubeObject {
  const result = translated(source, workloads);
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  if (result.undecided) throw new Error(`undecided: ${result.undecided.notCreated}`);
  return result.host;
}
