/**
 * A Pod update that touches only what the host lets change. A running Pod's spec is immutable
 * but for container and init-container images, `activeDeadlineSeconds`, added tolerations and
 * removed scheduling gates; the host adds tolerations of its own (taint-based eviction, admission
 * webhooks) that a full PUT from the tenant's spec would take away, which the apiserver refuses
 * (`existing toleration can not be modified`). So the body is the observed host Pod with only
 * those fields overwritten, and nothing is written when none of them differ. Container resources
 * change only through the `pods/resize` subresource, so a resource change comes with the body of
 * that resize; every other change is named as one the host cannot take (`pod-immutable.ts`).
 */
import { cloneJson, isRecord, jsonEqual } from '../../../../common/index.js';
import type { KubeObject } from '../../../../ports/index.js';
import { isSubset } from '../../../object/drift.js';
import type { TranslatedUpdate } from '../../frame/translator.js';
import { immutableChangeReason, immutablePodChanges, resizable } from './immutable.js';

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

/** Requests and limits merged per resource: the host's extra ones (a LimitRange's) stay. */
function mergedResources(observed: unknown, desired: Json): Json {
  const have = isRecord(observed) ? observed : {};
  const merged: Json = { ...cloneJson(have) };
  for (const side of ['requests', 'limits']) {
    const want = desired[side];
    if (isRecord(want)) merged[side] = { ...(isRecord(have[side]) ? have[side] : {}), ...want };
  }
  return merged;
}

/**
 * Container resources by name onto the observed lists, for the containers a resize can change;
 * true when any changed. Only a resource the tenant sets counts: defaults the host added do not.
 */
function resources(list: string, desired: Json, body: Json, changed: string[]): boolean {
  const wanted = new Map(records(desired[list]).map((c) => [c.name, c.resources]));
  let any = false;
  for (const container of records(body[list])) {
    const want = wanted.get(container.name);
    if (!isRecord(want) || !resizable(list, container)) continue;
    if (isSubset(want, container.resources)) continue;
    container.resources = mergedResources(container.resources, want);
    changed.push(`spec.${list}[${String(container.name)}].resources`);
    any = true;
  }
  return any;
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
 * (when set: the host cannot unset it), tolerations (the union), scheduling gates (only removed)
 * and container resources (then `resize` is the body of the in-place resize: `observed` with only
 * the resources changed). Metadata stays as observed (the engine merges labels and annotations).
 * `changed` is empty when none of them differ; `immutable` names what else changed.
 */
export function podUpdateBody(desired: KubeObject, observed: KubeObject): TranslatedUpdate {
  const { status: _status, ...rest } = observed;
  const immutable = immutablePodChanges(desired, observed);
  const immutableOf = () =>
    immutable.length > 0
      ? { immutable: { fields: immutable, reason: immutableChangeReason(immutable) } }
      : {};
  // A steady pass meets every Pod in sync: no copy of the host's Pod to find that out.
  if (!anyMutableChange(specOf(desired), specOf(observed))) {
    return { body: rest as KubeObject, changed: [], ...immutableOf() };
  }
  const body = cloneJson(rest) as KubeObject;
  const want = specOf(desired);
  const spec = specOf(body);
  body.spec = spec;
  const changed: string[] = [];
  // The resize body is taken before any other field is overwritten: the subresource refuses a
  // body that changes anything but resources.
  const resizeBody = cloneJson(body);
  const resizeSpec = specOf(resizeBody);
  let resized = false;
  for (const list of ['initContainers', 'containers']) {
    // Into both bodies: once the resize is made, the update must not take the resources back.
    if (resources(list, want, resizeSpec, [])) {
      resources(list, want, spec, changed);
      resized = true;
    }
  }
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
  return { body, changed, ...(resized ? { resize: resizeBody } : {}), ...immutableOf() };
}

/**
 * Whether {@link podUpdateBody} would change anything of `have` (the host's spec) to take `want`,
 * read only: the same checks as the body's, without copying the host's Pod.
 */
function anyMutableChange(want: Json, have: Json): boolean {
  for (const list of ['initContainers', 'containers']) {
    const wanted = new Map(records(want[list]).map((c) => [c.name, c]));
    for (const container of records(have[list])) {
      const desired = wanted.get(container.name);
      if (!desired) continue;
      if (typeof desired.image === 'string' && desired.image !== container.image) return true;
      const resources = desired.resources;
      if (isRecord(resources) && resizable(list, container)) {
        if (!isSubset(resources, container.resources)) return true;
      }
    }
  }
  const deadline = want.activeDeadlineSeconds;
  if (typeof deadline === 'number' && deadline !== have.activeDeadlineSeconds) return true;
  const tolerations = records(have.tolerations);
  if (records(want.tolerations).some((t) => !tolerations.some((o) => jsonEqual(o, t)))) return true;
  const gates = records(have.schedulingGates);
  return remainingGates(gates, want.schedulingGates).length !== gates.length;
}
