/**
 * The pure sync engine: its public surface, listed explicitly so internals stay internal. Depends
 * only on `lib/ports` and `lib/common`.
 */

// The TenantCluster kind is part of the engine's vocabulary; it is defined with the ports.
export { TENANT_CLUSTER } from '../ports/index.js';
export {
  type ApplyContext,
  type ApplyOutcome,
  type ApplyPlan,
  applyObject,
  planApply,
} from './apply.js';
export { type Budget, DEFAULT_BUDGET } from './budget.js';
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
} from './conditions.js';
export { DEFAULT_REPORT_RESERVE_MS, passEndDeadline, workDeadline } from './deadlines.js';
export { DecisionRecorder, emptyCounts } from './decisions.js';
export {
  ClusterUnreachableError,
  InvalidPolicyError,
  PassError,
  TenantClusterChangedError,
  TenantClusterNotFoundError,
} from './errors.js';
export { type GcCandidate, planGc, type TenantListing } from './gc.js';
export { type PassOptions, runPass } from './guarded-pass.js';
export { compactHostObject } from './host-view.js';
export {
  type LabelSelector,
  LabelSelectorError,
  matchesLabelSelector,
  parseLabelSelector,
} from './label-selector.js';
export { type Remembered, readRemembered } from './lifecycle.js';
export {
  Annotations,
  isReservedKey,
  Labels,
  MANAGED_BY_VALUE,
  RESERVED_DOMAIN,
  TenantClusterKeys,
} from './metadata.js';
export { hostName } from './naming.js';
export { formatObjectError } from './object-errors.js';
export { requestDelta } from './pass.js';
export type { PassProgress } from './pass-context.js';
export {
  failureConditions,
  failureReason,
  type PassFailureReportOptions,
  reportPassFailure,
} from './pass-failure.js';
export {
  DEFAULT_DELETE_GUARD,
  DEFAULT_TO_HOST,
  type DeleteGuardPolicy,
  type KindExclusions,
  type KindRule,
  parseSyncPolicy,
  type SyncPolicy,
} from './policy.js';
export {
  describeOccupant,
  type Provenance,
  provenance,
  type SourceIdentity,
} from './provenance.js';
export {
  type ReverseRef,
  reverseLookup,
  reverseMappingAnnotations,
  reverseMappingLabels,
} from './reverse-mapping.js';
export {
  type CompiledKindRule,
  compileKindRule,
  isExcluded,
  TENANT_SYSTEM_NAMESPACES,
} from './scope.js';
export {
  DEFAULT_STATUS_REPORT_INTERVAL_MS,
  lastPassStatus,
  statusReportDue,
} from './status-report.js';
export { ownedKeysOf, type TransformTarget, toHostObject } from './transform.js';
