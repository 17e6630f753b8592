/**
 * The `HostFeatures` condition: whether the host serves every API the policy's kinds use that an
 * older Kubernetes release may lack (`tenant/host-features.ts`). `False` is no failure of the
 * pass: the engine does without each missing API, writes nothing the host would get wrong, and
 * says here once (the condition is written only when it changes) what it does instead.
 */
import { HOST_FEATURES, type HostFeatures } from '../tenant/host-features.js';
import {
  type ConditionInput,
  ConditionReason,
  ConditionType,
  recordedConditions,
} from './conditions.js';

/**
 * The `HostFeatures` condition for what a full pass found: none when it could not tell, and none
 * when the policy needs no such API and none was ever reported.
 */
export function hostFeaturesConditions(
  found: HostFeatures | undefined,
  recordedStatus: unknown,
  generation: number | undefined,
): ConditionInput[] {
  if (!found) return [];
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
  if (found.missing.length === 0) {
    const apis = found.needed.map((f) => HOST_FEATURES[f].api).join(', ');
    const message = `the host serves every API the policy's kinds use that older releases lack: ${apis}`;
    return [{ ...common, status: 'True', reason: ConditionReason.AllServed, message }];
  }
  const lacks = found.missing.map(
    (f) => `${HOST_FEATURES[f].api} is not served, so ${HOST_FEATURES[f].without}`,
  );
  const message = `the host is older than the engine expects: ${lacks.join('; ')} (docs/versions.md)`;
  return [{ ...common, status: 'False', reason: ConditionReason.FeaturesMissing, message }];
}
