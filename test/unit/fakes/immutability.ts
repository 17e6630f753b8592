/**
 * The apiserver's immutability rules for the kinds the engine syncs by default, as the in-memory
 * fake enforces them on update: a ConfigMap or Secret with `immutable: true` keeps its data,
 * binaryData and `immutable`; a Secret keeps its `type`. The messages are the apiserver's.
 */
import { ClusterError, type KubeObject } from '../../../lib/ports/index.js';

const IMMUTABLE_WHEN_SET = 'Forbidden: field is immutable when `immutable` is set';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}

/** The 422 an apiserver answers to updating `current` into `next`, or undefined when allowed. */
export function immutabilityError(current: KubeObject, next: KubeObject): ClusterError | undefined {
  if (current.apiVersion !== 'v1') return undefined;
  if (current.kind !== 'ConfigMap' && current.kind !== 'Secret') return undefined;
  const causes: string[] = [];
  if (current.kind === 'Secret' && (current.type ?? 'Opaque') !== (next.type ?? 'Opaque')) {
    causes.push(`type: Invalid value: ${JSON.stringify(next.type)}: field is immutable`);
  }
  if (current.immutable === true) {
    if (next.immutable !== true) causes.push(`immutable: ${IMMUTABLE_WHEN_SET}`);
    if (!same(current.data, next.data)) causes.push(`data: ${IMMUTABLE_WHEN_SET}`);
    if (!same(current.binaryData, next.binaryData))
      causes.push(`binaryData: ${IMMUTABLE_WHEN_SET}`);
  }
  if (causes.length === 0) return undefined;
  const list = causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`;
  return new ClusterError(
    'Invalid',
    `${current.kind} "${current.metadata.name}" is invalid: ${list}`,
    { status: 422 },
  );
}
