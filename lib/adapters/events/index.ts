/**
 * Kubernetes Events about TenantClusters: the sink that writes a pass's Decisions as Events
 * (identity, flood control, messages, create-or-bump) and the reader the CLI shows them with.
 */
export {
  DEFAULT_MAX_EVENTS_PER_PASS,
  type DecisionGroup,
  selectDecisionEvents,
} from './flood-control.js';
export {
  decisionEventName,
  decisionKey,
  EVENT_COMPONENT,
  EVENTS_NAMESPACE,
  isTenantplaneEvent,
  PASS_SUMMARY_REASON,
  passSummaryEventName,
} from './identity.js';
export { decisionEventMessage, MAX_EVENT_MESSAGE, passSummaryMessage } from './messages.js';
export {
  type EventView,
  eventMentions,
  eventView,
  hostObjectEvents,
  tenantClusterEvents,
} from './reader.js';
export {
  type EventsReport,
  KubernetesEventsSink,
  type KubernetesEventsSinkOptions,
} from './writer.js';
