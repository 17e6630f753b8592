/**
 * The tenant objects a Service owns: those whose `metadata.ownerReferences` name its uid. A
 * realignment deletes the Service to recreate it, and the tenant's garbage collector acts on what
 * the old uid owns, so the realignment looks first and leaves a Service that owns anything alone.
 *
 * No API answers "what does this uid own", so every namespaced kind the tenant lists (API
 * discovery, one version per group) is listed in the Service's namespace: a namespaced owner can
 * only own objects of its own namespace. Costly (one LIST a kind), and paid only by a Service
 * about to be realigned. A kind the engine's identity may not list (least privilege) is not seen:
 * the realignment's delete orphans instead (`release.ts`), so nothing of it is deleted either.
 *
 * Not dependents: the EndpointSlices the tenant's own controllers made for the Service. They are
 * remade for the recreated Service by the same controllers, as for any new Service.
 */
import { type ClusterApi, type KubeObject, SERVICE } from '../../../ports/index.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import {
  ENDPOINT_SLICE_CONTROLLER,
  ENDPOINT_SLICE_MIRRORING,
  KubernetesKeys,
} from '../../names/metadata.js';

/** Enough named to say which: the rest are "and more". */
const NAMED = 3;
const PAGE = 250;

/**
 * Owned objects (`Kind/name`, at most one more than {@link NAMED}), and the kinds that could not be
 * listed (`Kind (apiVersion)`), which the realignment cannot see into.
 */
export interface Dependents {
  owned: string[];
  unseen: string[];
}

const remadeByController = (item: KubeObject) => {
  const by = item.metadata.labels?.[KubernetesKeys.EndpointSliceManagedBy];
  return by === ENDPOINT_SLICE_CONTROLLER || by === ENDPOINT_SLICE_MIRRORING;
};

const ownedBy = (uid: string) => (item: KubeObject) => {
  const refs = item.metadata.ownerReferences;
  const owns =
    Array.isArray(refs) && refs.some((r) => (r as { uid?: unknown } | null)?.uid === uid);
  return owns && !(item.kind === 'EndpointSlice' && remadeByController(item));
};

/**
 * The objects of `owner`'s namespace that name its uid as an owner, kind by kind in discovery
 * order (so the answer is the same pass after pass); it stops once it has more than it names.
 */
export async function dependentsOf(api: ClusterApi, owner: KubeObject): Promise<Dependents> {
  const { namespace = '', uid = '' } = owner.metadata;
  const listKinds = api.namespacedKinds?.bind(api);
  const kinds = listKinds ? await attempt(() => listKinds()) : undefined;
  // Discovery unread: the Services themselves are still looked at (a Service may own one).
  const found = kinds?.ok ? kinds.value : [SERVICE];
  const owned: string[] = [];
  const unseen: string[] = kinds?.ok ? [] : ['the kinds discovery lists'];
  for (const kind of found) {
    const items = await attempt(() => listEveryPage(api, kind, PAGE, { namespace }, ownedBy(uid)));
    if (!items.ok) {
      unseen.push(`${kind.kind} (${kind.apiVersion})`);
      continue;
    }
    for (const item of items.value) owned.push(`${kind.kind}/${item.metadata.name}`);
    if (owned.length > NAMED) break;
  }
  return { owned, unseen };
}

/** `ConfigMap/a, Secret/b, Pod/c and more`: the owned objects as a Skip names them. */
export function namedDependents(owned: readonly string[]): string {
  const named = owned.slice(0, NAMED).join(', ');
  return owned.length > NAMED ? `${named} and more` : named;
}
