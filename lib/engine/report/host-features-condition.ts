/**
 * The `HostFeatures` condition: whether the host serves every API the policy's kinds use that an
 * older Kubernetes release may lack (`tenant/host-features.ts`). `False` is no failure of the
 * pass: the engine does without each missing API, writes nothing the host would get wrong, and
 * says here once (the condition is written only when it changes) what it does instead.
 */
import { type ClusterApi, POD } from '../../ports/index.js';
import { unservedPodFields } from '../kinds/registry.js';
import { resourceKey } from '../names/resource-key.js';
import type { SyncPolicy } from '../policy/policy.js';
import { HOST_FEATURES, type HostFeatures } from '../tenant/host-features.js';
import { hostPodSchemaForPass } from '../tenant/host-pod-schema.js';
import {
  type ConditionInput,
  ConditionReason,
  ConditionType,
  recordedConditions,
} from './conditions.js';

/**
 * What a full pass of a policy that syncs Pods found of the Pod fields the host serves
 * (`tenant/host-pod-schema.ts`): the host's version and the fields of the engine's tables it
 * lacks, or why it could not tell.
 */
export type PodFieldsFound =
  | { version: string; missing: readonly string[]; gatesUnknown?: readonly string[] }
  | { unknown: string };

/**
 * The Pod fields a full pass of `policy` finds the host lacks (read again: the adapter keeps the
 * document per its hash), `undefined` when the policy syncs no Pods or the client cannot tell.
 */
export async function readPodFields(
  hostApi: ClusterApi,
  policy: Pick<SyncPolicy, 'toHost' | 'hostNamespace'>,
  tenant: string,
): Promise<PodFieldsFound | undefined> {
  const pod = resourceKey(POD);
  if (!policy.toHost.some((kind) => resourceKey(kind) === pod)) return undefined;
  const read = await hostPodSchemaForPass(
    hostApi,
    { hostNamespace: policy.hostNamespace, tenant },
    true,
  );
  if (read === undefined || 'unknown' in read) return read;
  const { version, gatesUnknown } = read;
  return {
    version,
    missing: unservedPodFields(read),
    ...(gatesUnknown.length ? { gatesUnknown } : {}),
  };
}

/** The words on the Pod fields, and whether they make the condition `False`. */
function podFieldsText(pods: PodFieldsFound | undefined): { text?: string; missing: boolean } {
  if (pods === undefined) return { missing: false };
  if ('unknown' in pods) {
    const text = `which Pod fields the host serves is unknown (${pods.unknown}): Pods are written as they are`;
    return { text, missing: false };
  }
  const unknown = pods.gatesUnknown?.length
    ? `whether the host's feature gates keep ${pods.gatesUnknown.join(', ')} is unknown (a dry-run create failed): a Pod that sets one is a Skip until the host answers`
    : undefined;
  if (pods.missing.length === 0) return { ...(unknown ? { text: unknown } : {}), missing: false };
  const text = `the host (Kubernetes ${pods.version}) does not serve the Pod fields ${pods.missing.join(', ')}, so a Pod that sets one is a Skip naming it and gets no host copy`;
  return { text: unknown ? `${text}; ${unknown}` : text, missing: true };
}

/**
 * The `HostFeatures` condition for what a full pass found: none when it could not tell, and none
 * when the policy needs no such API and none was ever reported.
 */
export function hostFeaturesConditions(
  found: HostFeatures | undefined,
  recordedStatus: unknown,
  generation: number | undefined,
  pods?: PodFieldsFound,
): ConditionInput[] {
  if (!found) return [];
  const podText = podFieldsText(pods);
  const withPods = (message: string) => (podText.text ? `${message}; ${podText.text}` : message);
  const common = {
    type: ConditionType.HostFeatures,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  if (found.needed.length === 0) {
    const recorded = recordedConditions(recordedStatus).some((c) => c.type === common.type);
    if (!recorded) return [];
    const message = 'the policy syncs no kind that needs an API older hosts lack';
    return [{ ...common, status: 'True', reason: ConditionReason.NotNeeded, message }];
  }
  if (found.missing.length === 0 && !podText.missing) {
    const apis = found.needed.map((f) => HOST_FEATURES[f].api).join(', ');
    const message = withPods(
      `the host serves every API the policy's kinds use that older releases lack: ${apis}`,
    );
    return [{ ...common, status: 'True', reason: ConditionReason.AllServed, message }];
  }
  const lacks = found.missing.map(
    (f) => `${HOST_FEATURES[f].api} is not served, so ${HOST_FEATURES[f].without}`,
  );
  if (podText.text) lacks.push(podText.text);
  const message = `the host is older than the engine expects: ${lacks.join('; ')} (docs/versions.md)`;
  return [{ ...common, status: 'False', reason: ConditionReason.FeaturesMissing, message }];
}
