/**
 * Small helpers shared by the engine, the adapters, the CLI and the CDK app. Like `lib/ports`,
 * this folder imports nothing else of the product, so the engine may depend on it.
 */
export { isRecord } from './guards.js';
export {
  cloneJson,
  JsonDepthError,
  jsonDigest,
  jsonEqual,
  MAX_JSON_DEPTH,
  stableJson,
} from './json.js';
export { runPool } from './pool.js';
export {
  isDnsLabel,
  isTenantName,
  MAX_TENANT_NAME_LENGTH,
  tenantNameProblem,
} from './tenant-name.js';
export { errorMessage, plural } from './text.js';
