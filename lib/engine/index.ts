/**
 * The pure sync engine: its public surface, listed explicitly so internals stay internal. Depends
 * only on `lib/ports` and `lib/common`.
 */

// The TenantCluster kind is part of the engine's vocabulary; it is defined with the ports.
export { TENANT_CLUSTER } from '../ports/index.js';
export { type Budget, DEFAULT_BUDGET } from './bounds/budget.js';
export { DEFAULT_REPORT_RESERVE_MS, passEndDeadline, workDeadline } from './bounds/deadlines.js';
export { DecisionRecorder, emptyCounts } from './context/decisions.js';
export { formatObjectError } from './context/object-errors.js';
export type { PassProgress } from './context/pass-context.js';
export {
  ClusterUnreachableError,
  InvalidPolicyError,
  PassError,
  TenantClusterChangedError,
  TenantClusterNotFoundError,
} from './errors.js';
export { type GcCandidate, planGc, type TenantListing } from './gc/candidates.js';
export { compactHostObject } from './listing/host-view.js';
export {
  Annotations,
  EventAnnotations,
  isReservedKey,
  Labels,
  MANAGED_BY_VALUE,
  RESERVED_DOMAIN,
  TenantClusterKeys,
} from './names/metadata.js';
export { hostName } from './names/naming.js';
export {
  describeOccupant,
  type Provenance,
  provenance,
  type SourceIdentity,
} from './names/provenance.js';
export {
  type ReverseRef,
  reverseLookup,
  reverseMappingAnnotations,
  reverseMappingLabels,
} from './names/reverse-mapping.js';
export {
  type ApplyContext,
  type ApplyOutcome,
  type ApplyPlan,
  applyObject,
  planApply,
} from './object/apply.js';
export { ownedKeysOf, type TransformTarget, toHostObject } from './object/transform.js';
export { type PassOptions, runPass } from './pass/guarded-pass.js';
export { requestDelta } from './pass/pass.js';
export {
  type LabelSelector,
  LabelSelectorError,
  matchesLabelSelector,
  parseLabelSelector,
} from './policy/label-selector.js';
export {
  DEFAULT_DELETE_GUARD,
  DEFAULT_TO_HOST,
  type DeleteGuardPolicy,
  type KindExclusions,
  type KindRule,
  parseSyncPolicy,
  type SyncPolicy,
} from './policy/policy.js';
export {
  type CompiledKindRule,
  compileKindRule,
  isExcluded,
  TENANT_SYSTEM_NAMESPACES,
} from './policy/scope.js';
export {
  type Condition,
  type ConditionInput,
  ConditionReason,
  type ConditionStatus,
  ConditionType,
  conditionsPatch,
  conditionTime,
  mergeConditions,
  passConditions,
  recordedConditions,
} from './report/conditions.js';
export {
  failureConditions,
  failureReason,
  type PassFailureReportOptions,
  reportPassFailure,
} from './report/pass-failure.js';
export {
  DEFAULT_STATUS_REPORT_INTERVAL_MS,
  lastPassStatus,
  statusReportDue,
} from './report/status-report.js';
export { type Remembered, readRemembered } from './tenant/lifecycle.js';
