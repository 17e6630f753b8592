/**
 * An in-place resize: the only way a running Pod's container resources change is a PUT of its
 * `resize` subresource (Kubernetes 1.33+). The update that follows records the write as every
 * update does. A host that cannot resize in place is the Pod's error, in words that say what to do.
 */
import { type ClusterApi, ClusterError, type KubeObject } from '../../ports/index.js';

/**
 * The in-place resize of a Pod's resources, then its update (on the resized resourceVersion, so
 * the update records the write and carries the new resources). A host that cannot resize in
 * place is the object's error, in words: without the resize nothing is written, so the next pass
 * (after its back-off) tries again rather than recording the old resources as the host's own.
 */
export async function resizeThenUpdate(
  hostApi: ClusterApi,
  resize: KubeObject,
  body: KubeObject,
): Promise<KubeObject> {
  const what = `${resize.metadata.namespace}/${resize.metadata.name}`;
  if (!hostApi.resize) {
    throw new ClusterError(
      'Invalid',
      `the resources of Pod ${what} changed and this host client cannot resize a Pod in place (pods/resize); delete the tenant Pod to recreate it`,
    );
  }
  let resized: KubeObject;
  try {
    resized = await hostApi.resize(resize);
  } catch (error) {
    // Anything but the host's answer (a pass-level failure included) goes on up as it is.
    if (!(error instanceof ClusterError)) throw error;
    const unsupported = error.reason === 'NotFound' || error.status === 405;
    const why = unsupported
      ? 'the host does not support in-place resize (pods/resize)'
      : `the host refused the in-place resize (pods/resize): ${error.message}`;
    throw new ClusterError(
      error.reason,
      `the resources of Pod ${what} changed and ${why}; delete the tenant Pod to recreate it with them`,
      { status: error.status, fields: [...error.fields], cause: error },
    );
  }
  const resourceVersion = resized.metadata.resourceVersion ?? body.metadata.resourceVersion;
  return hostApi.update({ ...body, metadata: { ...body.metadata, resourceVersion } });
}
