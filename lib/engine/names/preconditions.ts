/**
 * Every delete the engine makes names exactly the object it read: uid and resourceVersion
 * preconditions, so an object recreated under the same name, adopted by an operator or updated
 * by someone else since it was read is never deleted by mistake (the server answers 409 Conflict
 * instead). GC, retiring, a replacement and releasing the lease all delete through here.
 */
import {
  type ClusterApi,
  ClusterError,
  type DeleteOptions,
  type KindRef,
  type ObjectMeta,
} from '../../ports/index.js';

/**
 * Deletes the object of `kind` that `read` is, with its uid and (when it has one) its
 * resourceVersion as preconditions, in `namespace` (default: the object's own). A missing object
 * throws `NotFound`, a changed one `Conflict`, as the client reports them.
 * `options` (a Pod's grace period) go with the request as they are.
 * @throws ClusterError (Invalid) without a request when the object has no uid: without one there
 * is nothing to make the delete safe with.
 */
export async function deleteAsRead(
  api: Pick<ClusterApi, 'delete'>,
  kind: KindRef,
  read: { metadata: ObjectMeta },
  namespace: string | undefined = read.metadata.namespace,
  options?: DeleteOptions,
): Promise<void> {
  const { uid, resourceVersion, name } = read.metadata;
  if (typeof uid !== 'string' || uid === '') {
    throw new ClusterError('Invalid', `${kind.kind} ${name} has no uid to delete it safely`);
  }
  const preconditions = { uid, ...(resourceVersion ? { resourceVersion } : {}) };
  if (options === undefined) await api.delete(kind, namespace, name, preconditions);
  else await api.delete(kind, namespace, name, preconditions, options);
}
