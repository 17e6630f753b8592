/**
 * What an older host lacks of the APIs the engine uses (docs/versions.md). A host of an older
 * Kubernetes release may not serve an API the policy's kinds rely on; the engine then does
 * without it (what each does instead is in {@link HOST_FEATURES}) and the TenantCluster says so
 * in its `HostFeatures` condition (`report/host-features-condition.ts`). Read from the host's API
 * discovery on a full pass, with the status report, like the Pod Security label: discovery is
 * open to every authenticated identity, so no grant is needed.
 */
import {
  type ClusterApi,
  isClusterError,
  type KindRef,
  POD,
  SERVICE,
  SERVICE_CIDR,
} from '../../ports/index.js';
import { resourceKey } from '../names/resource-key.js';
import type { SyncPolicy } from '../policy/policy.js';

/** The host APIs the engine uses that not every supported release serves. */
export const HostFeature = {
  /** `networking.k8s.io/v1` ServiceCIDR (GA in 1.33): the host's service ranges. */
  ServiceCIDR: 'ServiceCIDR',
  /** The `pods/resize` subresource (1.33 on): a running Pod's resources changed in place. */
  PodResize: 'PodResize',
} as const;
export type HostFeature = (typeof HostFeature)[keyof typeof HostFeature];

/** One feature: which synced kind needs it, what it is, and what the engine does without it. */
export interface HostFeatureSpec {
  /** The synced kind that needs it. */
  neededBy: KindRef;
  /** The API, as an operator looks it up. */
  api: string;
  /** What the engine does on a host that lacks it (the condition's message). */
  without: string;
}

/** Every feature, in the order the condition names them. */
export const HOST_FEATURES: Readonly<Record<HostFeature, HostFeatureSpec>> = {
  ServiceCIDR: {
    neededBy: SERVICE,
    api: 'networking.k8s.io/v1 servicecidrs (Kubernetes 1.33+)',
    without:
      'a Service copy asks for no cluster IP: the host allocates one and the tenant Service is realigned to it',
  },
  PodResize: {
    neededBy: POD,
    api: 'pods/resize (Kubernetes 1.33+)',
    without:
      'a change of a running Pod’s resources is written nowhere: it is that Pod’s error until the tenant Pod is recreated',
  },
};

/** What a full pass found: the features its policy needs, and those the host lacks. */
export interface HostFeatures {
  needed: HostFeature[];
  missing: HostFeature[];
}

/** The discovery calls the read makes (optional on a client: without them it says nothing). */
export type FeatureDiscovery = Pick<ClusterApi, 'namespaced' | 'subresources'>;

/** Whether the host serves `feature`: `undefined` when discovery failed for another reason. */
async function serves(
  host: Required<FeatureDiscovery>,
  feature: HostFeature,
): Promise<boolean | undefined> {
  try {
    if (feature === HostFeature.ServiceCIDR) {
      await host.namespaced(SERVICE_CIDR);
      return true;
    }
    return (await host.subresources(POD)).includes('resize');
  } catch (error) {
    return isClusterError(error, 'NotFound') ? false : undefined;
  }
}

/**
 * The features `policy` needs and those of them the host does not serve. `undefined` when the
 * client cannot tell (no discovery) or a discovery read failed for another reason than NotFound
 * (a blip): the recorded condition stands until a pass can tell.
 */
export async function readHostFeatures(
  host: FeatureDiscovery,
  policy: Pick<SyncPolicy, 'toHost'>,
): Promise<HostFeatures | undefined> {
  const { namespaced, subresources } = host;
  if (!namespaced || !subresources) return undefined;
  const discovery = { namespaced: namespaced.bind(host), subresources: subresources.bind(host) };
  const synced = new Set(policy.toHost.map(resourceKey));
  const needed = (Object.keys(HOST_FEATURES) as HostFeature[]).filter((f) =>
    synced.has(resourceKey(HOST_FEATURES[f].neededBy)),
  );
  const missing: HostFeature[] = [];
  for (const feature of needed) {
    const served = await serves(discovery, feature);
    if (served === undefined) return undefined;
    if (!served) missing.push(feature);
  }
  return { needed, missing };
}
