/**
 * The tenant namespaces that belong to the tenant's control plane: never synced, whatever the
 * policy says. Apart from `scope.ts` so the parser of `spec.workloads` can name them without a
 * circle of imports (`scope.ts` reads the parsed policy's types).
 */

/** Tenant namespaces that belong to the tenant's control plane; never synced. */
export const TENANT_SYSTEM_NAMESPACES: readonly string[] = Object.freeze([
  'kube-system',
  'kube-public',
  'kube-node-lease',
]);
