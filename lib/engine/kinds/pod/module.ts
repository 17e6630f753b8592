/**
 * The Pod's room, as the registry lists it: the translation (`translate/`), the policy's host
 * priority class, the Pod Security check of the host Pod, what a running Pod cannot change, the
 * node the host binds, and the turn around the generic path (`pod-kind.ts`: tokens, Nodes,
 * bindings, endings, statuses).
 */
import { simpleSpecFields } from '../../object/kind-traits.js';
import type { KindModule } from '../frame/kind-module.js';
import type { KindTranslator } from '../frame/translator.js';
import { gracePeriodOf, lostPodReason } from './endings.js';
import type { PodFacts } from './facts.js';
import { podTurn, prefetchHostPods } from './pod-kind.js';
import { podImmutableDigest } from './translate/immutable.js';
import { POD_TRANSLATOR } from './translate/pod.js';
import { podSecurityHostRefusal } from './translate/pod-security.js';
import { withHostPriorityClass } from './translate/priority.js';

/**
 * The Pod translator with what lives apart from `translate/pod.ts`: the policy's host priority
 * class (a policy choice, not a translation), the digest of what a running Pod cannot change
 * (`translate/immutable.ts`, next to the update that names such changes), and the Pod Security
 * Standards checked on the host Pod once everything above made it (`translate/pod-security.ts`).
 */
const POD: KindTranslator<PodFacts> = {
  ...withHostPriorityClass(POD_TRANSLATOR),
  immutableDigest: podImmutableDigest,
  hostRefusal: podSecurityHostRefusal,
};

/** Pods. */
export const POD_MODULE: KindModule<PodFacts> = {
  kind: POD.kind,
  translator: POD,
  // The node a Pod runs on is the host scheduler's choice.
  hostOwned: simpleSpecFields(['nodeName']),
  eventsBack: true,
  // Its status, node and end come back from the host copy (the turn's, not a statusBack rule).
  hostChanges: true,
  // Its update is built from the host's spec and its status comes back: held whole.
  hostView: 'whole',
  ending: gracePeriodOf,
  noRecreate: lostPodReason,
  prefetch: prefetchHostPods,
  startKind: podTurn,
};
