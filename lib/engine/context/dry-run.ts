/**
 * A dry run as a client, after controller-runtime's `NewDryRunClient`: reads go to the host,
 * writes are answered as the host would answer a write that succeeded, and never sent. The steps
 * run exactly as in a real pass (their Decisions are the real pass's), with no switch of their own.
 */
import type { ClusterApi, KubeObject } from '../../ports/index.js';

/** `api` with every write answered locally: nothing reaches the cluster, reads are unchanged. */
export function dryRunClient(api: ClusterApi): ClusterApi {
  const client: ClusterApi = {
    list: (kind, options) => api.list(kind, options),
    get: (kind, namespace, name) => api.get(kind, namespace, name),
    // What a successful create or update returns: the object as written.
    create: async (object: KubeObject) => object,
    update: async (object: KubeObject) => object,
    delete: async () => {},
    patchStatus: async (kind, namespace, name, status) => ({
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
      status,
    }),
    requestCount: () => api.requestCount(),
    // An identity, not a write: the check that the tenant is not the host compares it.
    ...(api.server === undefined ? {} : { server: api.server }),
    // What a minted token's Secret carries beside it: read, not written.
    ...(api.certificateAuthority === undefined
      ? {}
      : { certificateAuthority: api.certificateAuthority }),
  };
  // A token as if minted (empty: a dry run holds no credential), valid for what was asked.
  if (api.createToken) {
    client.createToken = async (_namespace, _serviceAccount, request) => ({
      token: '',
      expirationTimestamp: new Date(Date.now() + request.expirationSeconds * 1000).toISOString(),
    });
  }
  // A resize as if made, so a dry run decides the Pod's update like the real pass.
  if (api.resize) client.resize = async (object: KubeObject) => object;
  // A binding as if made: nothing is sent (a dry run never binds a tenant Pod).
  if (api.bind) client.bind = async () => {};
  if (api.namespaced) client.namespaced = api.namespaced.bind(api);
  if (api.namespacedKinds) client.namespacedKinds = api.namespacedKinds.bind(api);
  if (api.openApiSchemas) client.openApiSchemas = api.openApiSchemas.bind(api);
  if (api.watchChanges) client.watchChanges = api.watchChanges.bind(api);
  return client;
}
