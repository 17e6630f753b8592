/**
 * The pure sync engine: its public surface, the names production code outside the engine uses
 * (adapters, CLI, Lambda handler), listed explicitly so internals stay internal. Tests may import
 * internals by path; production code outside `lib/engine` imports only this file (the
 * architecture test enforces it). Depends only on `lib/ports` and `lib/common`.
 */

export type { Budget } from './bounds/budget.js';
export { InSyncMemo } from './context/in-sync-memo.js';
export { InvalidPolicyError, TenantClusterNotFoundError } from './errors.js';
export { FollowEnd, type FollowOptions, type FollowResult, runFollow } from './follow/follow.js';
export { recordedTenantContainers } from './kinds/registry.js';
export { tenantCopySelector } from './names/copy-selector.js';
export { EventAnnotations, KubernetesKeys, Labels, MANAGED_BY_VALUE } from './names/metadata.js';
export { hostName } from './names/naming.js';
export { reverseLookup, type TenantSource } from './names/reverse-mapping.js';
export type { PassOptions } from './pass/options.js';
export { runPass } from './pass/pass.js';
export { requestDelta } from './pass/result.js';
export { type KindRule, parseSyncPolicy, type SyncPolicy } from './policy/policy.js';
export { compileKindRule, isExcluded } from './policy/scope.js';
export { type Condition, ConditionType, recordedConditions } from './report/conditions.js';
