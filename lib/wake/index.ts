/**
 * The wake core (docs/wake.md): the endpoint a tenant apiserver's audit webhook calls when the
 * tenant changed, and what the tenant apiserver needs to call it. Imports only `lib/common` and
 * node builtins; the Lambda function (functions/wake), the CLI and the local plane wire it.
 */
export {
  AUDIT_SKIPPED_NAMESPACES,
  AUDIT_WRITE_VERBS,
  type AuditPolicyOptions,
  type AuditResources,
  apiserverAuditFlags,
  auditResourcesOf,
  DEFAULT_ENGINE_USER,
  groupOf,
  guessResource,
  renderAuditPolicy,
  renderWebhookKubeconfig,
  type SyncedKind,
  tenantWakeUrl,
  type WebhookKubeconfigInput,
  wakePath,
} from './audit-config.js';
export {
  type CoalesceDecision,
  DEFAULT_DELIVERY_SLACK_MS,
  DEFAULT_WAKE_QUIET_SECONDS,
  WakeCoalescer,
  type WakeWindow,
} from './coalesce.js';
export {
  createWakeHandler,
  DEFAULT_MAX_BODY_BYTES,
  tenantOfPath,
  type WakeDeps,
  type WakeOptions,
  WakeOutcome,
  type WakeRequest,
  type WakeResponse,
} from './handler.js';
export { wakeSecretPrefix } from './names.js';
export { bearerToken, MAX_TOKEN_LENGTH, tokensEqual } from './token.js';
