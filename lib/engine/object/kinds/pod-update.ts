/**
 * A Pod update that touches only what the host lets change. A running Pod's spec is immutable
 * but for container and init-container images, `activeDeadlineSeconds`, added tolerations and
 * removed scheduling gates; the host adds tolerations of its own (taint-based eviction, admission
 * webhooks) that a full PUT from the tenant's spec would take away, which the apiserver refuses
 * (`existing toleration can not be modified`). So the body is the observed host Pod with only
 * those fields overwritten, and nothing is written when none of them differ.
 */
import { cloneJson, isRecord, jsonEqual } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import type { TranslatedUpdate } from './translator.js';

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function specOf(object: KubeObject): Json {
  return isRecord(object.spec) ? object.spec : {};
}

/** Images by container name, from the desired list onto the observed one. */
function images(list: string, desired: Json, body: Json, changed: string[]): void {
  const wanted = new Map(records(desired[list]).map((c) => [c.name, c.image]));
  for (const container of records(body[list])) {
    const image = wanted.get(container.name);
    if (typeof image === 'string' && image !== container.image) {
      container.image = image;
      changed.push(`spec.${list}[${String(container.name)}].image`);
    }
  }
}

/**
 * The union of the host's tolerations with the desired ones: every observed toleration stays
 * as it is (the host may have added it; it cannot be changed), and desired ones the host lacks are
 * added.
 */
export function tolerationUnion(observed: unknown, desired: unknown): Json[] {
  const union = records(observed).map((t) => cloneJson(t));
  for (const toleration of records(desired)) {
    if (!union.some((t) => jsonEqual(t, toleration))) union.push(cloneJson(toleration));
  }
  return union;
}

/**
 * Scheduling gates can only be removed once a Pod exists: the host's gates the tenant still has
 * stay, the ones it removed go, and ones it added cannot be (the Pod was created without them).
 */
function remainingGates(observed: unknown, desired: unknown): Json[] {
  const wanted = records(desired);
  return records(observed).filter((gate) => wanted.some((w) => w.name === gate.name));
}

/**
 * The update of a host Pod: `observed` (whole) with the desired images, `activeDeadlineSeconds`
 * (when set: the host cannot unset it), tolerations (the union) and scheduling gates (only
 * removed). Metadata stays as observed (the engine merges labels and annotations). `changed` is
 * empty when none of them differ.
 */
export function podUpdateBody(desired: KubeObject, observed: KubeObject): TranslatedUpdate {
  const { status: _status, ...rest } = observed;
  const body = cloneJson(rest) as KubeObject;
  const want = specOf(desired);
  const spec = specOf(body);
  body.spec = spec;
  const changed: string[] = [];
  images('initContainers', want, spec, changed);
  images('containers', want, spec, changed);
  const deadline = want.activeDeadlineSeconds;
  if (typeof deadline === 'number' && deadline !== spec.activeDeadlineSeconds) {
    spec.activeDeadlineSeconds = deadline;
    changed.push('spec.activeDeadlineSeconds');
  }
  const tolerations = tolerationUnion(spec.tolerations, want.tolerations);
  if (tolerations.length !== records(spec.tolerations).length) {
    spec.tolerations = tolerations;
    changed.push('spec.tolerations');
  }
  const gates = remainingGates(spec.schedulingGates, want.schedulingGates);
  if (gates.length !== records(spec.schedulingGates).length) {
    if (gates.length > 0) spec.schedulingGates = gates;
    else delete spec.schedulingGates;
    changed.push('spec.schedulingGates');
  }
  return { body, changed };
}
