/**
 * Reserved keys at every level of a copy, not only its own metadata. A copied object can embed
 * object metadata a host controller stamps onto objects it makes (a claim template, a custom
 * resource's Pod or Secret template): a tenant label `tenantplane.io/tenant: other` there would
 * make the host controller write an object that another TenantCluster takes for its own copy
 * (its GC deletes it, its status back writes it onto that tenant's object). So every `metadata`
 * record inside a copy loses its labels and annotations under reserved keys, as the copy's own
 * metadata does (`transform.ts`). Only those keys go: everything else of the content stays.
 */
import { isRecord } from '../../common/index.js';
import { isReservedKey } from '../names/metadata.js';

/** Deletes reserved keys from a `labels` or `annotations` map (in place). */
function dropReserved(map: unknown): void {
  if (!isRecord(map)) return;
  for (const key of Object.keys(map)) {
    if (isReservedKey(key)) delete map[key];
  }
}

/**
 * Drops tenant labels and annotations under reserved keys from every `metadata` record nested in
 * `content` (the copy's body without its own metadata; changed in place: it is the copy's own).
 * Walks with a stack of its own, so content as deep as the apiserver accepts never overflows the
 * call stack.
 */
export function dropNestedReservedKeys(content: unknown): void {
  const stack: unknown[] = [content];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    if (!isRecord(value)) continue;
    for (const [key, member] of Object.entries(value)) {
      if (typeof member !== 'object' || member === null) continue;
      if (key === 'metadata' && isRecord(member)) {
        dropReserved(member.labels);
        dropReserved(member.annotations);
      }
      stack.push(member);
    }
  }
}
