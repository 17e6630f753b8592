/**
 * Replace: when the host can never accept an update of a copy (an immutable field), the copy is
 * deleted and created anew in the same pass. A kind whose fixed fields are known before any
 * update (`WriteTraits.fixedFields`: an immutable ConfigMap's data, a Secret's `type`) converges
 * in one pass instead of failing on every pass. Only ever for this source's own copy: the caller
 * has checked provenance.
 */
import { isRecord } from '../../common/index.js';
import { ClusterError, isClusterError, type KubeObject } from '../../ports/index.js';
import { attempt } from '../errors.js';
import { Annotations } from '../names/metadata.js';
import type { TenantSource } from '../names/reverse-mapping.js';

/** The apiserver's wording for an update of an immutable field (`FieldImmutableErrorMsg`). */
const IMMUTABLE = /\b(?:field|value) is immutable\b/i;

/**
 * The fields a refused update names as immutable: `undefined` when `error` is not such a refusal
 * (a 422 Invalid whose message says a field is immutable). The field paths come from the
 * apiserver's message (`ConfigMap "x" is invalid: [data: Forbidden: field is immutable when
 * `immutable` is set, ...]`); `['(unnamed field)']` when it names none.
 */
export function immutableFields(error: unknown): string[] | undefined {
  if (!isClusterError(error, 'Invalid') || !IMMUTABLE.test(error.message)) return undefined;
  const text = error.message.replace(/^.*? is invalid: \[?/s, '').replace(/\]$/, '');
  const fields = text
    .split(/, (?=[\w.[\]/-]+: )/)
    .filter((part) => IMMUTABLE.test(part))
    .map((part) => part.slice(0, part.indexOf(': ')))
    .filter((field) => /^[\w.[\]/-]+$/.test(field));
  return fields.length > 0 ? [...new Set(fields)] : ['(unnamed field)'];
}

/** Whether the copy was made from another tenant object of the same name (deleted, recreated). */
export function sourceRecreated(desired: KubeObject, observed: KubeObject): boolean {
  const want = desired.metadata.annotations?.[Annotations.VirtualUid];
  const have = observed.metadata.annotations?.[Annotations.VirtualUid];
  return want !== undefined && have !== undefined && want !== have;
}

/** Why a copy is replaced, in the words both of its Decisions use. */
export function replacementCause(
  source: TenantSource,
  fields: readonly string[],
  recreated: boolean,
): string {
  const what = `tenant ${source.kind} ${source.virtualNamespace}/${source.virtualName}`;
  const immutable = `${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} immutable on the host copy`;
  return recreated
    ? `${what} was recreated and ${immutable}`
    : `${immutable} and ${what} changed it`;
}

/** The two writes of a replacement, as the Decisions record them. */
export interface ReplaceOutcome {
  deleted: { reason: string; error?: unknown; alreadyGone?: boolean };
  /** Absent when the delete failed: nothing was created. */
  created?: { reason: string; error?: unknown };
}

/** What {@link replaceCopy} needs. */
export interface ReplaceContext {
  delete: (observed: KubeObject) => Promise<void>;
  create: () => Promise<unknown>;
}

/**
 * Deletes the copy with uid and resourceVersion preconditions (a copy changed since it was read is
 * left alone: the delete fails with Conflict and the next pass decides again), then creates the
 * desired object. A copy already gone is simply created. (A dry run's client sends neither.)
 */
export async function replaceCopy(
  ctx: ReplaceContext,
  observed: KubeObject,
  cause: string,
): Promise<ReplaceOutcome> {
  const deleted: ReplaceOutcome['deleted'] = {
    reason: `replacement: ${cause}, so the host copy is deleted to be created anew`,
  };
  const created = { reason: `replacement: ${cause}; created anew after deleting the old copy` };
  if (!isRecord(observed.metadata) || typeof observed.metadata.uid !== 'string') {
    deleted.error = new ClusterError('Invalid', 'the host copy has no uid to delete it safely');
    return { deleted };
  }
  // A pass-level failure (another pass holds the tenant's lease) goes on up (`attempt`).
  const removed = await attempt(() => ctx.delete(observed));
  if (!removed.ok) {
    if (!isClusterError(removed.error, 'NotFound'))
      return { deleted: { ...deleted, error: removed.error } };
    deleted.alreadyGone = true;
  }
  const made = await attempt(() => ctx.create());
  return made.ok ? { deleted, created } : { deleted, created: { ...created, error: made.error } };
}
