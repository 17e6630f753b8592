/**
 * The Pod translator: a tenant Pod becomes a host Pod that works there and stays inside its
 * tenant and virtual namespace. Every reference names the host copy of what it refers to (by
 * {@link hostName}); the Pod is refused when it asks for host access the policy does not allow;
 * it carries no host credentials, and its service-account token sources are served from its own
 * token Secret, filled by the tenant apiserver (`pod-token.ts`), with the tenant's API endpoint
 * and DNS; its downward API reads its tenant identity, labels and annotations
 * (`pod-downward.ts`); its ephemeral volumes mount the host copies of the claims the tenant's
 * controller made for them (`ephemeral.ts`); it gets the node selector and tolerations the policy
 * enforces (`pod-scheduling.ts`) and the policy's runtime class (`sandbox.ts`); it is refused when
 * it mounts what the node would reach from its own position (`node-volumes.ts`), names a
 * resource claim (`resource-claims.ts`), sets a field a table refuses or the host does not serve (`../fields/`), names a host trust bundle or signer the policy does not list (`trust.ts`), its
 * own scheduler, a toleration of every taint, or a
 * toleration or node label the policy does not allow (`placement.ts`); its
 * affinity and topology spread selectors stay inside its tenant (`pod-affinity.ts`); one that sets
 * a field the engine does not know waits for a decision, its running copy kept as it was; its labels
 * under reserved keys are carried under the key function's key (`selectors.ts`); and an update
 * touches only what a running Pod lets change (`pod-update.ts`).
 */
import { isRecord } from '../../../../common/index.js';
import { type KubeObject, POD, SERVICE } from '../../../../ports/index.js';
import { Annotations, POD_NODE_LABELS } from '../../../names/metadata.js';
import { hostName, tokenSecretName } from '../../../names/naming.js';
import { parseApiEndpoint } from '../../../policy/workloads.js';
import { carriedLabels } from '../../frame/selectors.js';
import type { KindTranslator, ObjectReference, TranslateTarget } from '../../frame/translator.js';
import type { PodFacts } from '../facts.js';
import { hostServedRefusal } from '../fields/host-served.js';
import { podFieldRefusal, podFieldUndecided } from '../fields/unknown-fields.js';
import { tenantContainerNames, tenantContainersAnnotation } from '../tenant-containers.js';
import { podSelectorFields, podSelectorRefusal } from './affinity.js';
import { tenantFieldRefs } from './downward.js';
import { dropTokenSources, hardenSpec, hostAccessRefusal } from './hardening.js';
import { inlineCsiRefusal, nodeVolumeRefusal } from './node-volumes.js';
import { dropDaemonSetCordon, placementRefusal } from './placement.js';
import { POD_REFERENCED_KINDS, walkPodReferences } from './references.js';
import { resourceClaimRefusal } from './resource-claims.js';
import { enforceRuntimeClass, sandboxRefusal } from './sandbox.js';
import { enforceScheduling } from './scheduling.js';
import {
  ensureTokenVolume,
  mountTokenSecret,
  takeTokenSources,
  tenantApiEnv,
  tenantDnsConfig,
} from './token.js';
import { scopeTrustBundles, trustRefusal } from './trust.js';
import { podUpdateBody } from './update.js';

/**
 * The host Pod spec of a tenant Pod spec (changed in place: it is the transform's own copy), and
 * what it needs beside it: the tenant service account and the tenant tokens it mounts. Token
 * sources go first, so the tenant CA beside them is no reference to rename; they come back as
 * sources of the Pod's token Secret after the renaming (`pod-token.ts`).
 */
function translateSpec(
  spec: Record<string, unknown>,
  target: TranslateTarget<PodFacts>,
  host: string,
) {
  const { virtualNamespace: vns, tenant, workloads } = target;
  ensureTokenVolume(spec);
  const tokens = takeTokenSources(spec);
  // The registry asks for the refusal first, so a Pod whose affinity cannot be scoped never gets here.
  const scoped = podSelectorFields(spec, { tenant, virtualNamespace: vns });
  if ('fields' in scoped) Object.assign(spec, scoped.fields);
  const podName = target.source.metadata.name;
  walkPodReferences(spec, podName, (ref) => ref.set(hostName(ref.name, vns, tenant)));
  const downward = tenantFieldRefs(spec, target.source.metadata, target.excludeKeys);
  scopeTrustBundles(spec);
  mountTokenSecret(spec, tokens, tokenSecretName(host));
  const endpoint = workloads?.tenantApiEndpoint && parseApiEndpoint(workloads.tenantApiEndpoint);
  if (endpoint) tenantApiEnv(spec, endpoint);
  const dns = workloads?.tenantDns;
  if (dns) tenantDnsConfig(spec, dns, vns, target.tenantDnsAddress);
  // The Pod's DNS name is `<hostname>.<subdomain>`: the subdomain is a headless Service of the
  // virtual namespace, whose host copy has the host name.
  if (typeof spec.subdomain === 'string' && spec.subdomain !== '') {
    spec.subdomain = hostName(spec.subdomain, vns, tenant);
  }
  const serviceAccount = hardenSpec(spec, target.source.metadata.name, workloads);
  dropDaemonSetCordon(spec, target.source.metadata, workloads);
  enforceScheduling(spec, workloads);
  enforceRuntimeClass(spec, workloads);
  return { serviceAccount, tokens: tokens.requests, downward };
}

