/** Writing one Event: create it, or bump the one a previous pass wrote under the same name. */
import {
  type Clock,
  type ClusterApi,
  ClusterError,
  ClusterErrorReason,
  EVENT,
} from '../../ports/index.js';
import { type EventSpec, kubeTime, newEventObject, type TenantClusterRef } from './event-object.js';
import { EVENTS_NAMESPACE } from './identity.js';

// Another writer (a concurrent pass, or the Event expiring) changed the Event between our GET
// and our write; a fresh GET sees the new state.
function isRace(error: unknown): boolean {
  return (
    error instanceof ClusterError &&
    (error.reason === ClusterErrorReason.Conflict ||
      error.reason === ClusterErrorReason.AlreadyExists ||
      error.reason === ClusterErrorReason.NotFound)
  );
}

/**
 * Creates the Event of `spec`, or adds its occurrences to the `count` of the existing Event and
 * moves its `lastTimestamp`. Retries once when the Event changed under it; other errors throw.
 */
export async function createOrBumpEvent(
  hostApi: ClusterApi,
  clock: Clock,
  spec: EventSpec,
  about: TenantClusterRef,
): Promise<'created' | 'bumped'> {
  for (let attempt = 0; ; attempt++) {
    const now = kubeTime(clock.now());
    const existing = await hostApi.get(EVENT, EVENTS_NAMESPACE, spec.name);
    try {
      if (existing) {
        const count = typeof existing.count === 'number' ? existing.count : 1;
        await hostApi.update({
          ...existing,
          metadata: {
            ...existing.metadata,
            annotations: { ...(existing.metadata.annotations ?? {}), ...spec.annotations },
          },
          message: spec.message,
          count: count + spec.occurrences,
          lastTimestamp: now,
        });
        return 'bumped';
      }
      await hostApi.create(newEventObject(spec, about, now));
      return 'created';
    } catch (error) {
      if (!isRace(error) || attempt >= 1) throw error;
    }
  }
}