/** A volume whose `projected` record is its own (shallow) copy; any other volume as it is. */
function withOwnProjection(volume: unknown): unknown {
  return isRecord(volume) && isRecord(volume.projected)
    ? { ...volume, projected: { ...volume.projected } }
    : volume;
}

/** Pods: see the module doc. */
export const POD_TRANSLATOR: KindTranslator<PodFacts> = {
  kind: POD,
  // Services too: a tenant DNS Service's copy (`spec.workloads.tenantDns.service`) made in the
  // pass is read by the Pod kind's turn after it, for the host Pods' nameserver.
  referencedKinds: [...POD_REFERENCED_KINDS, SERVICE],
  // The tenant apiserver's binding copies these from the tenant Node (PodTopologyLabels admission,
  // on by default since 1.35), the host's from the host node: the host Pod has its own.
  ignoredLabels: POD_NODE_LABELS,

  refusal(source, target) {
    const scope = { tenant: target.tenant, virtualNamespace: target.virtualNamespace };
    return (
      hostAccessRefusal(source.spec, target.workloads) ??
      nodeVolumeRefusal(source.spec, target.workloads) ??
      inlineCsiRefusal(source.spec, target.workloads) ??
      resourceClaimRefusal(source.spec) ??
      podFieldRefusal(source.spec) ??
      hostServedRefusal(source.spec, target.hostPodSchema) ??
      trustRefusal(source.spec, target.workloads) ??
      sandboxRefusal(source.spec, target.workloads) ??
      placementRefusal(source.spec, source.metadata, target.workloads) ??
      podSelectorRefusal(source.spec, scope)
    );
  },

  toHost(object, target) {
    // The generic transform drops tenant labels under reserved keys (the engine's own values go
    // there); a Pod carries them under the key function's key, so a selector on one (a Helm
    // chart's `app.kubernetes.io/managed-by: Helm`), scoped by the same function, still finds it.
    object.metadata.labels = {
      ...object.metadata.labels,
      ...carriedLabels(target.source.metadata.labels, target.excludeKeys?.labels),
    };
    if (!isRecord(object.spec)) return object;
    const { serviceAccount, tokens, downward } = translateSpec(
      object.spec,
      target,
      object.metadata.name,
    );
    object.metadata.annotations = {
      ...object.metadata.annotations,
      // The tenant values the downward API reads (whole label and annotation maps, carried keys).
      ...downward,
      [Annotations.ServiceAccountName]: serviceAccount,
      // The containers the kubelet gateway may serve: the tenant's, not a host webhook's.
      ...tenantContainersAnnotation(tenantContainerNames(target.source.spec)),
      // What a pass mints into the Pod's token Secret (`kinds/pod/tokens.ts`), read from the host
      // Pod so renewal needs no tenant read.
      ...(tokens.length > 0 ? { [Annotations.TokenRequests]: JSON.stringify(tokens) } : {}),
    };
    return object;
  },

  // Asked last: a field it does not know keeps a running Pod's copy as it was (`../fields/`).
  undecided: (source, target) => podFieldUndecided(source.spec, target.workloads),

  updateBody: podUpdateBody,

  references(source: KubeObject): ObjectReference[] {
    const found: ObjectReference[] = [];
    // The token sources and ephemeral containers are not references: they never reach the
    // host (see translateSpec). A shallow copy down to each projected volume is all that dropping
    // them changes, so the source stays untouched without a deep copy of the whole spec.
    const spec = isRecord(source.spec) ? { ...source.spec } : undefined;
    if (spec) {
      if (Array.isArray(spec.volumes)) spec.volumes = spec.volumes.map(withOwnProjection);
      dropTokenSources(spec);
      delete spec.ephemeralContainers;
    }
    walkPodReferences(spec, source.metadata.name, (ref) => {
      found.push({ ...ref.kind, name: ref.name, path: ref.path, optional: ref.optional });
    });
    return found;
  },
};
